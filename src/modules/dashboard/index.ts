import type { ModuleManifest } from '../../deps.js';
import { dashboardRoutes } from './routes.js';

/** Serves the dashboard web app (`packages/dashboard/dist`) at `/`, with its single-page-app fallback. */
export const dashboardModule: ModuleManifest = { name: 'dashboard', routes: dashboardRoutes };
