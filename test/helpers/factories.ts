import type { Role } from '../../src/db/schema/index.js';
import { members, sessions, users } from '../../src/db/schema/index.js';
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
