import { isPlainObject } from './json.js';
import { regexTest } from './url-match.js';

export const OPERATORS = [
  'eq',
  'neq',
  'gt',
  'lt',
  'gte',
  'lte',
  'contains',
  'not_contains',
  'in',
  'not_in',
  'exists',
  'not_exists',
  'regex',
  'starts_with',
  'ends_with',
] as const;
export type Operator = (typeof OPERATORS)[number];

export const LOGICAL_OPERATORS = ['AND', 'OR', 'NOT'] as const;
export type LogicalOperator = (typeof LOGICAL_OPERATORS)[number];

export interface RuleLeaf {
  field: string;
  operator: Operator;
  value?: unknown;
}

/** `logicalOperator` defaults to AND. */
export interface RuleGroup {
  logicalOperator?: LogicalOperator;
  rules: RuleNode[];
}

export type RuleNode = RuleLeaf | RuleGroup;

export interface RuleContext {
  userId?: string;
  role?: string;
  traits?: Record<string, unknown>;
  device?: { type?: string; browser?: string };
}

export interface RuleEvaluation {
  matches: boolean;
  matchedRules: number;
  totalRules: number;
}

/** Operators that pass when the field is missing (undefined or null); all others fail. */
const PASS_ON_MISSING: ReadonlySet<string> = new Set(['not_exists', 'neq', 'not_in', 'not_contains']);
/** Path segments that could reach a prototype: never walked, written or accepted in a field path. */
export const FORBIDDEN_SEGMENTS: ReadonlySet<string> = new Set(['__proto__', 'prototype', 'constructor']);
/** Containers nested deeper than this are compared as unequal rather than risking the stack. */
const MAX_EQUALITY_DEPTH = 32;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null;

function isRuleGroup(node: unknown): node is RuleGroup {
  return isObject(node) && Array.isArray(node.rules);
}

/** Own properties only: a path never walks into prototypes or `__proto__`/`constructor`. */
function resolveField(context: unknown, field: string): unknown {
  let current: unknown = context;
  for (const segment of field.split('.')) {
    if (FORBIDDEN_SEGMENTS.has(segment) || !isObject(current)) return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = current[segment];
  }
  return current;
}

// Non-ambiguous on purpose so that it cannot backtrack polynomially; length-capped anyway.
const NUMERIC_STRING = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_DATE_PREFIX = /^\d{4}-\d{2}-\d{2}/;

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return Number.isNaN(v) ? undefined : v;
  if (typeof v === 'string' && v.length <= 64 && NUMERIC_STRING.test(v)) return Number(v);
  return undefined;
}

function toDateMs(v: unknown): number | undefined {
  if (typeof v !== 'string' || v.length > 64 || !ISO_DATE_PREFIX.test(v)) return undefined;
  const ms = Date.parse(v);
  return Number.isFinite(ms) ? ms : undefined;
}

function toBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v !== 'string') return undefined;
  const s = v.trim().toLowerCase();
  return s === 'true' ? true : s === 'false' ? false : undefined;
}

/** Text for string operators: strings as is, numbers (and booleans when allowed) coerced. */
function toText(v: unknown, coerceBoolean: boolean): string | undefined {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || (coerceBoolean && typeof v === 'boolean')) return String(v);
  return undefined;
}

function primitiveEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a === 'boolean' || typeof b === 'boolean') {
    const x = toBoolean(a);
    return x !== undefined && x === toBoolean(b);
  }
  if (typeof a === 'number' || typeof b === 'number') {
    const x = toNumber(a);
    return x !== undefined && x === toNumber(b);
  }
  return false;
}

/** eq semantics: primitives with number/boolean string coercion; arrays and plain objects deeply. */
function looseEqual(a: unknown, b: unknown, depth = 0): boolean {
  if (depth > MAX_EQUALITY_DEPTH) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => looseEqual(x, b[i], depth + 1));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    if (keys.length !== Object.keys(b).length) return false;
    return keys.every((k) => Object.hasOwn(b, k) && looseEqual(a[k], b[k], depth + 1));
  }
  if (isObject(a) || isObject(b)) return a === b;
  return primitiveEqual(a, b);
}

function compare(a: unknown, b: unknown): number | undefined {
  const x = toNumber(a);
  const y = toNumber(b);
  if (x !== undefined && y !== undefined) return x - y;
  const dx = toDateMs(a);
  const dy = toDateMs(b);
  if (dx !== undefined && dy !== undefined) return dx - dy;
  return undefined;
}

/**
 * `in`: a scalar field must equal (as `eq`) one element of the value list; an array field matches
 * when any of its elements is in the list (non-empty intersection). `not_in` is the negation.
 */
function isIn(actual: unknown, expected: unknown): boolean {
  const list = Array.isArray(expected) ? expected : [expected];
  const candidates = Array.isArray(actual) ? actual : [actual];
  return candidates.some((c) => list.some((e) => looseEqual(c, e)));
}

function contains(actual: unknown, expected: unknown): boolean {
  if (Array.isArray(actual)) return actual.some((el) => looseEqual(el, expected));
  if (typeof actual !== 'string') return false;
  const needle = toText(expected, true);
  return needle !== undefined && actual.includes(needle);
}

function textTest(actual: unknown, expected: unknown, test: (s: string, t: string) => boolean): boolean {
  const s = toText(actual, false);
  const t = toText(expected, false);
  return s !== undefined && t !== undefined && test(s, t);
}

function isMissing(v: unknown): boolean {
  return v === undefined || v === null;
}

/** Applies one operator to a present field value. */
function applyOperator(operator: string, actual: unknown, expected: unknown): boolean {
  switch (operator) {
    case 'eq':
      return looseEqual(actual, expected);
    case 'neq':
      return !looseEqual(actual, expected);
    case 'gt':
    case 'lt':
    case 'gte':
    case 'lte': {
      const c = compare(actual, expected);
      if (c === undefined) return false;
      if (operator === 'gt') return c > 0;
      if (operator === 'lt') return c < 0;
      return operator === 'gte' ? c >= 0 : c <= 0;
    }
    case 'contains':
      return contains(actual, expected);
    case 'not_contains':
      return !contains(actual, expected);
    case 'in':
      return isIn(actual, expected);
    case 'not_in':
      return !isIn(actual, expected);
    case 'exists':
      return true;
    case 'not_exists':
      return false;
    case 'regex': {
      const text = toText(actual, true);
      return text !== undefined && typeof expected === 'string' && regexTest(expected, text);
    }
    case 'starts_with':
      return textTest(actual, expected, (s, t) => s.startsWith(t));
    case 'ends_with':
      return textTest(actual, expected, (s, t) => s.endsWith(t));
    default:
      return false;
  }
}

/** Evaluates one leaf; unknown shapes or operators are false, never an exception. */
function evaluateLeaf(leaf: RuleLeaf, context: RuleContext): boolean {
  try {
    const { field, operator, value } = leaf;
    if (typeof field !== 'string' || typeof operator !== 'string') return false;
    const actual = resolveField(context, field);
    if (isMissing(actual)) return PASS_ON_MISSING.has(operator);
    return applyOperator(operator, actual, value);
  } catch {
    return false;
  }
}

/**
 * Whether `op` holds over `items`, each tested by `test` — lazily, so a caller whose test does
 * the work short-circuits. Empty AND is true and empty OR is false (the identities of each
 * operator); NOT negates the AND of its children, so an empty NOT is false.
 */
function combine<T>(op: unknown, items: readonly T[], test: (item: T) => boolean): boolean {
  switch (op ?? 'AND') {
    case 'AND':
      return items.every(test);
    case 'OR':
      return items.some(test);
    case 'NOT':
      return !items.every(test);
    default:
      return false;
  }
}

interface Tally {
  matched: number;
  total: number;
}

function evaluateNode(node: RuleNode, context: RuleContext, tally: Tally): boolean {
  if (isRuleGroup(node)) {
    // every child first: the tally counts all leaves
    const results = node.rules.map((child) => evaluateNode(child, context, tally));
    return combine(node.logicalOperator, results, Boolean);
  }
  const result = isObject(node) && evaluateLeaf(node, context);
  tally.total++;
  if (result) tally.matched++;
  return result;
}

/** Full evaluation: every leaf is evaluated so matchedRules/totalRules count all of them. */
export function evaluateRules(tree: RuleNode, context: RuleContext): RuleEvaluation {
  const tally: Tally = { matched: 0, total: 0 };
  const matches = evaluateNode(tree, context, tally);
  return { matches, matchedRules: tally.matched, totalRules: tally.total };
}

/** Hot-path evaluation for the SDK: same result as `evaluateRules(...).matches`, short-circuiting. */
export function matchesRules(tree: RuleNode, context: RuleContext): boolean {
  if (!isRuleGroup(tree)) return isObject(tree) && evaluateLeaf(tree, context);
  return combine(tree.logicalOperator, tree.rules, (child) => matchesRules(child, context));
}
