import { flows } from '../../db/schema/index.js';
import type { ModuleManifest } from '../../deps.js';
import { scheduledMovesJob } from '../../platform/schedule.js';
import { audienceReferrers } from '../audiences/index.js';
import { flowDelivery } from './delivery-contributor.js';
import { flowRoutes } from './routes.js';
import { archiveExpiredFlows, publishDueFlows } from './scheduling.js';

export const flowsModule: ModuleManifest = {
  name: 'flows',
  routes: flowRoutes,
  tags: [{ name: 'flows', description: 'Product tours and their steps' }],
  // Expiry first: a flow past both dates is archived, never published.
  jobs: [
    scheduledMovesJob('flow-schedule', {
      archivedFlows: archiveExpiredFlows,
      publishedFlows: publishDueFlows,
    }),
  ],
  delivery: [flowDelivery],
  referenceFinders: [
    {
      target: 'audience',
      name: 'flows',
      find: audienceReferrers(flows, { type: 'flow', archived: 'ARCHIVED' }),
    },
  ],
};

// The surface other modules use.
export { assertFlowUsable } from './lookup.js';
export { findFlow, flowMissing, loadSteps, loadStepsOf, toFlowRecord } from './records.js';
export {
  createFlowBody,
  FLOW_STEP_TYPES,
  FLOW_TEMPLATES,
  flowRecord,
  inlineStepBody,
  MAX_FLOW_STEPS,
} from './schemas.js';
export { createFlow, getFlow } from './service.js';
