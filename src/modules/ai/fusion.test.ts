import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RRF_K, reciprocalRankFusion } from './fusion.js';

const rankedList = fc.uniqueArray(fc.constantFrom<string>('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'x'), {
  maxLength: 9,
});

describe('reciprocalRankFusion', () => {
  it('scores 1 / (60 + rank) per list, summed', () => {
    const fused = reciprocalRankFusion([
      ['a', 'b', 'c'],
      ['b', 'a'],
    ]);
    expect(RRF_K).toBe(60);
    expect(fused.map((f) => f.id)).toEqual(['a', 'b', 'c']);
    expect(fused[0]!.score).toBeCloseTo(1 / 61 + 1 / 62, 12);
    expect(fused[2]!.score).toBeCloseTo(1 / 63, 12);
  });

  it('answers the union of the lists, each id once, best score first', () => {
    fc.assert(
      fc.property(fc.array(rankedList, { maxLength: 4 }), (lists) => {
        const fused = reciprocalRankFusion(lists);
        const ids = fused.map((f) => f.id);
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(lists.flat()));
        for (let i = 1; i < fused.length; i++)
          expect(fused[i - 1]!.score).toBeGreaterThanOrEqual(fused[i]!.score);
      }),
    );
  });

  it('puts an item first in every list first', () => {
    fc.assert(
      fc.property(fc.array(rankedList, { minLength: 1, maxLength: 4 }), (lists) => {
        const withTop = lists.map((l) => ['top', ...l]);
        expect(reciprocalRankFusion(withTop)[0]!.id).toBe('top');
      }),
    );
  });

  it('does not depend on the order of the lists', () => {
    fc.assert(
      fc.property(fc.array(rankedList, { maxLength: 4 }), (lists) => {
        expect(reciprocalRankFusion([...lists].reverse())).toEqual(reciprocalRankFusion(lists));
      }),
    );
  });

  it('never lowers an item for appearing in one more list', () => {
    fc.assert(
      fc.property(rankedList, rankedList, (a, b) => {
        const before = reciprocalRankFusion([a]).find((f) => f.id === 'x')?.score ?? 0;
        const after = reciprocalRankFusion([a, ['x', ...b.filter((id) => id !== 'x')]]).find(
          (f) => f.id === 'x',
        )!;
        expect(after.score).toBeGreaterThan(before);
      }),
    );
  });
});
