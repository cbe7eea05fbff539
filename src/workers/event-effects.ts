import { analyticsRollupsEffect } from '../modules/analytics/rollups-effect.js';
import { surveyResponsesEffect } from '../modules/content/responses-effect.js';
import { endUserActivityEffect } from '../modules/sdk/activity-effect.js';
import type { EventEffect } from '../modules/events/processor.js';

/** What processing an accepted event does, in order. Each module contributes its effect here. */
export const eventEffects: EventEffect[] = [
  // (one line per effect)
  endUserActivityEffect, // first: creates the end users later effects look up
  analyticsRollupsEffect,
  surveyResponsesEffect,
];
