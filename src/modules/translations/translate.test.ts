import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyTranslations } from './localize.js';
import { canonicalLocaleCase } from './schemas.js';

describe('applyTranslations', () => {
  const record = {
    title: 'Hello',
    count: 3,
    content: { title: 'Welcome', body: 'Body' },
    steps: [
      { content: { title: 'Step one' } },
      { content: { title: 'Step two' }, buttons: ['Next', 'Skip'] },
    ],
    createdAt: new Date('2024-01-01T00:00:00Z'),
  };

  it('replaces top-level fields and dotted paths into objects and arrays', () => {
    const out = applyTranslations(record, {
      title: 'Bonjour',
      'content.title': 'Bienvenue',
      'steps.1.content.title': 'Étape deux',
      'steps.1.buttons.0': 'Suivant',
    });
    expect(out).toEqual({
      ...record,
      title: 'Bonjour',
      content: { title: 'Bienvenue', body: 'Body' },
      steps: [
        { content: { title: 'Step one' } },
        { content: { title: 'Étape deux' }, buttons: ['Suivant', 'Skip'] },
      ],
    });
    expect(out.createdAt).toBe(record.createdAt);
  });

  it('never modifies the input and shares untouched branches', () => {
    const snapshot = structuredClone(record);
    const out = applyTranslations(record, new Map([['steps.0.content.title', 'Un']]));
    expect(record).toEqual(snapshot);
    expect(out.steps[0]!.content.title).toBe('Un');
    expect(out.steps[1]).toBe(record.steps[1]);
    expect(out.content).toBe(record.content);
  });

  it('ignores paths whose parent does not exist, bad indexes and unsafe segments', () => {
    const out = applyTranslations(record, {
      'missing.title': 'x',
      'steps.5.content.title': 'x',
      'steps.first.content': 'x',
      'title.deeper': 'x',
      'createdAt.year': 'x',
      '__proto__.polluted': 'x',
      'content.constructor': 'x',
    });
    expect(out).toEqual(record);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('replaces null leaves but never adds a key the record does not have', () => {
    expect(
      applyTranslations(
        { content: { subtitle: null } },
        { 'content.subtitle': 'Sous-titre', 'content.x': 'y', z: 'z' },
      ),
    ).toEqual({
      content: { subtitle: 'Sous-titre' },
    });
  });

  it('is the identity with no fields (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), (rec) => {
        expect(applyTranslations(rec, {})).toBe(rec);
      }),
    );
  });
});

describe('canonicalLocaleCase', () => {
  it.each([
    ['EN', 'en'],
    ['pt-br', 'pt-BR'],
    ['zh-hant-tw', 'zh-Hant-TW'],
    ['es-419', 'es-419'],
    ['iw', 'iw'],
  ])('%s → %s', (input, expected) => {
    expect(canonicalLocaleCase(input)).toBe(expected);
  });
});
