import type { ModuleManifest } from '../../deps.js';
import { sdkRoutes } from './routes.js';

/** The SDK endpoints (API key): config, identify and session; `POST /api/sdk/events` is the events module's. */
export const sdkModule: ModuleManifest = {
  name: 'sdk',
  routes: sdkRoutes,
  tags: [{ name: 'sdk', description: "What the browser SDK calls from customers' pages (API key)" }],
};
