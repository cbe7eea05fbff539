import { and, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { audiences } from '../../db/schema/index.js';
import { assertReference } from '../../platform/references-check.js';

/** For modules whose records target an audience: 400 at `path` unless it is a live audience of the tenant. */
export async function assertAudienceUsable(
  exec: Executor,
  tenantId: string,
  audienceId: string,
  path = 'audienceId',
) {
  await assertReference(audienceId, path, 'Audience', async (id) => {
    const [row] = await exec
      .select({ id: audiences.id })
      .from(audiences)
      .where(and(eq(audiences.tenantId, tenantId), eq(audiences.id, id), isNull(audiences.deletedAt)))
      .limit(1);
    return Boolean(row);
  });
}
