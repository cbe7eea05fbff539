import type { ModuleManifest } from '../../deps.js';
import { audienceRoutes } from './routes.js';

export const audiencesModule: ModuleManifest = {
  name: 'audiences',
  routes: audienceRoutes,
  tags: [{ name: 'audiences', description: 'Rule-based audiences that target flows and content' }],
};

// The surface other modules use.
export { assertAudienceUsable } from './lookup.js';
export { audienceReferrers } from './referrers.js';
export { createAudienceBody } from './schemas.js';
export { loadLiveAudiences } from './service.js';
