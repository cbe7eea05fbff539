import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import safeRegex from 'safe-regex2';

export const MATCH_TYPES = ['equals', 'contains', 'starts_with', 'ends_with', 'regex', 'glob'] as const;
export type MatchType = (typeof MATCH_TYPES)[number];

export interface UrlRule {
  matchType?: MatchType;
  pattern: string;
}

/** Longest url pattern a trigger may save (any match type). */
export const MAX_URL_PATTERN_LENGTH = 2048;
export const MAX_REGEX_PATTERN_LENGTH = 500;
/**
 * Regex evaluation only looks at the first MAX_REGEX_INPUT_LENGTH characters of its input. RE2 is
 * linear already; the cap bounds the work per evaluation on huge trait values. A `$`-anchored
 * pattern therefore sees the end of the truncated text.
 */
export const MAX_REGEX_INPUT_LENGTH = 10_000;
const MAX_CACHED_PATTERNS = 500;

/** Compiled patterns (least recently used dropped); `{ re: null }` remembers a pattern that does not compile. */
const compiled = new LRUCache<string, { re: RE2JS | null }>({ max: MAX_CACHED_PATTERNS });

function compileCached(key: string, build: () => RE2JS): RE2JS | null {
  const hit = compiled.get(key);
  if (hit) return hit.re;
  let re: RE2JS | null;
  try {
    re = build();
  } catch {
    re = null;
  }
  compiled.set(key, { re });
  return re;
}

/**
 * Unanchored search, like `RegExp.prototype.test`, in linear time (RE2). Returns false when the
 * pattern does not compile. Only the first MAX_REGEX_INPUT_LENGTH characters of `input` are searched.
 */
export function regexTest(pattern: string, input: string): boolean {
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH) return false;
  const re = compileCached(`r:${pattern}`, () => RE2JS.compile(pattern));
  if (re === null) return false;
  try {
    return re.test(input.slice(0, MAX_REGEX_INPUT_LENGTH));
  } catch {
    return false;
  }
}

/** Why a regex pattern may not be saved, or null when it is fine. */
export function regexPatternProblem(pattern: string): string | null {
  if (pattern.length > MAX_REGEX_PATTERN_LENGTH) {
    return `regex pattern must be at most ${MAX_REGEX_PATTERN_LENGTH} characters`;
  }
  try {
    RE2JS.compile(pattern);
  } catch {
    return 'regex pattern is not valid (RE2 syntax: no lookarounds or backreferences)';
  }
  // safe-regex2 also refuses what it cannot parse (e.g. inline flags like `(?i)`).
  let safe: boolean;
  try {
    safe = safeRegex(pattern);
  } catch {
    safe = false;
  }
  return safe ? null : 'regex pattern could backtrack catastrophically';
}

/**
 * Glob to an anchored RE2 pattern: `**` any characters, `*` any characters except `/`,
 * `?` exactly one character; everything else is literal and case-sensitive.
 */
function globToRegex(glob: string): string {
  let out = '';
  let literal = '';
  const flush = () => {
    if (literal) out += RE2JS.quote(literal);
    literal = '';
  };
  for (let i = 0; i < glob.length; i++) {
    const ch = glob[i];
    if (ch === '*' && glob[i + 1] === '*') {
      flush();
      out += '.*';
      while (glob[i + 1] === '*') i++;
    } else if (ch === '*') {
      flush();
      out += '[^/]*';
    } else if (ch === '?') {
      flush();
      out += '.';
    } else {
      literal += ch;
    }
  }
  flush();
  return out;
}

function globTest(glob: string, url: string): boolean {
  const re = compileCached(`g:${glob}`, () => RE2JS.compile(globToRegex(glob), RE2JS.DOTALL));
  if (re === null) return false;
  try {
    return re.testExact(url);
  } catch {
    return false;
  }
}

/** Whether `url` satisfies the trigger rule. Case-sensitive; never throws (bad input → false). */
export function matchUrl(url: string, rule: UrlRule): boolean {
  if (typeof url !== 'string' || typeof rule !== 'object' || rule === null) return false;
  const { pattern } = rule;
  if (typeof pattern !== 'string') return false;
  switch (rule.matchType ?? 'contains') {
    case 'equals':
      return url === pattern;
    case 'contains':
      return url.includes(pattern);
    case 'starts_with':
      return url.startsWith(pattern);
    case 'ends_with':
      return url.endsWith(pattern);
    case 'regex':
      return regexTest(pattern, url);
    case 'glob':
      return globTest(pattern, url);
    default:
      return false;
  }
}

/**
 * Save-time check of a url rule, or null when it is fine: regex patterns must compile in RE2
 * and pass safe-regex2; the other match types take any pattern.
 */
export function patternProblem(matchType: MatchType | undefined, pattern: string): string | null {
  if (typeof pattern !== 'string') return 'pattern is not allowed';
  const type = matchType ?? 'contains';
  if (type === 'regex') return regexPatternProblem(pattern);
  return (MATCH_TYPES as readonly string[]).includes(type) ? null : 'pattern is not allowed';
}

export const isSafePattern = (matchType: MatchType | undefined, pattern: string): boolean =>
  patternProblem(matchType, pattern) === null;
