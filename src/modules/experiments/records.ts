import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { experiments, experimentVariants } from '../../db/schema/index.js';
import { contentNotFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';

export type ExperimentRow = typeof experiments.$inferSelect;
export type VariantRow = typeof experimentVariants.$inferSelect;

/** A variant as the API shows it: the split back in percent. */
export const toVariant = (row: VariantRow) => ({
  id: row.id,
  name: row.name,
  splitPercentage: row.splitBasisPoints / 100,
  flowId: row.flowId,
  config: row.config,
});
export type VariantRecord = ReturnType<typeof toVariant>;

/** The wire record (the seed is internal: it never changes and clients have no use for it). */
export const toExperimentRecord = ({ seed: _seed, ...row }: ExperimentRow, variants: VariantRow[]) => ({
  ...row,
  variants: variants.map(toVariant),
});
export type ExperimentRecord = ReturnType<typeof toExperimentRecord>;

export const experimentMissing = () => contentNotFound('Experiment');

/** The tenant's experiment, or null (a malformed id matches nothing); `lock` holds it FOR UPDATE. */
export async function findExperiment(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ExperimentRow | null> {
  if (!isUuid(id)) return null;
  const query = exec
    .select()
    .from(experiments)
    .where(and(eq(experiments.tenantId, tenantId), eq(experiments.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row ?? null;
}

/** Variants of several experiments in one query, grouped and in position order. */
export async function loadVariantsOf(
  exec: Executor,
  tenantId: string,
  experimentIds: string[],
): Promise<Map<string, VariantRow[]>> {
  const byExperiment = new Map<string, VariantRow[]>(experimentIds.map((id) => [id, []]));
  if (experimentIds.length === 0) return byExperiment;
  const rows = await exec
    .select()
    .from(experimentVariants)
    .where(
      and(eq(experimentVariants.tenantId, tenantId), inArray(experimentVariants.experimentId, experimentIds)),
    )
    .orderBy(asc(experimentVariants.experimentId), asc(experimentVariants.position));
  for (const row of rows) byExperiment.get(row.experimentId)?.push(row);
  return byExperiment;
}

export async function loadVariants(exec: Executor, tenantId: string, experimentId: string) {
  return (await loadVariantsOf(exec, tenantId, [experimentId])).get(experimentId) ?? [];
}

export async function withVariants(exec: Executor, row: ExperimentRow): Promise<ExperimentRecord> {
  return toExperimentRecord(row, await loadVariants(exec, row.tenantId, row.id));
}
