import type { ModuleManifest } from '../../deps.js';
import { authRoutes } from './routes.js';

export const authModule: ModuleManifest = { name: 'auth', routes: authRoutes };
