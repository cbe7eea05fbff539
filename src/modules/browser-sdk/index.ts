import type { ModuleManifest } from '../../deps.js';
import { browserSdkRoutes } from './routes.js';

/** Serves the built browser SDK (`/sdk/guidance.js` and its lazy chunks) from `packages/sdk/dist`. */
export const browserSdkModule: ModuleManifest = { name: 'browser-sdk', routes: browserSdkRoutes };
