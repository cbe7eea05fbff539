import { describe, expect, it } from 'vitest';
import { DEFAULT_LABELS, fill, isRtlLocale, resolveLabels } from './labels.js';

describe('labels', () => {
  it('are English by default, then the page’s overrides, then the tenant’s for the locale (base language fallback)', () => {
    expect(resolveLabels('en', undefined, undefined)).toEqual(DEFAULT_LABELS);
    const labels = resolveLabels(
      'fr-CA',
      { next: 'Continue', close: 'Dismiss' },
      { fr: { next: 'Suivant', back: 'Retour', bogus: 'x', done: 42 }, de: { next: 'Weiter' } },
    );
    expect(labels).toMatchObject({ next: 'Suivant', back: 'Retour', close: 'Dismiss', done: 'Done' });
    expect(labels).not.toHaveProperty('bogus');
    expect(resolveLabels('DE', undefined, { de: { next: 'Weiter' } }).next).toBe('Weiter');
  });

  it('fill replaces known placeholders only', () => {
    expect(fill('{current} of {total}', { current: 2, total: 5 })).toBe('2 of 5');
    expect(fill('{current} {unknown}', { current: 1 })).toBe('1 {unknown}');
  });

  it('lays out RTL by the tenant’s locale list first, then by the language', () => {
    const locales = [
      { code: 'ar', isRtl: true },
      { code: 'he', isRtl: false },
    ];
    expect(isRtlLocale('ar-EG', locales)).toBe(true);
    expect(isRtlLocale('he', locales)).toBe(false);
    expect(isRtlLocale('fa_IR', [])).toBe(true);
    expect(isRtlLocale('en-US', [])).toBe(false);
  });
});
