import type { EventEffect } from './event-processor.js';

/** What processing an accepted event does, in order. Each module contributes its effect here. */
export const eventEffects: EventEffect[] = [];
