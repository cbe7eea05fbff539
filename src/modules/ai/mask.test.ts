import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { maskKey } from './mask.js';

describe('maskKey', () => {
  it('shows the vendor prefix and the last four characters', () => {
    expect(maskKey('sk-proj-abcdefghijklmnop1234')).toBe('sk-...1234');
    expect(maskKey('sk-ant-api03-zzzzzzzzzzzzzzzzabcd')).toBe('sk-...abcd');
    expect(maskKey('AIzaSyD-0123456789abcdefghijklmnopq')).toBe('AIz...nopq');
  });

  it('hides short keys almost entirely', () => {
    expect(maskKey('abc')).toBe('...');
    expect(maskKey('12345678')).toBe('...78');
  });

  it('never shows more than 7 characters, nor more than a quarter of a short key', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1, maxLength: 200 }), (key) => {
        const masked = maskKey(key);
        const shown = masked.replace('...', '').length;
        const k = key.trim();
        return masked.includes('...') && shown <= 7 && (k.length >= 16 || shown <= k.length / 4);
      }),
    );
  });
});
