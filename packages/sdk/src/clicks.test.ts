import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RAGE_CLICKS, RAGE_WINDOW_MS, RageDetector } from './clicks.js';

describe('RageDetector', () => {
  it('reports the third click within 1 s on one element, once per burst', () => {
    const d = new RageDetector<string>();
    expect(d.click('a', 0)).toBeNull();
    expect(d.click('a', 300)).toBeNull();
    expect(d.click('a', 600)).toEqual({ clickCount: 3, timeSpanMs: 600 });
    expect(d.click('a', 700)).toBeNull();
    // a pause longer than the window starts a new burst
    expect(d.click('a', 2000)).toBeNull();
    expect(d.click('a', 2100)).toBeNull();
    expect(d.click('a', 2200)).toEqual({ clickCount: 3, timeSpanMs: 200 });
  });

  it('does not count clicks spread over more than 1 s, nor clicks on different elements', () => {
    const d = new RageDetector<string>();
    expect([d.click('a', 0), d.click('a', 600), d.click('a', 1200)]).toEqual([null, null, null]);
    const e = new RageDetector<string>();
    expect([e.click('a', 0), e.click('b', 10), e.click('a', 20)]).toEqual([null, null, null]);
  });

  it('reports exactly when some 3 consecutive same-element clicks fall within 1 s (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 1, maxLength: 12 }), (gaps) => {
        const d = new RageDetector<string>();
        let t = 0;
        const times: number[] = [];
        let reported = 0;
        for (const gap of gaps) {
          t += gap;
          times.push(t);
          if (d.click('x', t)) reported++;
        }
        // bursts: maximal runs whose consecutive gaps are ≤ the window
        let expected = 0;
        let start = 0;
        for (let i = 1; i <= times.length; i++) {
          if (i === times.length || times[i]! - times[i - 1]! > RAGE_WINDOW_MS) {
            const run = times.slice(start, i);
            if (
              run.some(
                (_, k) => k >= RAGE_CLICKS - 1 && run[k]! - run[k - RAGE_CLICKS + 1]! <= RAGE_WINDOW_MS,
              )
            )
              expected++;
            start = i;
          }
        }
        expect(reported).toBe(expected);
      }),
    );
  });
});
