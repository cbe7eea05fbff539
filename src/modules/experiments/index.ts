import type { ModuleManifest } from '../../deps.js';
import { scheduledMovesJob } from '../../platform/schedule.js';
import { experimentConversionsEffect, moveAssignments } from './conversions.js';
import { experimentDelivery } from './delivery-contributor.js';
import { completeEndedExperiments } from './results.js';
import { experimentRoutes } from './routes.js';
import { stopExperimentsForFlow } from './service.js';
import { findExperimentsTargeting } from './store.js';

/** A/B tests over flows: routes, assignment at session time, conversions from events, results. */
export const experimentsModule: ModuleManifest = {
  name: 'experiments',
  routes: experimentRoutes,
  tags: [
    {
      name: 'experiments',
      description: 'A/B tests over flows: variants, assignment, results and statistics',
    },
  ],
  effects: [experimentConversionsEffect],
  jobs: [scheduledMovesJob('experiment-completion', { completedExperiments: completeEndedExperiments })],
  delivery: [experimentDelivery],
  endUserMergers: [moveAssignments],
  referenceFinders: [
    {
      target: 'audience',
      name: 'experiments',
      find: findExperimentsTargeting,
    },
  ],
  dependentDisablers: [{ target: 'flow', name: 'experiments', disable: stopExperimentsForFlow }],
};
