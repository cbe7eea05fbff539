import type { JSONSchema7 } from 'ai';
import { z } from 'zod';
import { modelSchemaOf } from './model-schema.js';

/**
 * What a model answers, defined once per generation path: a zod schema written so that its JSON
 * schema (`modelSchemaOf`, what the model is sent) says everything it checks — required keys,
 * enums, bounds, `anyOf` alternatives, patterns for "not blank" and for urls — and the few rules
 * JSON Schema cannot state (two fields that must differ, edges naming nodes), listed beside it as
 * `CrossFieldRule`s. The schema reports a broken rule as an issue tagged with the rule's id; the
 * repair turn quotes the rule's text; the prompt lists the rules and shows a valid example.
 * `wire.property.test.ts` holds every path to this: whatever its wire schema allows is accepted,
 * or refused only for a listed rule.
 */

export interface CrossFieldRule {
  id: string;
  /** Told to the model in the prompt and again, when broken, in the repair turn. */
  text: string;
}

export interface OutputDef<T = Record<string, unknown>> {
  /** Names the output for the provider ("flow", "audience"). */
  name: string;
  /** Validates the model's answer and turns it into what the route answers. */
  validated: z.ZodType<T>;
  /** What the model is sent: the JSON schema of the definition the answer is parsed with. */
  modelSchema: JSONSchema7;
  rules: readonly CrossFieldRule[];
  /** A small valid answer, shown in the prompt. */
  example: unknown;
  /** Prompt lines that depend on the path (or on the tenant's data). */
  hints: readonly string[];
}

/** An `OutputDef` from its definition: `draft` is what the model writes, `finish` what follows. */
export function outputDef<D, T>(spec: {
  name: string;
  draft: z.ZodType<D>;
  rules?: readonly CrossFieldRule[];
  example: D;
  hints?: readonly string[];
  finish?: (draft: D, ctx: z.RefinementCtx) => T;
}): OutputDef<T> {
  const validated = (
    spec.finish ? spec.draft.transform((d, ctx) => spec.finish!(d, ctx)) : spec.draft
  ) as z.ZodType<T>;
  return {
    name: spec.name,
    validated,
    modelSchema: modelSchemaOf(spec.draft),
    rules: spec.rules ?? [],
    example: spec.example,
    hints: spec.hints ?? [],
  };
}

// ---- pieces exact in JSON Schema ----------------------------------------------------------------

/** Text with something in it: `pattern: \S` says "not blank" to the model as the create schemas' trim + min(1) do. */
export const wireText = (max: number) => z.string().max(max).regex(/\S/, 'must not be blank');

/**
 * An absolute http(s) url that `new URL` parses: a host of letters, digits and hyphens whose last
 * label starts with a letter (so it is never read as an IPv4 address), no port, then anything
 * without spaces.
 */
export const HTTP_URL_PATTERN =
  /^https?:\/\/(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)*[A-Za-z](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:[/?#]\S*)?$/;
/** A path inside the product: a slash, then anything without spaces. */
export const RELATIVE_PATH_PATTERN = /^\/\S*$/;

// ---- cross-field rules --------------------------------------------------------------------------

/** Reports `rule` broken at `path` (the issue carries the rule's id for the repair turn). */
export function breakRule(
  ctx: z.RefinementCtx,
  rule: CrossFieldRule,
  path: (string | number)[],
  message: string = rule.text,
): void {
  ctx.addIssue({ code: 'custom', path, message, params: { rule: rule.id } });
}

/** Issues of a final check (the create schema) forwarded under the answer's paths. */
export function forwardIssues(ctx: z.RefinementCtx, issues: readonly z.core.$ZodIssue[]): void {
  for (const issue of issues) {
    ctx.addIssue({
      code: 'custom',
      path: issue.path as (string | number)[],
      message: issue.message,
      ...(issue.code === 'custom' && issue.params ? { params: issue.params } : {}),
    });
  }
}

export const ruleOf = (issue: z.core.$ZodIssue): string | undefined =>
  issue.code === 'custom' ? (issue.params as { rule?: string } | undefined)?.rule : undefined;

// ---- prompt and repair --------------------------------------------------------------------------

/** Lines for the prompt: the rules the schema cannot state, and an example answer. */
export function promptLines(def: Pick<OutputDef<unknown>, 'rules' | 'example' | 'hints'>): string[] {
  return [
    ...def.hints,
    ...(def.rules.length > 0
      ? [`Rules the JSON schema cannot state:\n${def.rules.map((r) => `- ${r.text}`).join('\n')}`]
      : []),
    `A small valid answer, for its shape only:\n${JSON.stringify(def.example)}`,
  ];
}

const where = (path: readonly PropertyKey[]) => path.map(String).join('.') || '(root)';

/**
 * One line per problem, `path: message`. An answer that fits no alternative of a union says what
 * each alternative missed, so the model learns which shape it was closest to.
 */
export function describeIssues(issues: readonly z.core.$ZodIssue[], prefix: PropertyKey[] = []): string[] {
  return issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      const options = issue.errors.map(
        (alternative, i) => `(${i + 1}) ${describeIssues(alternative, path).join('; ')}`,
      );
      return [`${where(path)}: fits none of the allowed shapes: ${options.join(' ')}`];
    }
    return [`${where(path)}: ${issue.message}`];
  });
}

/** The repair turn: every problem with its path, then the text of each cross-field rule broken. */
export function repairMessage(issues: readonly z.core.$ZodIssue[], rules: readonly CrossFieldRule[]): string {
  const problems = describeIssues(issues).slice(0, 20);
  const broken = new Set(issues.map(ruleOf).filter((r): r is string => r !== undefined));
  const named = rules.filter((r) => broken.has(r.id));
  return [
    `That answer is invalid:\n- ${problems.join('\n- ')}`,
    ...(named.length > 0 ? [`Rules it breaks:\n${named.map((r) => `- ${r.text}`).join('\n')}`] : []),
    'Answer again with the corrected JSON object only.',
  ].join('\n');
}
