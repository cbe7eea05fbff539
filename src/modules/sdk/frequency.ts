import { isUuid } from '../../platform/ids.js';
import type { StoredEvent } from '../events/types.js';

/**
 * The frequency cap. Tenant setting `settings.frequency` (PATCH /api/tenants/current):
 *   repeatCompleted (default false): offer a flow / content item / NPS survey again after the
 *     end user completed it;
 *   repeatDismissed (default false): offer it again after the end user dismissed or skipped it.
 * Anything but a boolean reads as the default.
 */
export interface FrequencySettings {
  repeatCompleted: boolean;
  repeatDismissed: boolean;
}

export const DEFAULT_FREQUENCY: FrequencySettings = { repeatCompleted: false, repeatDismissed: false };

export function frequencyOf(settings: unknown): FrequencySettings {
  const f =
    settings && typeof settings === 'object' ? (settings as Record<string, unknown>).frequency : undefined;
  if (!f || typeof f !== 'object') return DEFAULT_FREQUENCY;
  const { repeatCompleted, repeatDismissed } = f as Record<string, unknown>;
  return {
    repeatCompleted:
      typeof repeatCompleted === 'boolean' ? repeatCompleted : DEFAULT_FREQUENCY.repeatCompleted,
    repeatDismissed:
      typeof repeatDismissed === 'boolean' ? repeatDismissed : DEFAULT_FREQUENCY.repeatDismissed,
  };
}

export type ItemState = 'completed' | 'dismissed';

/** The first property among `keys` that holds a uuid (lower-cased), else null. */
export function idIn(props: Record<string, unknown> | undefined, keys: readonly string[]): string | null {
  if (!props) return null;
  for (const k of keys) {
    const v = props[k];
    if (typeof v === 'string' && isUuid(v)) return v.toLowerCase();
  }
  return null;
}

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
