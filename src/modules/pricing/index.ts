import type { ModuleManifest } from '../../deps.js';
import { pricingRoutes } from './routes.js';

export const pricingModule: ModuleManifest = { name: 'pricing', routes: pricingRoutes };
