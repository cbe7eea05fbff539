import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { flows } from '../../db/schema/index.js';
import { assertReference } from '../../platform/references-check.js';

/** For records that point at a flow (task-list COMPLETE_FLOW, experiment variants): 400 at `path` unless it is a flow of the tenant. */
export async function assertFlowUsable(exec: Executor, tenantId: string, flowId: string, path = 'flowId') {
  await assertReference(flowId, path, 'Flow', async (id) => {
    const [row] = await exec
      .select({ id: flows.id })
      .from(flows)
      .where(and(eq(flows.tenantId, tenantId), eq(flows.id, id)))
      .limit(1);
    return Boolean(row);
  });
}
