import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, type ValidationIssue } from '../errors.js';
import type { EdgeStep } from './edge.js';

type Done = (err: Error | null, body?: unknown) => void;
export type JsonBodyParser = (request: FastifyRequest, body: string | Buffer, done: Done) => void;

/**
 * The deepest nesting of arrays and objects a JSON body may have (the body itself is level 1).
 * The deepest legitimate bodies (audience rule trees: 10 levels of groups) need about 25;
 * thousands of levels overflow the stack wherever the value is serialized again.
 */
export const MAX_JSON_DEPTH = 64;

/**
 * The service's JSON body parser: `JSON.parse` (Fastify's parser where it fails, for a leading
 * BOM or the syntax error), plus:
 * - an empty body reads as `{}`: bodiless POSTs that still send `Content-Type:
 *   application/json` (publish, archive, …) are common;
 * - the rules of `findJsonProblem` (prototype keys, depth, NUL, lone surrogates, numbers out of
 *   range): a 400 naming the field, for every route, before any schema or handler sees the value.
 *   They are checked on the parsed value, in the one walk of its containers: a search of the text
 *   for each key costs more (a body of 16 kB: ~5% of an events request's CPU for two searches).
 * `onParsed` sees the body text and its parsed value (the event log keeps the text).
 */
export function jsonBodyParser(
  app: FastifyInstance,
  onParsed?: (request: FastifyRequest, text: string, parsed: unknown) => void,
): JsonBodyParser {
  // Prototype keys are left to findJsonProblem, which names their place, whichever parser ran.
  const parse = app.getDefaultJsonParser('ignore', 'ignore');
  const accept = (
    request: FastifyRequest,
    text: string,
    parsed: unknown,
    checkStrings: boolean,
    done: Done,
  ) => {
    const problem = findJsonProblem(parsed, checkStrings);
    if (problem)
      return done(new AppError('VALIDATION_ERROR', `${problem.path}: ${problem.message}`, [problem]));
    onParsed?.(request, text, parsed);
    done(null, parsed);
  };
  return (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString();
    if (text.trim() === '') return done(null, {});
    const checkStrings = mayHoldBadStrings(text);
    const parsed = parsePlain(text);
    if (parsed !== UNPARSED) return accept(request, text, parsed, checkStrings, done);
    // Fastify's parser gives the answer of record: a leading BOM, or the syntax error.
    parse(request, text, (err, value) =>
      err ? done(err) : accept(request, text, value, checkStrings, done),
    );
  };
}

const UNPARSED = Symbol('unparsed');

function parsePlain(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return UNPARSED;
  }
}

/**
 * NUL and lone surrogates can reach a parsed string only through a `\u` escape (the body was
 * decoded from UTF-8, which encodes neither a lone surrogate nor, in JSON, a raw control
 * character): only a text with such an escape has its strings checked one by one.
 */
const SUSPECT_ESCAPE = /\\u(?:0000|[dD][89a-fA-F])/;
/** A substring search first: most bodies hold no `\\u` at all, and it costs less than the expression. */
export const mayHoldBadStrings = (text: string): boolean => text.includes('\\u') && SUSPECT_ESCAPE.test(text);

/**
 * The first value of a parsed JSON body that breaks a rule every field shares, as a dotted
 * path (`settings.a.b`, `events.0.properties`; `body` for the whole body) and a message:
 * - a `__proto__` key, or a `constructor` key holding a `prototype` (see PROTOTYPE_KEYS);
 * - nesting deeper than MAX_JSON_DEPTH;
 * - a number that overflowed to ±Infinity (`1e999`): it would be stored as `null`;
 * - with `checkStrings`, a NUL character (PostgreSQL stores it in neither text nor jsonb, and one
 *   such value must not fail a statement shared with other requests) or a lone UTF-16 surrogate
 *   (not Unicode: PostgreSQL refuses it in jsonb and replaces it in text), in a value or a key.
 * Containers are walked on every request (a few microseconds for an SDK batch of 50 events);
 * strings only when `checkStrings` (see mayHoldBadStrings).
 */
export function findJsonProblem(value: unknown, checkStrings = true): ValidationIssue | null {
  const found = problemAt(value, 1, checkStrings);
  if (!found) return null;
  // An empty key is written "" so that the path still names a place (`"".x`, never empty).
  const path = found.path.map((key) => (key === '' ? '""' : key)).join('.');
  return { path: path || 'body', message: found.message };
}

interface Found {
  path: (string | number)[];
  message: string;
}

/**
 * `__proto__` keys and `constructor.prototype` (prototype poisoning): JSON.parse makes them plain
 * own properties, but a later merge of the value into another object would not.
 */
const PROTOTYPE_KEYS = 'prototype keys (__proto__, constructor.prototype) are not accepted';

function problemAt(value: unknown, depth: number, checkStrings: boolean): Found | null {
  switch (typeof value) {
    case 'number':
      return Number.isFinite(value) ? null : { path: [], message: 'number out of range' };
    case 'string':
      return checkStrings ? stringProblem(value) : null;
    case 'object': {
      if (value === null) return null;
      if (depth > MAX_JSON_DEPTH) {
        return { path: [], message: `nested more than ${MAX_JSON_DEPTH} levels deep` };
      }
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const found = problemAt(value[i], depth + 1, checkStrings);
          if (found) {
            found.path.unshift(i);
            return found;
          }
        }
        return null;
      }
      for (const key in value) {
        // A bad key is named by its object: the key itself cannot be shown in a path.
        const keyProblem = checkStrings ? stringProblem(key) : null;
        if (keyProblem) return { path: [], message: `has a key that ${keyProblem.message}` };
        const child = (value as Record<string, unknown>)[key];
        if (key === '__proto__') return { path: [key], message: PROTOTYPE_KEYS };
        if (
          key === 'constructor' &&
          child !== null &&
          typeof child === 'object' &&
          Object.hasOwn(child, 'prototype')
        )
          return { path: [key, 'prototype'], message: PROTOTYPE_KEYS };
        const found = problemAt(child, depth + 1, checkStrings);
        if (found) {
          found.path.unshift(key);
          return found;
        }
      }
      return null;
    }
    default:
      return null;
  }
}

/** A high surrogate not followed by a low one, or a low one not preceded by a high one (code units, no `u` flag). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function stringProblem(s: string): Found | null {
  if (s.includes('\u0000')) return { path: [], message: 'contains a NUL character (\\u0000)' };
  if (LONE_SURROGATE.test(s)) return { path: [], message: 'contains a lone UTF-16 surrogate' };
  return null;
}

/** Query strings and paths with a NUL (`%00`) are refused for the same reason (a step of the request edge). */
export const refuseNulInUrls: EdgeStep = (request) => {
  if (!request.url.includes('%00')) return;
  return new AppError('VALIDATION_ERROR', 'NUL characters (%00) are not accepted', [
    { path: 'url', message: 'contains a NUL character' },
  ]);
};
