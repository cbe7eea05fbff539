import type { JSONSchema7 } from 'ai';
import { z } from 'zod';

/**
 * The JSON schema a model is asked to follow, derived from the zod schema its answer is
 * validated with (the input side: what may be sent). For the generation paths that zod schema is
 * written to be exact (`wire.ts`): nothing it checks is missing here except the cross-field rules
 * listed beside it, which the prompt and the repair turn name. Two changes make the wire stricter
 * than zod, never looser: every object lists its keys as all there may be
 * (`additionalProperties: false`; the validator strips unknown keys rather than refusing them), and
 * `oneOf` (zod's discriminated unions, whose alternatives exclude each other anyway) is sent as
 * `anyOf`, which every provider's structured output understands. A part used more than once
 * (a rule leaf at every level of a rule tree) is written once under `$defs` and referred to, which
 * keeps a journey's schema near 9 kB instead of 27.
 */
export function modelSchemaOf(schema: z.ZodType): JSONSchema7 {
  const json = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
    target: 'draft-2020-12',
    reused: 'ref',
  }) as Record<string, unknown>;
  delete json.$schema;
  return closeObjects(json) as JSONSchema7;
}

function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    out[key === 'oneOf' ? 'anyOf' : key] = closeObjects(value);
  }
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}
