import type { Executor } from '../../db/client.js';
import { contentNotFound } from '../../platform/errors.js';
import { type ExperimentRow, findExperiment, listVariantsOf, type VariantRow } from './store.js';

export type { ExperimentRow, VariantRow };

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

/** The tenant's experiment (`lock`: FOR UPDATE), or 404. */
export async function experimentOr404(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ExperimentRow> {
  const row = await findExperiment(exec, tenantId, id, opts);
  if (!row) throw experimentMissing();
  return row;
}

export async function loadVariants(exec: Executor, tenantId: string, experimentId: string) {
  return (await listVariantsOf(exec, tenantId, [experimentId])).get(experimentId) ?? [];
}

export async function withVariants(exec: Executor, row: ExperimentRow): Promise<ExperimentRecord> {
  return toExperimentRecord(row, await loadVariants(exec, row.tenantId, row.id));
}
