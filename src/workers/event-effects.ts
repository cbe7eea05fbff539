import { analyticsRollupsEffect } from '../modules/analytics/rollups-effect.js';
import { surveyResponsesEffect } from '../modules/content/responses-effect.js';
import type { EventEffect } from './event-processor.js';

/** What processing an accepted event does, in order. Each module contributes its effect here. */
export const eventEffects: EventEffect[] = [analyticsRollupsEffect, surveyResponsesEffect];
