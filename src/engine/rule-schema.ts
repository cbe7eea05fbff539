import { z } from 'zod';
import { FORBIDDEN_SEGMENTS, LOGICAL_OPERATORS, OPERATORS, type Operator, type RuleNode } from './rules.js';
import { regexPatternProblem } from './url-match.js';

/** Levels of nesting, the root being level 1 (a group of leaves has 2). */
export const MAX_RULE_DEPTH = 10;
/** Groups and leaves together. */
export const MAX_RULE_NODES = 200;
const MAX_FIELD_LENGTH = 200;
const MAX_VALUE_STRING_LENGTH = 2000;
const MAX_VALUE_ITEMS = 1000;

const FIELD_PATTERN = /^[A-Za-z_$][\w$-]*(?:\.[\w$-]+)*$/;
const COMPARISON: ReadonlySet<Operator> = new Set(['gt', 'lt', 'gte', 'lte']);

const fieldSchema = z
  .string()
  .min(1)
  .max(MAX_FIELD_LENGTH)
  .regex(FIELD_PATTERN, 'field must be a dotted path such as traits.plan, device.type, userId or role')
  .refine((f) => f.split('.').every((s) => !FORBIDDEN_SEGMENTS.has(s)), {
    message: 'field may not contain __proto__, prototype or constructor',
  });

const primitiveSchema = z.union([z.string().max(MAX_VALUE_STRING_LENGTH), z.number(), z.boolean(), z.null()]);
const valueSchema = z.union([primitiveSchema, z.array(primitiveSchema).max(MAX_VALUE_ITEMS)]);

type Ctx = z.RefinementCtx;

interface RawNode {
  logicalOperator?: unknown;
  rules?: unknown;
  field?: unknown;
  operator?: Operator;
  value?: unknown;
}

/** What is wrong with a leaf's value for its operator, or null. */
function valueProblem(operator: Operator, value: unknown): string | null {
  if (operator === 'exists' || operator === 'not_exists') return null;
  if (operator === 'in' || operator === 'not_in') {
    return Array.isArray(value) ? null : `value must be an array for operator ${operator}`;
  }
  if (operator === 'regex') {
    if (typeof value !== 'string') return 'value must be a regex pattern string for operator regex';
    return regexPatternProblem(value);
  }
  if (COMPARISON.has(operator)) {
    return typeof value === 'number' || typeof value === 'string'
      ? null
      : `value must be a number or a date string for operator ${operator}`;
  }
  return value === undefined ? `value is required for operator ${operator}` : null;
}

/** A node is a group when it has `rules` or `logicalOperator`, otherwise a leaf. */
function checkNode(node: RawNode, ctx: Ctx): void {
  const isGroup = node.rules !== undefined || node.logicalOperator !== undefined;
  if (isGroup) {
    if (node.rules === undefined) {
      ctx.addIssue({ code: 'custom', path: ['rules'], message: 'a group needs a rules array' });
    }
    if (node.field !== undefined || node.operator !== undefined || node.value !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: [],
        message: 'a node is either a group (logicalOperator, rules) or a leaf (field, operator, value)',
      });
    }
    return;
  }
  if (node.field === undefined)
    ctx.addIssue({ code: 'custom', path: ['field'], message: 'field is required' });
  if (node.operator === undefined) {
    ctx.addIssue({ code: 'custom', path: ['operator'], message: 'operator is required' });
    return;
  }
  const problem = valueProblem(node.operator, node.value);
  if (problem) ctx.addIssue({ code: 'custom', path: ['value'], message: problem });
}

/** The id of the rule tree in the OpenAPI document (`#/components/schemas/RuleTree`). */
export const RULE_TREE_SCHEMA_ID = 'RuleTree';

// One object schema with optional keys rather than a union of leaf and group, so that an issue
// inside a node (e.g. an unknown operator) keeps its precise path, like `rules.1.operator`.
// The id names the recursion: without it the document's self-reference would not resolve.
const ruleNodeSchema: z.ZodType<RuleNode> = z
  .object({
    logicalOperator: z.enum(LOGICAL_OPERATORS).optional(),
    rules: z.array(z.lazy(() => ruleNodeSchema)).optional(),
    field: fieldSchema.optional(),
    operator: z.enum(OPERATORS).optional(),
    value: valueSchema.optional(),
  })
  .superRefine(checkNode)
  .meta({
    id: RULE_TREE_SCHEMA_ID,
    description:
      'An audience rule: a leaf { field, operator, value } or a group { logicalOperator: AND | OR | NOT, ' +
      `rules: [node, ...] }; at most ${MAX_RULE_DEPTH} levels and ${MAX_RULE_NODES} nodes.`,
  }) as unknown as z.ZodType<RuleNode>;

interface Bounds {
  nodes: number;
  failed: boolean;
}

/** Walks at most MAX_RULE_NODES + 1 nodes and MAX_RULE_DEPTH + 1 levels of the raw input. */
function checkBounds(node: unknown, depth: number, path: (string | number)[], b: Bounds, ctx: Ctx): void {
  if (b.failed) return;
  b.nodes++;
  if (b.nodes > MAX_RULE_NODES) {
    b.failed = true;
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: `a rule tree may have at most ${MAX_RULE_NODES} nodes`,
    });
    return;
  }
  if (depth > MAX_RULE_DEPTH) {
    b.failed = true;
    ctx.addIssue({
      code: 'custom',
      path,
      message: `a rule tree may be at most ${MAX_RULE_DEPTH} levels deep`,
    });
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const rules = (node as { rules?: unknown }).rules;
  if (!Array.isArray(rules)) return;
  for (let i = 0; i < rules.length && !b.failed; i++) {
    checkBounds(rules[i], depth + 1, [...path, 'rules', i], b, ctx);
  }
}

/**
 * An audience rule tree: a leaf `{ field, operator, value }` or a group
 * `{ logicalOperator?: 'AND' | 'OR' | 'NOT', rules }`. Depth and size are checked before the
 * recursive parse so that an oversized body cannot exhaust the stack.
 */
export const ruleTreeSchema = z.preprocess((input, ctx) => {
  checkBounds(input, 1, [], { nodes: 0, failed: false }, ctx);
  return input;
}, ruleNodeSchema);
