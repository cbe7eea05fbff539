import type { ModuleManifest } from '../../deps.js';
import { privacyDeletionsJob } from './deletion-job.js';
import { privacyRoutes } from './routes.js';

/**
 * End-user privacy requests (docs/privacy.md): `/api/privacy/deletions` (a durable job erases an
 * end user's rows from every table that keeps some, then emits `end_user.deleted`) and
 * `/api/privacy/exports/:userId` (everything stored about an end user, as JSON).
 */
export const privacyModule: ModuleManifest = {
  name: 'privacy',
  routes: privacyRoutes,
  tags: [{ name: 'privacy', description: "End users' deletion and export requests" }],
  jobs: [privacyDeletionsJob],
};
