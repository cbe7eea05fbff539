import { z } from 'zod';

export const versionNumber = z.coerce.number().int().positive().max(2_147_483_647);

export const versionParams = z.object({ id: z.string(), n: versionNumber });
export const diffParams = z.object({ id: z.string(), a: versionNumber, b: versionNumber });

/** The optional body of a publish: a note kept with the version. */
export const publishBody = z
  .object({ note: z.string().trim().max(1000).optional().describe('Kept with the version') })
  .nullish();

export const versionSummary = z.object({
  version: z.number().int(),
  note: z.string().nullable(),
  publishedBy: z
    .string()
    .nullable()
    .describe('The user who published (null: the scheduler or the migration)'),
  publishedAt: z.date(),
  bytes: z.number().int().describe('Stored size of the snapshot'),
  live: z.boolean().describe('The version the SDK serves while the item is published'),
});
export const versionList = z.object({ data: z.array(versionSummary) });

export const versionDetail = z.object({
  data: z.object({
    version: z.number().int(),
    note: z.string().nullable(),
    publishedBy: z.string().nullable(),
    publishedAt: z.date(),
    snapshot: z.record(z.string(), z.unknown()).describe("The item's versioned fields"),
  }),
});

const fieldChange = z.object({ path: z.string(), from: z.unknown(), to: z.unknown() });
const collectionDiff = z.object({
  added: z.array(z.object({ id: z.string(), index: z.number().int(), entry: z.unknown() })),
  removed: z.array(z.object({ id: z.string(), index: z.number().int(), entry: z.unknown() })),
  moved: z.array(z.object({ id: z.string(), from: z.number().int(), to: z.number().int() })),
  changed: z.array(z.object({ id: z.string(), fields: z.array(fieldChange) })),
});
export const versionDiff = z.object({
  data: z.object({
    from: z.number().int(),
    to: z.number().int(),
    fields: z.array(fieldChange),
    collections: z
      .record(z.string(), collectionDiff)
      .describe('Flows: steps; journeys: nodes and edges (added, removed, moved, changed)'),
  }),
});

/** Fields every versioned item's record carries. */
export const versionFields = {
  version: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe('The live (published) version; null before the first publish'),
  hasUnpublishedChanges: z
    .boolean()
    .optional()
    .describe('The working copy differs from the live version (publish to serve it)'),
};
