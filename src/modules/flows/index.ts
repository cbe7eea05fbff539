import type { ModuleManifest } from '../../deps.js';
import { scheduledMovesJob } from '../../platform/schedule.js';
import { flowDelivery } from './delivery-contributor.js';
import { flowRoutes } from './routes.js';
import { archiveExpiredFlows, publishDueFlows } from './scheduling.js';
import { flowsTargetingAudience } from './store.js';

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
  referenceFinders: [{ target: 'audience', name: 'flows', find: flowsTargetingAudience }],
};

// The surface other modules use.
export { flowMissing, toFlowRecord } from './records.js';
export {
  createFlowBody,
  FLOW_STEP_TYPES,
  FLOW_TEMPLATES,
  flowRecord,
  inlineStepBody,
  MAX_FLOW_STEPS,
} from './schemas.js';
export { assertFlowUsable, createFlow, getFlow } from './service.js';
export { updateStep } from './steps.js';
export {
  countFlowsByStatus,
  findFlow,
  findStepTargets,
  loadSteps,
  loadStepsOf,
  type StepTarget,
  setStepFingerprints,
} from './store.js';
