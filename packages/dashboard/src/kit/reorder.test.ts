import { describe, expect, it } from 'vitest';
import { moveItem } from './reorder';

describe('moveItem', () => {
  it('takes the entry out and puts it back at the new position', () => {
    expect(moveItem(['a', 'b', 'c', 'd'], 0, 2)).toEqual(['b', 'c', 'a', 'd']);
    expect(moveItem(['a', 'b', 'c', 'd'], 3, 1)).toEqual(['a', 'd', 'b', 'c']);
    expect(moveItem(['a', 'b'], 1, 0)).toEqual(['b', 'a']);
  });

  it('leaves the list it was given as it was', () => {
    const list = ['a', 'b', 'c'];
    moveItem(list, 0, 1);
    expect(list).toEqual(['a', 'b', 'c']);
  });

  it('answers undefined for a move onto itself or out of the list (nothing to save)', () => {
    expect(moveItem(['a', 'b'], 1, 1)).toBeUndefined();
    expect(moveItem(['a', 'b'], 0, -1)).toBeUndefined();
    expect(moveItem(['a', 'b'], 1, 2)).toBeUndefined();
    expect(moveItem(['a', 'b'], 2, 0)).toBeUndefined();
    expect(moveItem([], 0, 0)).toBeUndefined();
  });
});
