import { eq } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { tenants } from '../../../db/schema/index.js';

// The tenants module's queries live in store/, one file per aggregate: tenants (here), members
// with their pending invites, invite links.

/** What a tenant looks like outside the service. */
const tenantColumns = {
  id: tenants.id,
  name: tenants.name,
  slug: tenants.slug,
  settings: tenants.settings,
  createdAt: tenants.createdAt,
  updatedAt: tenants.updatedAt,
};
export type TenantRecord = Pick<typeof tenants.$inferSelect, keyof typeof tenantColumns>;

/** A tenant as a sign-in answers it. */
export const tenantRefColumns = { id: tenants.id, name: tenants.name, slug: tenants.slug };
export type TenantRef = Pick<typeof tenants.$inferSelect, keyof typeof tenantRefColumns>;

export async function insertTenant(
  exec: Executor,
  tenant: { id: string; name: string; slug: string },
): Promise<TenantRecord> {
  const [row] = await exec.insert(tenants).values(tenant).returning(tenantColumns);
  return row!;
}

export async function findTenant(
  exec: Executor,
  tenantId: string,
  opts: { lock?: boolean } = {},
): Promise<TenantRecord | undefined> {
  const query = exec.select(tenantColumns).from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

export async function findTenantRef(exec: Executor, tenantId: string): Promise<TenantRef | undefined> {
  const [row] = await exec.select(tenantRefColumns).from(tenants).where(eq(tenants.id, tenantId)).limit(1);
  return row;
}

export async function findTenantName(exec: Executor, tenantId: string): Promise<string | undefined> {
  const [row] = await exec
    .select({ name: tenants.name })
    .from(tenants)
    .where(eq(tenants.id, tenantId))
    .limit(1);
  return row?.name;
}

export async function updateTenant(
  exec: Executor,
  tenantId: string,
  values: Partial<Pick<typeof tenants.$inferInsert, 'name' | 'settings'>>,
  now: Date,
): Promise<TenantRecord | undefined> {
  const [row] = await exec
    .update(tenants)
    .set({ ...values, updatedAt: now })
    .where(eq(tenants.id, tenantId))
    .returning(tenantColumns);
  return row;
}
