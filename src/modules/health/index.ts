import type { ModuleManifest } from '../../deps.js';
import { healthRoutes } from './routes.js';

export const healthModule: ModuleManifest = { name: 'health', routes: healthRoutes };
