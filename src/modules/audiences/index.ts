import type { ModuleManifest } from '../../deps.js';
import { audienceRoutes } from './routes.js';

export const audiencesModule: ModuleManifest = { name: 'audiences', routes: audienceRoutes };
