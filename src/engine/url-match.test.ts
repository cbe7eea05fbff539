import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isSafePattern, MATCH_TYPES, type MatchType, matchUrl } from './url-match.js';

const URL = 'https://app.example.com/projects/42/settings?tab=billing';
const m = (matchType: MatchType | undefined, pattern: string, url = URL) =>
  matchUrl(url, matchType === undefined ? { pattern } : { matchType, pattern });

describe('matchUrl', () => {
  it('equals', () => {
    expect(m('equals', URL)).toBe(true);
    expect(m('equals', URL + '&x=1')).toBe(false);
    expect(m('equals', URL.toUpperCase())).toBe(false);
  });

  it('contains, the default', () => {
    expect(m('contains', '/projects/')).toBe(true);
    expect(m(undefined, '/projects/')).toBe(true);
    expect(m(undefined, '/billing/')).toBe(false);
  });

  it('starts_with and ends_with', () => {
    expect(m('starts_with', 'https://app.example.com/')).toBe(true);
    expect(m('starts_with', 'http://')).toBe(false);
    expect(m('ends_with', 'tab=billing')).toBe(true);
    expect(m('ends_with', '/settings')).toBe(false);
  });

  it('regex searches the URL with RE2', () => {
    expect(m('regex', '/projects/\\d+/settings')).toBe(true);
    expect(m('regex', '^https://app\\.example\\.com/projects/[0-9]+')).toBe(true);
    expect(m('regex', '^/projects')).toBe(false);
    expect(m('regex', '(?P<id>\\d+)')).toBe(true);
  });

  it('regex that does not compile is false', () => {
    expect(m('regex', '(')).toBe(false);
    expect(m('regex', '(?=projects)')).toBe(false);
    expect(m('regex', '\\1')).toBe(false);
    expect(m('regex', 'a'.repeat(501))).toBe(false);
  });

  it('regex runs in linear time', () => {
    const start = performance.now();
    m('regex', '(a+)+$', 'a'.repeat(50_000) + '!');
    expect(m('regex', '(a+)+$', 'a'.repeat(9_999) + '!')).toBe(false);
    expect(performance.now() - start).toBeLessThan(1000);
  });

  it('glob: * stays within a path segment, ** crosses segments, ? is one character', () => {
    expect(m('glob', 'https://app.example.com/projects/*/settings?tab=billing')).toBe(true);
    expect(m('glob', 'https://app.example.com/*/settings*')).toBe(false);
    expect(m('glob', 'https://app.example.com/**/settings*')).toBe(true);
    expect(m('glob', 'https://app.example.com/**')).toBe(true);
    expect(m('glob', '**/projects/**')).toBe(true);
    expect(m('glob', 'https://app.example.com/projects/4?/settings?tab=billing')).toBe(true);
    expect(m('glob', 'https://app.example.com/projects/?/settings?tab=billing')).toBe(false);
    expect(m('glob', '*')).toBe(false);
    expect(m('glob', '**')).toBe(true);
  });

  it('glob is anchored and treats other characters literally', () => {
    expect(m('glob', 'app.example.com/**')).toBe(false);
    expect(m('glob', 'https://app.example.com/projects/42')).toBe(false);
    expect(m('glob', 'https://app.example.com/projects/42/settings?tab=billing')).toBe(true);
    expect(m('glob', 'https://app.example.com/projects/42/settings.tab=billing')).toBe(false);
    expect(m('glob', 'a.b', 'axb')).toBe(false);
    expect(m('glob', '(a)+[b]\\E$', '(a)+[b]\\E$')).toBe(true);
    expect(m('glob', '(a)+[b]\\E$', 'aab')).toBe(false);
  });

  it('unknown match types and bad input are false', () => {
    expect(matchUrl(URL, { matchType: 'fuzzy' as MatchType, pattern: 'x' })).toBe(false);
    expect(matchUrl(undefined as unknown as string, { pattern: 'x' })).toBe(false);
    expect(matchUrl(URL, null as unknown as { pattern: string })).toBe(false);
    expect(matchUrl(URL, { pattern: 5 as unknown as string })).toBe(false);
  });

  it('never throws', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme' }),
        fc.constantFrom(...MATCH_TYPES, undefined),
        fc.oneof(fc.string(), fc.stringMatching(/^[()*?[\]\\.+|{}^$a/-]{0,12}$/)),
        (url, matchType, pattern) => {
          expect(typeof matchUrl(url, { matchType, pattern })).toBe('boolean');
          expect(typeof isSafePattern(matchType, pattern)).toBe('boolean');
        },
      ),
    );
  });

  it('never throws on arbitrary values', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), (url, rule) => {
        expect(typeof matchUrl(url as string, rule as { pattern: string })).toBe('boolean');
      }),
    );
  });

  it('literal match types agree with String methods', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), (url, pattern) => {
        expect(m('contains', pattern, url)).toBe(url.includes(pattern));
        expect(m('starts_with', pattern, url)).toBe(url.startsWith(pattern));
        expect(m('ends_with', pattern, url)).toBe(url.endsWith(pattern));
        expect(m('equals', pattern, url)).toBe(url === pattern);
      }),
    );
  });

  it('a glob without wildcards matches only the exact URL', () => {
    fc.assert(
      fc.property(
        fc.string().filter((s) => !/[*?]/.test(s)),
        fc.string(),
        (pattern, other) => {
          expect(m('glob', pattern, pattern)).toBe(true);
          expect(m('glob', pattern, other)).toBe(other === pattern);
        },
      ),
    );
  });
});

describe('isSafePattern', () => {
  it('accepts literal types and globs', () => {
    for (const type of ['equals', 'contains', 'starts_with', 'ends_with', 'glob'] as const) {
      expect(isSafePattern(type, '(a+)+$')).toBe(true);
    }
    expect(isSafePattern(undefined, '/x')).toBe(true);
  });

  it('checks regexes with safe-regex2 and RE2', () => {
    expect(isSafePattern('regex', '^/projects/\\d+$')).toBe(true);
    expect(isSafePattern('regex', '(a+)+$')).toBe(false);
    expect(isSafePattern('regex', '(?=a)')).toBe(false);
    expect(isSafePattern('regex', '(')).toBe(false);
    expect(isSafePattern('regex', 'a'.repeat(501))).toBe(false);
  });
});
