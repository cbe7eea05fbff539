import { z } from 'zod';
import { jsonObject } from '../../platform/http/schemas.js';
import { EVENT_TYPES } from './types.js';

/**
 * Events without a client id get one derived from their batch's id and their position, folded
 * into the id's last 12 bits (decode.ts): unique only for positions below 4,096.
 */
export const DERIVED_ID_POSITIONS = 4096;

/** At most this many events a request (DECISIONS §4); the SDK sends 50 by default. */
export const MAX_EVENTS_PER_REQUEST = 500;
if (MAX_EVENTS_PER_REQUEST > DERIVED_ID_POSITIONS) {
  throw new Error('MAX_EVENTS_PER_REQUEST exceeds the positions derived event ids can tell apart');
}
/** Client clocks drift: a timestamp further ahead than this is clamped to the receive time. */
export const MAX_FUTURE_SKEW_MS = 5 * 60_000;

export const sdkEvent = z
  .object({
    id: z.uuid().optional().describe('Client-generated UUID; a retried event with the same id counts once'),
    type: z.enum(EVENT_TYPES),
    name: z.string().min(1).max(255).optional(),
    properties: jsonObject.optional(),
    timestamp: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; server time when omitted'),
    userId: z.string().min(1).max(255).optional(),
    anonymousId: z.string().min(1).max(255).optional(),
    sessionId: z.string().min(1).max(255).optional(),
    url: z.string().max(4096).optional(),
    metadata: jsonObject.optional(),
  })
  .refine((e) => e.type !== 'CUSTOM' || e.name !== undefined, {
    path: ['name'],
    message: 'CUSTOM events need a name',
  })
  .meta({ id: 'SdkEvent' });
export type SdkEventInput = z.infer<typeof sdkEvent>;

export const eventsBody = z.object({
  events: z.array(sdkEvent).min(1).max(MAX_EVENTS_PER_REQUEST),
});
export type EventsBody = z.infer<typeof eventsBody>;

export const eventsAccepted = z.object({
  data: z.object({ accepted: z.number().int(), correlationId: z.uuid() }),
});
