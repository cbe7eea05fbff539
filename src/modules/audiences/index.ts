import type { ModuleManifest } from '../../deps.js';
import { audienceRoutes } from './routes.js';

export const audiencesModule: ModuleManifest = {
  name: 'audiences',
  routes: audienceRoutes,
  tags: [{ name: 'audiences', description: 'Rule-based audiences that target flows and content' }],
};

// The surface other modules use.
export { createAudienceBody } from './schemas.js';
export { assertAudienceUsable } from './service.js';
export { audienceReferrers, loadLiveAudiences } from './store.js';
