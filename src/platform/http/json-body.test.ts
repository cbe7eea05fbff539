import fc from 'fast-check';
import Fastify, { type FastifyInstance } from 'fastify';
import { describe, expect, it } from 'vitest';
import type { AppError, ValidationIssue } from '../errors.js';
import { findJsonProblem, jsonBodyParser, MAX_JSON_DEPTH, mayHoldBadStrings } from './json-body.js';

/** `{"a":{"a":…1…}}` nested `levels` deep (the outer object is level 1), as JSON text. */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

describe('findJsonProblem', () => {
  it('accepts nesting up to MAX_JSON_DEPTH levels and names the first container beyond it', () => {
    expect(findJsonProblem(JSON.parse(nestedText(MAX_JSON_DEPTH)))).toBeNull();
    const problem = findJsonProblem(JSON.parse(nestedText(MAX_JSON_DEPTH + 1)));
    expect(problem).toEqual({
      path: Array(MAX_JSON_DEPTH).fill('a').join('.'),
      message: `nested more than ${MAX_JSON_DEPTH} levels deep`,
    });
    // arrays count as levels too, and the walk stops at the limit however deep the value goes
    const arrays = JSON.parse(`{"settings":${'['.repeat(100_000)}${']'.repeat(100_000)}}`);
    expect(findJsonProblem(arrays)?.path).toBe(`settings${'.0'.repeat(MAX_JSON_DEPTH - 1)}`);
  });

  it('names NUL characters and lone surrogates in values and keys', () => {
    const parse = (text: string) => findJsonProblem(JSON.parse(text), mayHoldBadStrings(text));
    expect(parse('{"a":{"b":["ok","x\\u0000"]}}')).toEqual({
      path: 'a.b.1',
      message: expect.stringContaining('NUL'),
    });
    for (const s of ['\\ud800', 'x\\udbff', '\\udc00x', '\\udfff\\ud800', 'a\\uDC00\\uD800b']) {
      expect(parse(`{"t":{"name":"${s}"}}`), s).toEqual({
        path: 't.name',
        message: 'contains a lone UTF-16 surrogate',
      });
    }
    expect(parse('{"t":{"\\ud800":1}}')).toEqual({ path: 't', message: expect.stringMatching(/^has a key/) });
    expect(parse('"\\ud800"')).toEqual({ path: 'body', message: 'contains a lone UTF-16 surrogate' });
    // under an empty key, the path still names the place
    expect(parse('{"":{"\\ud800key":1}}')).toEqual({
      path: '""',
      message: expect.stringMatching(/^has a key/),
    });
    // pairs are fine, also written as escapes; an escaped backslash is not an escape
    expect(parse('{"a":"\\ud83d\\ude00 😀","b":"\\\\ud800","c":"\\\\u0000"}')).toBeNull();
  });

  it('names numbers that overflowed to Infinity', () => {
    expect(findJsonProblem(JSON.parse('{"v":[1,-1e999]}'))).toEqual({
      path: 'v.1',
      message: 'number out of range',
    });
    expect(findJsonProblem(JSON.parse(`{"v":${'9'.repeat(400)}}`))?.path).toBe('v');
    expect(findJsonProblem(JSON.parse('{"v":1.7976931348623157e308,"w":-0,"x":5e-324}'))).toBeNull();
  });

  it('finds a problem exactly when the value holds one (property)', () => {
    const bad = fc.constantFrom('\u0000', '\ud800', '\udc00', 'a\udbffb');
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.option(bad, { nil: undefined }), (value, poison) => {
        const text = JSON.stringify(value);
        const clean = !/\\u0000|\\ud[89a-f]/i.test(text);
        if (poison === undefined) {
          expect(findJsonProblem(value) === null).toBe(clean);
          return;
        }
        const poisoned = { wrap: [value, { deep: poison }] };
        expect(findJsonProblem(poisoned)).not.toBeNull();
        // the text precheck never misses what the walk would find
        expect(mayHoldBadStrings(JSON.stringify(poisoned))).toBe(true);
      }),
    );
  });
});

describe('jsonBodyParser', () => {
  async function parserApp() {
    const app = Fastify();
    app.removeContentTypeParser('application/json');
    app.addContentTypeParser('application/json', { parseAs: 'string' }, jsonBodyParser(app));
    app.setErrorHandler((err, _request, reply) => {
      const issues = (err as AppError).details as ValidationIssue[] | undefined;
      reply.code(400).send({ path: issues?.[0]?.path ?? null });
    });
    app.post('/', async (request) => ({ body: request.body }));
    await app.ready();
    return app;
  }
  const post = (app: FastifyInstance, payload: string) =>
    app.inject({ method: 'POST', url: '/', headers: { 'content-type': 'application/json' }, payload });

  it('parses plain bodies, escaped ones and a leading BOM alike', async () => {
    const app = await parserApp();
    for (const [text, value] of [
      ['{"a":[1,"x",{"b":null}]}', { a: [1, 'x', { b: null }] }],
      ['{"name":"constructor_clicked"}', { name: 'constructor_clicked' }],
      ['{"constructor":{"name":"x"}}', Object.fromEntries([['constructor', { name: 'x' }]])],
      ['{"s":"caf\\u00e9 \\ud83d\\ude00"}', { s: 'café 😀' }],
      ['\ufeff{"a":1}', { a: 1 }],
      ['', {}],
    ] as const) {
      const res = await post(app, text);
      expect(res.statusCode, text).toBe(200);
      expect(res.json().body, text).toEqual(value);
    }
    await app.close();
  });

  it('refuses prototype keys, spelled out or escaped, and bad strings, naming where', async () => {
    const app = await parserApp();
    for (const [text, path] of [
      ['{"a":{"__proto__":{"x":1}}}', 'a.__proto__'],
      ['{"a":{"\\u005f_proto__":{"x":1}}}', 'a.__proto__'],
      ['{"a":{"constructor":{"prototype":{}}}}', 'a.constructor.prototype'],
      ['{"events":[{"properties":{"__proto__":null}}]}', 'events.0.properties.__proto__'],
      ['{"__proto__":1,"a":"nul\\u0000"}', '__proto__'],
      ['\ufeff{"a":{"__proto__":1}}', 'a.__proto__'],
      ['{"a":["ok","nul\\u0000"]}', 'a.1'],
      ['{"a":"lone \\ud800"}', 'a'],
      ['{"a":1e999}', 'a'],
      ['{"a":', null],
    ] as const) {
      const res = await post(app, text);
      expect(res.statusCode, text).toBe(400);
      expect(res.json().path, text).toBe(path);
    }
    await app.close();
  });
});
