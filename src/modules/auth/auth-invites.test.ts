import { and, desc, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, TEST_PASSWORD, type TenantFixture } from '../../../test/helpers/factories.js';
import { auditLogs, inviteLinks, members, type Role, users } from '../../db/schema/index.js';
import { hashPassword, randomHex, randomToken, sha256 } from '../../platform/crypto.js';
import { newId } from '../../platform/ids.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const DAY = 86_400_000;
const uniqueEmail = (prefix = 'invitee') => `${prefix}-${randomHex(5)}@example.com`;
const cookieOf = (res: LightMyRequestResponse, name: string) =>
  (res.cookies as Array<{ name: string; value: string; path?: string }>).find((c) => c.name === name);

const accept = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/auth/invites/accept', payload });

/** A pending member row as the tenants module writes it for an emailed invite. */
async function emailedInvite(
  tenant: TenantFixture,
  opts: { email?: string; role?: Role; expiresAt?: Date } = {},
) {
  const token = randomToken(32);
  const email = opts.email ?? uniqueEmail();
  const [row] = await db()
    .insert(members)
    .values({
      id: newId(),
      tenantId: tenant.tenantId,
      email,
      role: opts.role ?? 'EDITOR',
      invitedBy: tenant.owner.userId,
      isPending: true,
      inviteTokenHash: sha256(token),
      inviteExpiresAt: opts.expiresAt ?? new Date(Date.now() + 7 * DAY),
      inviteEmailStatus: 'SENT',
    })
    .returning();
  return { token, email, member: row! };
}

/** An invite_links row as the tenants module writes it. */
async function inviteLink(tenant: TenantFixture, opts: { role?: Role; expiresAt?: Date } = {}) {
  const token = randomToken(32);
  await db()
    .insert(inviteLinks)
    .values({
      id: newId(),
      tenantId: tenant.tenantId,
      role: opts.role ?? 'VIEWER',
      tokenHash: sha256(token),
      createdBy: tenant.owner.userId,
      expiresAt: opts.expiresAt ?? new Date(Date.now() + 7 * DAY),
    });
  return token;
}

async function existingUser(opts: { google?: boolean } = {}) {
  const email = uniqueEmail('existing');
  const id = newId();
  await db()
    .insert(users)
    .values(
      opts.google
        ? { id, email, name: 'G', authProvider: 'google', googleSubject: `sub-${id}` }
        : { id, email, name: 'Existing', passwordHash: await hashPassword(TEST_PASSWORD) },
    );
  return { id, email };
}

const membershipOf = async (tenantId: string, userId: string) => {
  const [row] = await db()
    .select()
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.userId, userId)));
  return row;
};

describe('emailed invites', () => {
  it('creates the account, accepts the invite once, and signs in like login', async () => {
    const tenant = await createTenant(t);
    const { token, email, member } = await emailedInvite(tenant, { role: 'EDITOR' });
    const res = await accept({ token, name: 'Newcomer', password: 'new-user-password' });
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    expect(data).toEqual({
      user: { id: expect.any(String), email, name: 'Newcomer' },
      tenant: { id: tenant.tenantId, name: tenant.name, slug: expect.any(String) },
      role: 'EDITOR',
      accessToken: expect.any(String),
    });
    expect(cookieOf(res, 'session_token')!.value).toBe(data.accessToken);
    expect(cookieOf(res, 'refresh_token')!.path).toBe('/api/auth');

    const [row] = await db().select().from(members).where(eq(members.id, member.id));
    expect(row).toMatchObject({
      userId: data.user.id,
      isPending: false,
      inviteTokenHash: null,
      role: 'EDITOR',
    });
    const [user] = await db().select().from(users).where(eq(users.id, data.user.id));
    expect(user!.passwordHash).toMatch(/^\$argon2id\$/);

    const me = await t.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${data.accessToken}` },
    });
    expect(me.json().data).toMatchObject({ tenant: { id: tenant.tenantId }, role: 'EDITOR' });
    const login = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email, password: 'new-user-password' },
    });
    expect(login.statusCode).toBe(200);

    // single use
    expectError(await accept({ token, password: 'new-user-password' }), 400, 'INVALID_INVITE_TOKEN');

    const [audit] = await db()
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.actorId, data.user.id)))
      .orderBy(desc(auditLogs.createdAt))
      .limit(1);
    expect(audit).toMatchObject({ action: 'USER_LOGIN' });
  });

  it('needs a password to create the account', async () => {
    const tenant = await createTenant(t);
    const { token } = await emailedInvite(tenant);
    const error = expectError(await accept({ token, name: 'No Password' }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'password', message: expect.any(String) }]);
    // the invite is still usable
    expect((await accept({ token, password: 'now-with-password' })).statusCode).toBe(200);
  });

  it('links an existing account without asking its password (the mail proves the address)', async () => {
    const tenant = await createTenant(t);
    const user = await existingUser();
    const { token } = await emailedInvite(tenant, { email: user.email.toUpperCase(), role: 'ADMIN' });
    const res = await accept({ token });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      user: { id: user.id },
      tenant: { id: tenant.tenantId },
      role: 'ADMIN',
    });
    expect(await membershipOf(tenant.tenantId, user.id)).toMatchObject({ isPending: false, role: 'ADMIN' });
    // the password stays the old one
    const login = await t.inject({
      method: 'POST',
      url: '/api/auth/login',
      payload: { email: user.email, password: TEST_PASSWORD, tenantId: tenant.tenantId },
    });
    expect(login.json().data).toMatchObject({ tenant: { id: tenant.tenantId }, role: 'ADMIN' });
  });

  it('answers MEMBER_EXISTS when the account is already an accepted member of that tenant', async () => {
    const tenant = await createTenant(t);
    const user = await existingUser();
    await db()
      .insert(members)
      .values({
        id: newId(),
        tenantId: tenant.tenantId,
        userId: user.id,
        email: `old-${user.email}`,
        role: 'VIEWER',
      });
    const { token } = await emailedInvite(tenant, { email: user.email });
    expectError(await accept({ token }), 409, 'MEMBER_EXISTS');
  });

  it('answers INVALID_INVITE_TOKEN for expired and unknown tokens', async () => {
    const tenant = await createTenant(t);
    const { token } = await emailedInvite(tenant, { expiresAt: new Date(t.clock.now() - 1000) });
    expectError(await accept({ token, password: 'long-enough-1' }), 400, 'INVALID_INVITE_TOKEN');
    expectError(
      await accept({ token: 'no-such-token', password: 'long-enough-1' }),
      400,
      'INVALID_INVITE_TOKEN',
    );
    // expiry follows the service clock
    const fresh = await emailedInvite(tenant, { expiresAt: new Date(Date.now() + 60_000) });
    t.clock.set(Date.now() + 61_000);
    try {
      expectError(
        await accept({ token: fresh.token, password: 'long-enough-1' }),
        400,
        'INVALID_INVITE_TOKEN',
      );
    } finally {
      t.clock.set(Date.now());
    }
  });
});

describe('invite links', () => {
  it('lets several new people join with the link role until it expires', async () => {
    const tenant = await createTenant(t);
    const token = await inviteLink(tenant, { role: 'EDITOR' });
    for (const name of ['First', 'Second']) {
      const email = uniqueEmail(name.toLowerCase());
      const res = await accept({ token, email, name, password: 'joined-by-link' });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      expect(data).toMatchObject({ user: { email, name }, tenant: { id: tenant.tenantId }, role: 'EDITOR' });
      expect(await membershipOf(tenant.tenantId, data.user.id)).toMatchObject({
        email,
        role: 'EDITOR',
        isPending: false,
        invitedBy: tenant.owner.userId,
      });
      expect(cookieOf(res, 'session_token')!.value).toBe(data.accessToken);
    }
    t.clock.set(Date.now() + 7 * DAY + 1000);
    try {
      expectError(
        await accept({ token, email: uniqueEmail(), password: 'joined-by-link' }),
        400,
        'INVALID_INVITE_TOKEN',
      );
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('needs the email, and a password for a new account', async () => {
    const tenant = await createTenant(t);
    const token = await inviteLink(tenant);
    const a = expectError(await accept({ token, password: 'long-enough-1' }), 400, 'VALIDATION_ERROR');
    expect(a.details).toEqual([{ path: 'email', message: expect.any(String) }]);
    const b = expectError(await accept({ token, email: uniqueEmail() }), 400, 'VALIDATION_ERROR');
    expect(b.details).toEqual([{ path: 'password', message: expect.any(String) }]);
  });

  it("requires an existing account's password, since a link does not prove the email", async () => {
    const tenant = await createTenant(t);
    const token = await inviteLink(tenant, { role: 'VIEWER' });
    const user = await existingUser();
    expectError(await accept({ token, email: user.email }), 401, 'AUTH_INVALID_CREDENTIALS');
    expectError(
      await accept({ token, email: user.email, password: 'wrong-password' }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    expect(await membershipOf(tenant.tenantId, user.id)).toBeUndefined();
    const res = await accept({ token, email: user.email.toUpperCase(), password: TEST_PASSWORD });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({ user: { id: user.id, email: user.email }, role: 'VIEWER' });
    // and once in, a second join answers MEMBER_EXISTS
    expectError(await accept({ token, email: user.email, password: TEST_PASSWORD }), 409, 'MEMBER_EXISTS');
  });

  it('answers MEMBER_EXISTS for a member of the tenant, and AUTH_PROVIDER_MISMATCH for a Google account', async () => {
    const tenant = await createTenant(t);
    const token = await inviteLink(tenant);
    expectError(
      await accept({ token, email: tenant.owner.email, password: TEST_PASSWORD }),
      409,
      'MEMBER_EXISTS',
    );
    const google = await existingUser({ google: true });
    expectError(
      await accept({ token, email: google.email, password: 'whatever-123' }),
      401,
      'AUTH_PROVIDER_MISMATCH',
    );
  });

  it('consumes an outstanding emailed invite of the same address', async () => {
    const tenant = await createTenant(t);
    const { email, member, token: emailed } = await emailedInvite(tenant, { role: 'ADMIN' });
    const link = await inviteLink(tenant, { role: 'VIEWER' });
    const res = await accept({ token: link, email, password: 'joined-by-link' });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await db().select().from(members).where(eq(members.id, member.id));
    expect(row).toMatchObject({
      userId: res.json().data.user.id,
      isPending: false,
      inviteTokenHash: null,
      role: 'VIEWER',
    });
    expectError(await accept({ token: emailed }), 400, 'INVALID_INVITE_TOKEN');
  });

  it('answers INVALID_INVITE_TOKEN for an expired link', async () => {
    const tenant = await createTenant(t);
    const token = await inviteLink(tenant, { expiresAt: new Date(t.clock.now() - 1000) });
    expectError(
      await accept({ token, email: uniqueEmail(), password: 'long-enough-1' }),
      400,
      'INVALID_INVITE_TOKEN',
    );
  });
});

describe('validation', () => {
  it('names the failing field', async () => {
    for (const [payload, path] of [
      [{}, 'token'],
      [{ token: '' }, 'token'],
      [{ token: 'x', email: 'not-an-email' }, 'email'],
      [{ token: 'x', password: 'short' }, 'password'],
    ] as const) {
      const error = expectError(await accept(payload), 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([{ path, message: expect.any(String) }]);
    }
  });
});
