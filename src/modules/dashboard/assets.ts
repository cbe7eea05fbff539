import { fileURLToPath } from 'node:url';
import { loadStaticAssets, type StaticAsset } from '../../platform/http/static-assets.js';

/**
 * The dashboard's built files (`packages/dashboard/dist`, `npm run build:dashboard`), read into
 * memory once with their ETags. Source maps are served too (the code is open source).
 */

export const DASHBOARD_DIST_DIR = fileURLToPath(
  new URL('../../../packages/dashboard/dist/', import.meta.url),
);

export type DashboardAsset = StaticAsset;

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

export const loadDashboardAssets = (dir: string = DASHBOARD_DIST_DIR): Map<string, DashboardAsset> =>
  loadStaticAssets(dir, { contentTypes: CONTENT_TYPES });
