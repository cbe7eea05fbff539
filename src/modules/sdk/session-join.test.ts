import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { LocaleView } from '../delivery/cache.js';
import { joinedItems } from './serve-session.js';

const viewOf = (flows: unknown[], content: unknown[], maxBytes: number): LocaleView => ({
  flows: flows.map((f) => Buffer.from(JSON.stringify(f))),
  content: content.map((c) => Buffer.from(JSON.stringify(c))),
  joined: { byChoice: new Map(), bytes: 0, maxBytes },
});

/** The session answer's item arrays as JSON, as `joinedItems` completes them. */
const parse = (joined: Buffer) => JSON.parse(`{"flows":[${joined.toString()}]}`);

describe('joinedItems', () => {
  it('joins any choice of items into the flows and content arrays, memoized within its byte budget', () => {
    const flows = Array.from({ length: 6 }, (_, i) => ({ id: `f${i}`, steps: [{ i }] }));
    const content = Array.from({ length: 6 }, (_, i) => ({ id: `c${i}`, text: 'é'.repeat(i) }));
    const pick = fc.uniqueArray(fc.integer({ min: 0, max: 5 })).map((a) => a.sort((x, y) => x - y));
    fc.assert(
      fc.property(fc.array(fc.tuple(pick, pick), { minLength: 1, maxLength: 10 }), (choices) => {
        const view = viewOf(flows, content, 1000);
        for (const [f, c] of choices) {
          const joined = joinedItems(view, f, c);
          expect(parse(joined)).toEqual({ flows: f.map((i) => flows[i]), content: c.map((i) => content[i]) });
          expect(joinedItems(view, f, c).equals(joined)).toBe(true);
          expect(view.joined.bytes).toBeLessThanOrEqual(1000);
        }
      }),
    );
  });
});
