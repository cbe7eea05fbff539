/**
 * The frequency cap's state: which items an end user completed or dismissed, from their events
 * (the settings that read it: `frequencyOf` in modules/delivery/cache.ts).
 */

import type { StoredEvent } from '../events/index.js';
import { idIn } from '../events/index.js';
import type { EndUserMerger } from './contract.js';
import { moveItemStatesOf } from './store.js';

export type ItemState = 'completed' | 'dismissed';

/**
 * Which item an event completes or dismisses, for the frequency cap:
 *   completed: FLOW_COMPLETED (properties.flowId, else contentId), SURVEY_RESPONSE
 *     (surveyId, else contentId), NPS_RESPONSE (npsSurveyId, else surveyId, else contentId),
 *     CONTENT_SUBMISSION_PERSISTED (contentId, else surveyId);
 *   dismissed: FLOW_DISMISSED and FLOW_SKIPPED (flowId, else contentId: the SDK reports a
 *     dismissed tooltip, announcement... with `properties.contentId`).
 * Ids must be uuids; anything else is ignored.
 */
export function itemStateOf(event: StoredEvent): { itemId: string; state: ItemState } | null {
  const p = event.properties;
  let itemId: string | null;
  let state: ItemState;
  switch (event.type) {
    case 'FLOW_COMPLETED':
      itemId = idIn(p, ['flowId', 'contentId']);
      state = 'completed';
      break;
    case 'SURVEY_RESPONSE':
      itemId = idIn(p, ['surveyId', 'contentId']);
      state = 'completed';
      break;
    case 'NPS_RESPONSE':
      itemId = idIn(p, ['npsSurveyId', 'surveyId', 'contentId']);
      state = 'completed';
      break;
    case 'CONTENT_SUBMISSION_PERSISTED':
      itemId = idIn(p, ['contentId', 'surveyId']);
      state = 'completed';
      break;
    case 'FLOW_DISMISSED':
    case 'FLOW_SKIPPED':
      itemId = idIn(p, ['flowId', 'contentId']);
      state = 'dismissed';
      break;
    default:
      return null;
  }
  return itemId ? { itemId, state } : null;
}

/** Identify's merge: the anonymous end user's item states move to the identified one (earliest times kept). */
export const moveItemStates: EndUserMerger = (tx, { tenantId, fromId, toId }) =>
  moveItemStatesOf(tx, tenantId, fromId, toId);
