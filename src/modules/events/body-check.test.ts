import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { plainEventsBody } from './body-check.js';
import { eventsBody, MAX_EVENTS_PER_REQUEST } from './schema.js';
import { EVENT_TYPES } from './types.js';

const text = (min: number, max: number) =>
  fc.string({ minLength: min, maxLength: max, unit: 'grapheme-ascii' });
const wrongType = fc.oneof(fc.constant(null), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}));
const jsonObject = fc.dictionary(text(1, 8), fc.jsonValue({ maxDepth: 2 }));
const limitedText = (valid: fc.Arbitrary<string>) => ({
  valid,
  tricky: fc.oneof(
    fc.constantFrom('', 'x', 'x'.repeat(255), 'x'.repeat(256), '😀'.repeat(127), '😀'.repeat(128)),
    wrongType,
  ),
});
/** Per field: values that are valid, and values at or past its rules (either side), or of the wrong type. */
const fields = {
  id: {
    valid: fc.uuid({ version: [1, 4, 7] }),
    tricky: fc.oneof(
      fc.constantFrom(
        '00000000-0000-0000-0000-000000000000',
        '7C9E6679-7425-40DE-944B-E07FC1F90AE7',
        '7c9e6679-7425-00de-944b-e07fc1f90ae7',
        '7c9e6679-7425-40de-144b-e07fc1f90ae7',
        '7c9e66797425-40de-944b-e07fc1f90ae7',
        'not-a-uuid',
      ),
      wrongType,
    ),
  },
  type: {
    valid: fc.constantFrom(...EVENT_TYPES),
    tricky: fc.oneof(fc.constantFrom('CUSTOM', 'track', 'custom', ''), wrongType),
  },
  name: limitedText(text(1, 20)),
  userId: limitedText(text(1, 20)),
  anonymousId: limitedText(text(1, 20)),
  sessionId: limitedText(text(1, 20)),
  url: {
    valid: fc.webUrl(),
    tricky: fc.oneof(fc.constantFrom('', 'x'.repeat(4096), 'x'.repeat(4097)), wrongType),
  },
  timestamp: {
    valid: fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
      .map((d) => d.toISOString()),
    tricky: fc.oneof(
      fc.constantFrom(
        '2026-11-21T13:25:40Z',
        '2026-11-21T13:25:40.387+02:00',
        '2026-11-21T13:25:40.387+0200',
        '2026-11-21T13:25:40',
        '2026-11-21 13:25:40Z',
        '2026-02-29T00:00:00Z',
        '2024-02-29T00:00:00Z',
        '2026-11-21T24:00:00Z',
        'yesterday',
      ),
      wrongType,
    ),
  },
  properties: { valid: jsonObject, tricky: wrongType },
  metadata: { valid: jsonObject, tricky: wrongType },
  extra: { valid: wrongType, tricky: wrongType },
};
type Field = keyof typeof fields;
const names = Object.keys(fields) as Field[];
const validEvent = fc.record(
  Object.fromEntries(names.filter((k) => k !== 'extra').map((k) => [k, fields[k].valid])) as {
    [K in Exclude<Field, 'extra'>]: (typeof fields)[K]['valid'];
  },
  { requiredKeys: ['type'] },
);
/** A valid event with at most one field changed to a tricky value (or added: `extra`). */
const event = fc.oneof(
  { weight: 2, arbitrary: validEvent },
  {
    weight: 6,
    arbitrary: fc
      .tuple(validEvent, fc.constantFrom(...names))
      .chain(([e, k]) => fields[k].tricky.map((v) => ({ ...e, [k]: v }))),
  },
  { weight: 1, arbitrary: wrongType },
);
/** Through JSON, as a request body would be. */
const asJson = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('plainEventsBody', () => {
  it('vouches only for what zod accepts, with the same output', () => {
    fc.assert(
      fc.property(fc.array(event, { maxLength: 3 }), (events) => {
        const body = asJson({ events });
        const plain = plainEventsBody(body);
        const zod = eventsBody.safeParse(body);
        if (plain) {
          expect(zod.success).toBe(true);
          expect(plain).toEqual(zod.data);
        }
        // Every body zod accepts whose events hold only the schema's keys takes the plain path,
        // unless its strings hold characters of two UTF-16 units (zod counts them as one).
        const onlyKnownKeys = events.every((e) => !(e && typeof e === 'object' && 'extra' in e));
        const astral = /[\u{10000}-\u{10FFFF}]/u.test(JSON.stringify(body));
        if (zod.success && onlyKnownKeys && !astral) expect(plain).not.toBeNull();
      }),
      { numRuns: 5000 },
    );
  });

  it('takes a typical SDK batch, and drops unknown top-level keys as zod does', () => {
    const events = Array.from({ length: 50 }, (_, i) => ({
      id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      type: i % 2 ? 'CUSTOM' : 'PAGE_VIEW',
      name: `event_${i}`,
      userId: 'user-1',
      sessionId: 'sess-1',
      url: 'https://app.example.com/projects/42',
      timestamp: '2026-11-21T13:25:40.387Z',
      properties: { stepIndex: i, nested: { a: [1, 2] } },
    }));
    const body = { events, _apiKey: 'wfx_x' };
    expect(plainEventsBody(body)).toEqual({ events });
    expect(plainEventsBody(body)).toEqual(eventsBody.parse(body));
  });

  it('leaves bodies zod refuses, and those at its bounds, to zod', () => {
    const one = { type: 'PAGE_VIEW' };
    expect(plainEventsBody({ events: [] })).toBeNull();
    expect(plainEventsBody({ events: Array(MAX_EVENTS_PER_REQUEST + 1).fill(one) })).toBeNull();
    expect(plainEventsBody({ events: Array(MAX_EVENTS_PER_REQUEST).fill(one) })).not.toBeNull();
    expect(plainEventsBody({ events: [{ type: 'CUSTOM' }] })).toBeNull();
    expect(plainEventsBody({ events: [{ type: 'PAGE_VIEW', properties: [] }] })).toBeNull();
    expect(plainEventsBody({ events: [{ type: 'PAGE_VIEW', extra: 1 }] })).toBeNull();
    expect(plainEventsBody([one])).toBeNull();
    expect(plainEventsBody(null)).toBeNull();
  });
});
