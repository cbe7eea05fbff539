import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { tenants } from '../../db/schema/index.js';

/** The SDK module's one query of its own (the session's are delivery's): what the SDK config shows of a tenant. */
export async function findTenantConfig(exec: Executor, tenantId: string) {
  const [row] = await exec
    .select({ name: tenants.name, settings: tenants.settings })
    .from(tenants)
    .where(eq(tenants.id, tenantId));
  return row;
}
