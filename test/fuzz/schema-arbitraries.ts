import fc from 'fast-check';

/**
 * fast-check arbitraries from the JSON Schemas of an OpenAPI 3.1 document (the subset zod's
 * JSON Schema output uses), mostly valid so requests reach the handlers, plus hostile values
 * mixed in anywhere: deep nesting, lone surrogates, NUL, huge and overflowing numbers,
 * prototype keys, very long strings, wrong types.
 *
 * (No maintained library does this: json-schema-fast-check is built on fast-check 1 and faker 4,
 * zod-fast-check on zod 3; and the fuzzer is meant to read the served document, not the code.)
 */

export type JsonSchema = { [key: string]: unknown };

/** JSON text placed verbatim in a body (what JSON.stringify cannot write: 10,000 levels, `1e999`). */
export class RawJson {
  constructor(readonly text: string) {}
}

/** JSON text of a generated value: like JSON.stringify (own `__proto__` keys included), with RawJson verbatim. */
export function toJsonText(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  if (value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const parts: string[] = [];
    for (const key of Object.keys(value)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) parts.push(`${JSON.stringify(key)}:${toJsonText(v)}`);
    }
    return `{${parts.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** An object with `key` as an own property, even `__proto__` (a plain assignment would set the prototype). */
function withKey(target: Record<string, unknown>, key: string, value: unknown): Record<string, unknown> {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  return target;
}

const nested = (levels: number, open = '{"a":', close = '}') =>
  new RawJson(`${open.repeat(levels)}1${close.repeat(levels)}`);

/** Strings an attacker or a careless client sends. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '\ud800',
    'x\udfffy',
    '\udbff',
    'nul\u0000byte',
    '\u0000',
    '',
    ' ',
    '\uFEFF',
    '\r\n\t',
    "'; drop table users; --",
    '<script>alert(1)</script>',
    '../../../../etc/passwd',
    '%00',
    '%ff',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a log4shell probe, meant literally
    '${jndi:ldap://x}',
    '{{7*7}}',
    '__proto__',
    'constructor',
    '😀👩‍👩‍👧‍👦',
    'ٱلْعَرَبِيَّة',
    '\u202Eevil',
    '0000-01-01',
    '9999-12-31T23:59:59-14:00',
    '10000-01-01',
    '2024-02-30',
    'NaN',
    '-0',
    '1e999',
  ),
  fc.integer({ min: 256, max: 70_000 }).map((n) => 'x'.repeat(n)),
  fc.string({ unit: 'binary', maxLength: 40 }),
);

/** Values of any type that should never produce a 5xx wherever they land. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    0.5,
    -0,
    2 ** 31,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    Number.MAX_VALUE,
    -Number.MAX_VALUE,
    5e-324,
    [],
    {},
    [[[]]],
    new RawJson('1e999'),
    new RawJson('-1e999'),
    new RawJson(`1${'0'.repeat(400)}`),
    new RawJson('1e-400'),
  ),
  fc.constantFrom(10, 64, 65, 1_000, 10_000).map((n) => nested(n)),
  fc.constantFrom(65, 10_000).map((n) => nested(n, '[', ']')),
  fc.constant(null).map(() => withKey({}, '__proto__', { polluted: true })),
  fc.constant(null).map(() => ({ constructor: { prototype: { polluted: true } } })),
  fc.constant(null).map(() => withKey({}, '\ud800key', 1)),
  fc.array(fc.constant(1), { minLength: 1_000, maxLength: 3_000 }),
);

/** Whole request bodies that are not what any route expects. */
export const hostileBodyText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    '{',
    '{"a":',
    '}',
    'null',
    '[]',
    '"text"',
    '1e999',
    'true',
    '{}garbage',
    '\uFEFF{}',
    '{"name":"a","name":"b"}',
    '{"__proto__":{"polluted":true}}',
    '{"constructor":{"prototype":{"polluted":true}}}',
    '{"a":"\\ud800"}',
    '{"a":"\\u0000"}',
    "{'single':'quotes'}",
    '{"a":NaN}',
    '{"a":Infinity}',
  ),
  fc.constantFrom(65, 10_000, 100_000).map((n) => nested(n).text),
  fc.constant(null).map(() => `{"big":"${'x'.repeat(1024 * 1024 + 16)}"}`),
  fc.string({ unit: 'binary', maxLength: 200 }),
);

export interface SchemaContext {
  /** The OpenAPI document, for `$ref`s. */
  document: JsonSchema;
  depth: number;
}

const MAX_DEPTH = 6;

function resolveRef(ref: string, document: JsonSchema): JsonSchema | null {
  if (!ref.startsWith('#/')) return null;
  let node: unknown = document;
  for (const part of ref.slice(2).split('/')) {
    if (node === null || typeof node !== 'object') return null;
    node = (node as Record<string, unknown>)[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node && typeof node === 'object' ? (node as JsonSchema) : null;
}

const anyJson = fc.jsonValue({ maxDepth: 3 });

/** A mostly valid value for `schema`. */
export function arbitraryFor(
  schema: JsonSchema | boolean | undefined,
  ctx: SchemaContext,
): fc.Arbitrary<unknown> {
  if (
    schema === undefined ||
    schema === true ||
    (typeof schema === 'object' && Object.keys(schema).length === 0)
  ) {
    return anyJson;
  }
  if (schema === false) return fc.constant(undefined);
  if (ctx.depth > MAX_DEPTH) return fc.constant(null);
  const inner = { ...ctx, depth: ctx.depth + 1 };
  if (typeof schema.$ref === 'string') {
    const target = resolveRef(schema.$ref, ctx.document);
    // An unresolved reference (a document still being completed): any JSON.
    return target ? arbitraryFor(target, inner) : anyJson;
  }
  if ('const' in schema) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  const union = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(union) && union.length) return fc.oneof(...union.map((s) => arbitraryFor(s, inner)));
  if (Array.isArray(schema.allOf) && schema.allOf.length)
    return arbitraryFor(schema.allOf[0] as JsonSchema, inner);
  if ('not' in schema && schema.type === undefined) return fc.constant(undefined);
  const type = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string | undefined];
  return fc.oneof(...type.map((t) => arbitraryOfType(t, schema, inner)));
}

function arbitraryOfType(
  type: string | undefined,
  schema: JsonSchema,
  ctx: SchemaContext,
): fc.Arbitrary<unknown> {
  switch (type) {
    case 'string':
      return stringFor(schema);
    case 'integer':
    case 'number':
      return numberFor(schema, type === 'integer');
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return arrayFor(schema, ctx);
    case 'object':
      return objectFor(schema, ctx);
    default:
      return anyJson;
  }
}

/** Formats generated directly (realistic values); others, such as email, from their pattern. */
const FORMATS: Record<string, () => fc.Arbitrary<string>> = {
  uuid: () => fc.uuid(),
  'date-time': () =>
    fc
      .date({
        min: new Date('1970-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString()),
  date: () =>
    fc
      .date({
        min: new Date('1970-01-01T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().slice(0, 10)),
};

function stringFor(schema: JsonSchema): fc.Arbitrary<string> {
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : 10_000;
  const choices: fc.Arbitrary<string>[] = [];
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  if (format) choices.push(format());
  else if (typeof schema.pattern === 'string') {
    try {
      choices.push(
        fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= max),
      );
    } catch {
      // a pattern fast-check cannot generate from: plain strings below
    }
  }
  if (!choices.length)
    choices.push(fc.string({ unit: 'grapheme', minLength: min, maxLength: Math.min(max, 40) }));
  // lengths at and just past the bounds
  const edges = [min, max, max + 1, Math.max(0, min - 1)].filter((n) => n <= 70_000);
  return fc.oneof(
    { weight: 15, arbitrary: fc.oneof(...choices) },
    { weight: 1, arbitrary: fc.constantFrom(...edges).map((n) => 'a'.repeat(n)) },
  );
}

function numberFor(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const lo = typeof schema.minimum === 'number' ? schema.minimum : -Number.MAX_SAFE_INTEGER;
  const hi = typeof schema.maximum === 'number' ? schema.maximum : Number.MAX_SAFE_INTEGER;
  const edges = [lo, hi, lo - 1, hi + 1, 0, 2 ** 31 - 1, 2 ** 31].filter(Number.isFinite);
  const inRange = integer
    ? fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) })
    : fc.double({ min: Math.max(lo, -1e9), max: Math.min(hi, 1e9), noNaN: true, noDefaultInfinity: true });
  return fc.oneof({ weight: 12, arbitrary: inRange }, { weight: 1, arbitrary: fc.constantFrom(...edges) });
}

function arrayFor(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<unknown[]> {
  const min = typeof schema.minItems === 'number' ? schema.minItems : 0;
  const max = typeof schema.maxItems === 'number' ? schema.maxItems : 20;
  const items = arbitraryFor(schema.items as JsonSchema | undefined, ctx);
  return fc.array(items, { minLength: min, maxLength: Math.max(min, Math.min(max, min + 4)) });
}

function objectFor(schema: JsonSchema, ctx: SchemaContext): fc.Arbitrary<Record<string, unknown>> {
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((schema.required ?? []) as string[]);
  const keys = Object.keys(properties);
  if (!keys.length) {
    // a free-form object (settings, traits, properties)
    return fc.dictionary(fc.string({ maxLength: 12 }), anyJson, { maxKeys: 5 });
  }
  const fields = Object.fromEntries(keys.map((k) => [k, arbitraryFor(properties[k], ctx)]));
  const record = fc.record(fields, { requiredKeys: keys.filter((k) => required.has(k)) });
  // now and then a field the schema does not know (stripped, or refused where the spec says so)
  return fc
    .tuple(
      record,
      fc.oneof(
        { weight: 5, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 12 }), anyJson) },
      ),
    )
    .map(([value, extra]) => {
      const out = { ...(value as Record<string, unknown>) };
      if (extra && !(extra[0] in out)) out[extra[0]] = extra[1];
      return out;
    });
}

/**
 * A value from `base`, and sometimes the same value with one node — anywhere inside it —
 * replaced by a hostile value, or a hostile key added.
 */
export function withHostile(base: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  return fc
    .tuple(base, fc.nat(), hostileValue, hostileString, fc.integer({ min: 0, max: 14 }))
    .map(([generated, pick, hostile, key, mode]) => {
      if (mode < 10) return generated;
      // a copy: fast-check may hand the same generated value out again while shrinking
      const value = clone(generated);
      const nodes = containersOf(value);
      if (!nodes.length) return hostile;
      const target = nodes[pick % nodes.length]!;
      if (Array.isArray(target)) {
        if (target.length) target[pick % target.length] = hostile;
        else target.push(hostile);
        return value;
      }
      const keys = Object.keys(target);
      if (mode < 13 && keys.length) target[keys[pick % keys.length]!] = hostile;
      else withKey(target, mode === 13 ? '__proto__' : key, hostile);
      return value;
    });
}

function clone(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof RawJson) return value;
  if (Array.isArray(value)) return value.map(clone);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) withKey(out, key, clone((value as Record<string, unknown>)[key]));
  return out;
}

/** Every object and array inside `value` (itself included). */
function containersOf(value: unknown): (Record<string, unknown> | unknown[])[] {
  const out: (Record<string, unknown> | unknown[])[] = [];
  const walk = (v: unknown, depth: number) => {
    if (depth > MAX_DEPTH || v === null || typeof v !== 'object' || v instanceof RawJson) return;
    out.push(v as Record<string, unknown> | unknown[]);
    for (const child of Object.values(v)) walk(child, depth + 1);
  };
  walk(value, 0);
  return out;
}
