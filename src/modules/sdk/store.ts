import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { contentItems, flows, npsSurveys, tenants } from '../../db/schema/index.js';

/** The SDK module's one query of its own (the session's are delivery's): what the SDK config shows of a tenant. */
export async function findTenantConfig(exec: Executor, tenantId: string) {
  const [row] = await exec
    .select({ name: tenants.name, settings: tenants.settings })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row;
}

// ---- the explanation (GET /api/end-users/:id/delivery) -------------------------------------------

/**
 * Every flow, content item and NPS survey of the tenant with its status, whatever it is: the
 * explanation lists those the delivery snapshot does not hold (drafts, scheduled, archived).
 */
export async function listItemCatalog(exec: Executor, tenantId: string) {
  const flowRows = await exec
    .select({ id: flows.id, name: flows.name, status: flows.status })
    .from(flows)
    .where(eq(flows.tenantId, tenantId));
  const contentRows = await exec
    .select({
      id: contentItems.id,
      name: contentItems.name,
      status: contentItems.status,
      type: contentItems.type,
    })
    .from(contentItems)
    .where(eq(contentItems.tenantId, tenantId));
  const npsRows = await exec
    .select({ id: npsSurveys.id, name: npsSurveys.name, status: npsSurveys.status })
    .from(npsSurveys)
    .where(eq(npsSurveys.tenantId, tenantId));
  return [
    ...flowRows.map((r) => ({ ...r, kind: 'flow' as const, contentType: null })),
    ...contentRows.map((r) => ({
      id: r.id,
      name: r.name,
      status: r.status,
      kind: 'content' as const,
      contentType: r.type as string,
    })),
    ...npsRows.map((r) => ({ ...r, kind: 'content' as const, contentType: 'nps-surveys' })),
  ];
}
