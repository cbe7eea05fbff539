import { describe, expect, it } from 'vitest';
import { isUuid, newId } from './ids.js';

describe('newId', () => {
  it('makes version 7 uuids (RFC 9562 variant) that sort in creation order and never repeat', () => {
    const ids = Array.from({ length: 20_000 }, newId);
    for (const id of ids.slice(0, 100)) {
      expect(isUuid(id)).toBe(true);
      expect(id[14]).toBe('7');
      expect('89ab').toContain(id[19]);
    }
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(ids);
  });

  it('draws fresh random bits across pool refills (no repeated tail after 1,024 draws)', () => {
    const tails = new Set(Array.from({ length: 5_000 }, () => newId().slice(24)));
    expect(tails.size).toBe(5_000);
  });
});
