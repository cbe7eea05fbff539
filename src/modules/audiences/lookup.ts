import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { audiences } from '../../db/schema/index.js';
import { isUuid } from '../../platform/ids.js';
import { assertReference } from '../../platform/references-check.js';

/** The tenant's audience `id` unless it is soft-deleted. */
export const live = (tenantId: string, id: string) =>
  and(eq(audiences.tenantId, tenantId), eq(audiences.id, id), isNull(audiences.deletedAt));

/**
 * The tenant's audience `id` — live only unless `includeDeleted` — locked for the rest of the
 * transaction with `lock`; undefined when there is none (a malformed id included).
 */
export async function findAudience(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean; includeDeleted?: boolean } = {},
) {
  if (!isUuid(id)) return undefined;
  const where = opts.includeDeleted
    ? and(eq(audiences.tenantId, tenantId), eq(audiences.id, id))
    : live(tenantId, id);
  const query = exec.select().from(audiences).where(where).limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

/** For modules whose records target an audience: 400 at `path` unless it is a live audience of the tenant. */
export async function assertAudienceUsable(
  exec: Executor,
  tenantId: string,
  audienceId: string,
  path = 'audienceId',
) {
  await assertReference(audienceId, path, 'Audience', async (id) =>
    Boolean(await findAudience(exec, tenantId, id)),
  );
}
