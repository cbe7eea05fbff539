import { generateSync } from 'json-schema-faker';

/**
 * Instances of a JSON schema as the smallest answer a provider's structured output may give:
 * required keys only, arrays at minItems, strings at minLength (a pattern's shortest match, made
 * by json-schema-faker), numbers at their minimum, one chosen alternative of every anyOf.
 */

type Json = Record<string, unknown>;

/** The smallest instance of `schema`, taking alternative `pick` (mod their count) of each anyOf. */
export function minimalInstance(schema: Json, pick: number, seed: number, root: Json = schema): unknown {
  if (typeof schema.$ref === 'string') {
    // local references only (`#/definitions/X`, `#/$defs/X`)
    const target = schema.$ref
      .split('/')
      .slice(1)
      .reduce<unknown>((node, key) => (node as Json)?.[key], root);
    return minimalInstance(target as Json, pick, seed, root);
  }
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[pick % schema.enum.length];
  const alternatives = (schema.anyOf ?? schema.oneOf) as Json[] | undefined;
  if (alternatives) return minimalInstance(alternatives[pick % alternatives.length]!, pick, seed, root);
  if (Array.isArray(schema.allOf))
    return minimalInstance(Object.assign({}, ...(schema.allOf as Json[])), pick, seed, root);
  switch (schema.type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Json>;
      return Object.fromEntries(
        ((schema.required ?? []) as string[]).map((k) => [
          k,
          minimalInstance(properties[k]!, pick, seed, root),
        ]),
      );
    }
    case 'array': {
      const n = (schema.minItems as number | undefined) ?? 0;
      // distinct items where they must differ: vary the seed per item
      return Array.from({ length: n }, (_, i) => minimalInstance(schema.items as Json, pick, seed + i, root));
    }
    case 'string': {
      const min = (schema.minLength as number | undefined) ?? 0;
      if (schema.pattern)
        return generateSync({ ...schema, maxLength: Math.max(min, 12) } as never, { seed }) as string;
      return 'abcdefghijklmnopqrstuvwxyz'.slice(0, min).padEnd(min, 'x');
    }
    case 'integer':
    case 'number':
      return Math.max(0, (schema.minimum as number | undefined) ?? 0);
    case 'boolean':
      return false;
    default:
      return null;
  }
}

/** How many alternatives the schema offers at most at one place (so each gets a minimal instance). */
export function widestChoice(node: unknown): number {
  if (typeof node !== 'object' || node === null) return 1;
  const own = Array.isArray((node as Json).anyOf) ? ((node as Json).anyOf as unknown[]).length : 1;
  const enums = Array.isArray((node as Json).enum) ? ((node as Json).enum as unknown[]).length : 1;
  return Math.max(own, enums, ...Object.values(node).map(widestChoice));
}
