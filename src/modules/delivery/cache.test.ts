import { describe, expect, it } from 'vitest';
import { frequencyOf, oncePerItem } from './cache.js';
import type { DeliveryItem } from './contract.js';
import { servableOf } from './items.js';

const item = (id: string, kind: 'flow' | 'content', onDemand: boolean): DeliveryItem => ({
  kind,
  servable: servableOf({ id, audienceId: null, onDemand }),
  at: 0,
  record: { id, onDemand },
  translationTypes: [],
});

describe('delivery snapshot items', () => {
  it('keeps one item per record, the one served on its own over an on-demand copy, whatever the order', () => {
    const items = [
      item('a', 'flow', true),
      item('a', 'flow', false),
      item('a', 'content', true),
      item('b', 'flow', false),
    ];
    const kept = oncePerItem(items);
    expect(kept.map((i) => [i.kind, i.servable.id, i.servable.onDemand])).toEqual([
      ['flow', 'a', false],
      ['content', 'a', true],
      ['flow', 'b', false],
    ]);
    expect(oncePerItem([items[1]!, items[0]!]).map((i) => i.servable.onDemand)).toEqual([false]);
    const distinct = [items[1]!, items[3]!];
    expect(oncePerItem(distinct)).toBe(distinct);
  });

  it('reads the frequency settings with zod, anything but a boolean as the default', () => {
    expect(frequencyOf({ frequency: { repeatCompleted: true, repeatDismissed: 1 } })).toEqual({
      repeatCompleted: true,
      repeatDismissed: false,
    });
    expect(frequencyOf(undefined)).toEqual({ repeatCompleted: false, repeatDismissed: false });
  });
});
