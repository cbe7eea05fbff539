import type { JSONSchema7 } from 'ai';
import { z } from 'zod';

/**
 * The JSON schema a model is asked to follow, derived from the zod schema its answer is
 * validated with: the input side (what may be sent), with what JSON Schema cannot express
 * (refinements, custom checks) left open — the zod validation enforces those afterwards.
 */
export function modelSchemaOf(schema: z.ZodType): JSONSchema7 {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any', target: 'draft-7' }) as Record<
    string,
    unknown
  >;
  delete json.$schema;
  return json as JSONSchema7;
}
