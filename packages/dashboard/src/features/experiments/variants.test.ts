import { describe, expect, it } from 'vitest';
import {
  addVariant,
  removeVariant,
  setVariant,
  splitTotal,
  type Variant,
  validateSplits,
  variantsOf,
} from './variants';

const v = (name: string, splitPercentage: number): Variant => ({ name, splitPercentage, flowId: null });

describe('experiment splits', () => {
  it('are valid when they total 100%, and say their total either way', () => {
    expect(validateSplits([v('Control', 50), v('B', 50)])).toEqual({
      total: 100,
      valid: true,
      message: 'Splits total 100% (they must total 100%).',
    });
    expect(validateSplits([v('Control', 50), v('B', 30)])).toMatchObject({ total: 80, valid: false });
    expect(validateSplits([v('Control', 70), v('B', 40)])).toMatchObject({ total: 110, valid: false });
    expect(validateSplits([v('Control', 34), v('B', 33), v('C', 33)]).valid).toBe(true);
  });

  it('count a split that is not a number as 0', () => {
    expect(splitTotal([v('Control', Number('')), v('B', Number.NaN), v('C', 40)])).toBe(40);
  });

  it('start a new experiment as Control and Variant B at 50/50, or from the saved variants', () => {
    expect(variantsOf(undefined)).toEqual([v('Control', 50), v('Variant B', 50)]);
    const saved = { variants: [{ id: 'v1', name: 'A', splitPercentage: 100, flowId: 'f1', extra: true }] };
    expect(variantsOf(saved as never)).toEqual([{ id: 'v1', name: 'A', splitPercentage: 100, flowId: 'f1' }]);
  });

  it('add a variant at 0% named by the next letter, and never go below two variants', () => {
    const three = addVariant([v('Control', 50), v('Variant B', 50)]);
    expect(three[2]).toEqual(v('Variant C', 0));
    expect(validateSplits(three).valid).toBe(true);
    expect(removeVariant(three, 1).map((x) => x.name)).toEqual(['Control', 'Variant C']);
    expect(removeVariant(removeVariant(three, 1), 0)).toHaveLength(2);
    expect(setVariant(three, 2, { splitPercentage: 10 })[2]!.splitPercentage).toBe(10);
  });
});
