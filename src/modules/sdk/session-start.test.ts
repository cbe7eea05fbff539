import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { serverEvent } from '../events/recorder.js';
import { type SessionInput, sessionStartEvent } from './session.js';

describe('sessionStartEvent', () => {
  it('stores what serverEvent stores for the session start, byte for byte (the id aside)', () => {
    const text = fc.option(fc.string({ maxLength: 6 }), { nil: undefined });
    const input: fc.Arbitrary<SessionInput> = fc.record(
      {
        userId: text,
        anonymousId: text,
        url: text,
        locale: text,
        device: fc.option(fc.record({ type: text, browser: text }, { requiredKeys: [] }), { nil: undefined }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(input, fc.integer({ min: 0, max: 4e12 }), (i, nowMs) => {
        const mine = sessionStartEvent('s-1', i, nowMs);
        const generic = serverEvent('SDK_INIT', nowMs, {
          sessionId: 's-1',
          properties: { source: 'session', ...(i.locale ? { locale: i.locale } : {}) },
          userId: i.userId || undefined,
          anonymousId: i.anonymousId || undefined,
          url: i.url,
          metadata: i.device ? { device: i.device } : undefined,
        });
        expect(JSON.stringify({ ...mine, id: 'x' })).toBe(JSON.stringify({ ...generic, id: 'x' }));
        expect(Object.keys(mine)).toEqual(Object.keys(generic));
      }),
      { numRuns: 1000 },
    );
  });
});
