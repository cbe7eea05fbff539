import type { ModuleManifest } from '../../deps.js';
import { scheduledMovesJob } from '../../platform/schedule.js';
import { archiveExpiredContent, publishDueAnnouncements, unpublishTaskListsForFlow } from './bulk.js';
import { contentTag } from './content-routes.js';
import { CONTENT_TYPE_LIST } from './definitions.js';
import { contentDelivery } from './delivery-contributor.js';
import { moveResponses, surveyResponsesEffect } from './responses-effect.js';
import { contentRoutes } from './routes.js';
import { contentItemsTargetingAudience } from './store/content-items.js';
import { npsSurveysTargetingAudience } from './store/nps-surveys.js';

/** Six content types under /api/content/:type, NPS surveys under /api/nps-surveys, and their responses. */
export const contentModule: ModuleManifest = {
  name: 'content',
  routes: contentRoutes,
  tags: [
    ...CONTENT_TYPE_LIST.map((def) => ({
      name: contentTag(def),
      description: `${def.label} content: drafts, publishing, archive`,
    })),
    { name: 'nps-surveys', description: 'NPS surveys, their responses and results' },
  ],
  effects: [surveyResponsesEffect],
  // Expiry first: an announcement past both dates is archived, never published.
  jobs: [
    scheduledMovesJob('content-schedule', {
      archivedContent: archiveExpiredContent,
      publishedContent: publishDueAnnouncements,
    }),
  ],
  delivery: [contentDelivery],
  endUserMergers: [moveResponses],
  referenceFinders: [
    { target: 'audience', name: 'content', find: contentItemsTargetingAudience },
    { target: 'audience', name: 'nps-surveys', find: npsSurveysTargetingAudience },
  ],
  dependentDisablers: [{ target: 'flow', name: 'task-lists', disable: unpublishTaskListsForFlow }],
};

export type { ContentTypeDef } from './definitions.js';
// The surface other modules use.
export {
  ANNOUNCEMENT_TYPES,
  BEACON_ANIMATIONS,
  CONTENT_DEFS,
  CONTENT_TYPE_LIST,
  createBodyOf,
  deliveredRecordOf,
  recordOf,
  TOOLTIP_POSITIONS,
} from './definitions.js';
export { toContentRecord } from './records.js';
export { npsSurvey } from './schemas.js';
export { createContent, getContent, updateContent } from './service.js';
export {
  type ContentTarget,
  findContentTargets,
  setContentFingerprints,
} from './store/content-items.js';
