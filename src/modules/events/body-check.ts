import type { FastifySchemaCompiler } from 'fastify';
import type { FastifyRouteSchemaDef } from 'fastify/types/schema.js';
import type { z } from 'zod';
import { isPlainObject } from '../../engine/json.js';
import { type EventsBody, MAX_EVENTS_PER_REQUEST, type SdkEventInput, sdkEvent } from './schema.js';
import { EVENT_TYPES } from './types.js';

const TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);
const shape = sdkEvent.shape;
// The schema's own patterns, so that the two checks cannot drift apart on what a UUID or a
// timestamp is.
const UUID = shape.id.unwrap()._zod.pattern;
const TIMESTAMP = shape.timestamp.unwrap()._zod.pattern;
const KNOWN_KEYS: ReadonlySet<string> = new Set(Object.keys(shape));

/**
 * Lengths in UTF-16 units: zod counts code points, of which a string has at most as many, and at
 * least one if it is not empty; a longer string with characters of two units goes to zod.
 */
const optionalString = (v: unknown, min: number, max: number): boolean =>
  v === undefined || (typeof v === 'string' && v.length >= min && v.length <= max);
const optionalMatch = (v: unknown, pattern: RegExp): boolean =>
  v === undefined || (typeof v === 'string' && pattern.test(v));
const optionalObject = (v: unknown): boolean => v === undefined || isPlainObject(v);

function isPlainEvent(e: unknown): e is SdkEventInput {
  if (!isPlainObject(e)) return false;
  for (const key in e) if (!KNOWN_KEYS.has(key)) return false;
  const type = e.type;
  return (
    typeof type === 'string' &&
    TYPES.has(type) &&
    (type !== 'CUSTOM' || e.name !== undefined) &&
    optionalString(e.name, 1, 255) &&
    optionalString(e.userId, 1, 255) &&
    optionalString(e.anonymousId, 1, 255) &&
    optionalString(e.sessionId, 1, 255) &&
    optionalString(e.url, 0, 4096) &&
    optionalMatch(e.id, UUID) &&
    optionalMatch(e.timestamp, TIMESTAMP) &&
    optionalObject(e.properties) &&
    optionalObject(e.metadata)
  );
}

/**
 * The events body as zod would answer it, when every event is plainly valid and holds only the
 * schema's keys: zod's output is then the input itself (bar unknown top-level keys, which it
 * drops). Null otherwise, and zod decides, with its error details. The property test in
 * `body-check.test.ts` holds the two to the same answers. Validating 50 events costs zod ~50 µs
 * (a fifth of the request's CPU), this ~5 µs.
 */
export function plainEventsBody(body: unknown): EventsBody | null {
  if (!isPlainObject(body)) return null;
  const events = body.events;
  if (!Array.isArray(events) || events.length < 1 || events.length > MAX_EVENTS_PER_REQUEST) return null;
  for (let i = 0; i < events.length; i++) if (!isPlainEvent(events[i])) return null;
  return { events };
}

/**
 * The events route's body validator: the plain check first, the app's zod validator for
 * anything it does not vouch for (so every refusal is zod's, in the usual envelope).
 */
export const eventsBodyValidator =
  (zodCompiler: FastifySchemaCompiler<z.ZodType>): FastifySchemaCompiler<unknown> =>
  (route) => {
    // Fastify hands a route's validator each part's schema: the route's zod schemas here.
    const zodCheck = zodCompiler(route as FastifyRouteSchemaDef<z.ZodType>);
    if (route.httpPart !== 'body') return zodCheck;
    return (data) => {
      const plain = plainEventsBody(data);
      return plain ? { value: plain } : zodCheck(data);
    };
  };
