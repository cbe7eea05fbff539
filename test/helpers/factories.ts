import { and, eq, type SQL } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { Role } from '../../src/db/schema/index.js';
import { audiences, auditLogs, flows, members, sessions, users } from '../../src/db/schema/index.js';
import { provisionTenant } from '../../src/modules/tenants/provision.js';
import { hashPassword, randomHex, sha256 } from '../../src/platform/crypto.js';
import { newId } from '../../src/platform/ids.js';
import type { TestApp } from './app.js';

/**
 * Small local factories: each test makes its own tenant and users straight in the database
 * (fast, no dependence on the auth routes), with a signed session like a real login's.
 */
export const TEST_PASSWORD = 'correct horse battery';
let passwordHash: Promise<string> | null = null;
const testPasswordHash = () => {
  passwordHash ??= hashPassword(TEST_PASSWORD);
  return passwordHash;
};

export interface Actor {
  userId: string;
  memberId: string;
  email: string;
  role: Role;
  token: string;
  sessionId: string;
  /** `Authorization: Bearer` headers for inject(). */
  headers: Record<string, string>;
}

export interface TenantFixture {
  tenantId: string;
  name: string;
  owner: Actor;
  /** Adds a member with the given role and returns a signed-in actor. */
  as(role: Role): Promise<Actor>;
}

/** `plan`: the tenant's plan (default: the app's DEFAULT_PLAN, which tests set to enterprise). */
export async function createTenant(
  t: TestApp,
  opts: { name?: string; plan?: string } = {},
): Promise<TenantFixture> {
  const name = opts.name ?? `Company ${randomHex(4)}`;
  const db = t.deps.database.db;
  const email = `owner-${randomHex(4)}@example.com`;
  const userId = newId();
  const { tenant, member } = await db.transaction(async (tx) => {
    await tx
      .insert(users)
      .values({ id: userId, email, name: 'Owner', passwordHash: await testPasswordHash() });
    return provisionTenant(tx, { name, owner: { userId, email }, plan: opts.plan ?? t.config.defaultPlan });
  });
  const owner = await signIn(t, { userId, memberId: member.id, email, role: 'OWNER', tenantId: tenant.id });
  return {
    tenantId: tenant.id,
    name: tenant.name,
    owner,
    async as(role: Role) {
      const memberEmail = `${role.toLowerCase()}-${randomHex(4)}@example.com`;
      const uid = newId();
      await db
        .insert(users)
        .values({ id: uid, email: memberEmail, name: role, passwordHash: await testPasswordHash() });
      const [m] = await db
        .insert(members)
        .values({ id: newId(), tenantId: tenant.id, userId: uid, email: memberEmail, role })
        .returning();
      return signIn(t, { userId: uid, memberId: m!.id, email: memberEmail, role, tenantId: tenant.id });
    },
  };
}

async function signIn(
  t: TestApp,
  who: { userId: string; memberId: string; email: string; role: Role; tenantId: string },
): Promise<Actor> {
  const sessionId = newId();
  await t.deps.database.db.insert(sessions).values({
    id: sessionId,
    userId: who.userId,
    tenantId: who.tenantId,
    refreshTokenHash: sha256(randomHex(16)),
    refreshExpiresAt: new Date(Date.now() + 86_400_000),
  });
  const token = await t.deps.tokens.signAccess({ userId: who.userId, tenantId: who.tenantId, sessionId });
  return { ...who, token, sessionId, headers: { authorization: `Bearer ${token}` } };
}

/** An email no other test uses: `<prefix>-<random>@example.com`. */
export const uniqueEmail = (prefix = 'user'): string => `${prefix}-${randomHex(5)}@example.com`;

export interface ResponseCookie {
  name: string;
  value: string;
  path?: string;
  maxAge?: number;
  secure?: boolean;
  httpOnly?: boolean;
  sameSite?: string;
  [attribute: string]: unknown;
}

/** The cookie `name` set by a response, with its attributes. */
export const cookieOf = (res: LightMyRequestResponse, name: string): ResponseCookie | undefined =>
  (res.cookies as ResponseCookie[]).find((c) => c.name === name);

/** A tenant's audit entries, oldest first; only those of `action` and/or `entityId` when given. */
export function auditEntries(
  t: TestApp,
  tenantId: string,
  filter: { action?: string; entityId?: string } = {},
) {
  const where: SQL[] = [eq(auditLogs.tenantId, tenantId)];
  if (filter.action) where.push(eq(auditLogs.action, filter.action));
  if (filter.entityId) where.push(eq(auditLogs.entityId, filter.entityId));
  return t.deps.database.db
    .select()
    .from(auditLogs)
    .where(and(...where))
    .orderBy(auditLogs.createdAt, auditLogs.id);
}

/** A site id for records that need one (flows, content). */
export const TEST_SITE_ID = '0190a000-0000-7000-8000-000000000001';

/** `inject()` as a tenant's owner (or the given actor), with `payload` as the JSON body when given. */
export const callAs = (
  t: TestApp,
  who: TenantFixture | Pick<Actor, 'headers'>,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  payload?: unknown,
) =>
  t.inject({
    method,
    url,
    headers: 'owner' in who ? who.owner.headers : who.headers,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

/** An audience of the tenant, straight in the database (`deleted`: soft-deleted); its id. */
export async function insertAudience(
  t: TestApp,
  tenantId: string,
  opts: { name?: string; deleted?: boolean; ruleTree?: (typeof audiences.$inferInsert)['ruleTree'] } = {},
): Promise<string> {
  const id = newId();
  await t.deps.database.db.insert(audiences).values({
    id,
    tenantId,
    name: opts.name ?? `Audience ${id.slice(-4)}`,
    ruleTree: opts.ruleTree ?? { logicalOperator: 'AND', rules: [] },
    deletedAt: opts.deleted ? new Date() : null,
  });
  return id;
}

/** A DRAFT flow of the tenant without steps, straight in the database; its id. */
export async function insertFlow(
  t: TestApp,
  tenantId: string,
  fields: Partial<typeof flows.$inferInsert> = {},
): Promise<string> {
  const id = newId();
  await t.deps.database.db
    .insert(flows)
    .values({ id, tenantId, siteId: TEST_SITE_ID, name: 'Onboarding', template: 'CUSTOM', ...fields });
  return id;
}

export interface FlowFixture {
  id: string;
  status: string;
  createdAt: string;
  updatedAt: string;
  publishedAt: string | null;
  archivedAt: string | null;
  steps: { id: string; order: number; type: string; updatedAt: string; [field: string]: unknown }[];
  [field: string]: unknown;
}

/** A flow created through the API as the tenant's owner (throws unless 201); `body` overrides the defaults. */
export async function createFlow(
  t: TestApp,
  tenant: TenantFixture,
  body: Record<string, unknown> = {},
): Promise<FlowFixture> {
  const res = await callAs(t, tenant, 'POST', '/api/flows', {
    name: 'Onboarding tour',
    siteId: TEST_SITE_ID,
    template: 'PRODUCT_TOUR',
    ...body,
  });
  if (res.statusCode !== 201) throw new Error(`createFlow: ${res.statusCode} ${res.body}`);
  return res.json().data;
}
