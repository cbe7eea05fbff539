import type { ModuleManifest } from '../../deps.js';
import { auditRoutes } from './routes.js';

export const auditModule: ModuleManifest = { name: 'audit', routes: auditRoutes };
