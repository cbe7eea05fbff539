import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  auditEntries,
  cookieOf,
  createTenant,
  TEST_PASSWORD,
  type TenantFixture,
  uniqueEmail,
} from '../../../test/helpers/factories.js';
import { auditLogs, inviteLinks, mailOutbox, members, type Role, users } from '../../db/schema/index.js';
import { hashPassword, randomHex, randomToken, sha256 } from '../../platform/crypto.js';
import { newId } from '../../platform/ids.js';
import { deliverPasswordResets } from './password-reset.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const db = () => t.deps.database.db;
const DAY = 86_400_000;

const accept = (payload: Record<string, unknown>) =>
  t.inject({ method: 'POST', url: '/api/auth/invites/accept', payload });

/** A pending member row as the tenants module writes it for an emailed invite. */
async function emailedInvite(
  tenant: TenantFixture,
  opts: { email?: string; role?: Role; expiresAt?: Date } = {},
) {
  const token = randomToken(32);
  const email = opts.email ?? uniqueEmail('invitee');
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

/** An invite_links row as the tenants module writes it (created by the owner unless told). */
async function inviteLink(
  tenant: TenantFixture,
  opts: { role?: Role; expiresAt?: Date; createdBy?: string | null } = {},
) {
  const token = randomToken(32);
  await db()
    .insert(inviteLinks)
    .values({
      id: newId(),
      tenantId: tenant.tenantId,
      role: opts.role ?? 'VIEWER',
      tokenHash: sha256(token),
      createdBy: opts.createdBy === undefined ? tenant.owner.userId : opts.createdBy,
      expiresAt: opts.expiresAt ?? new Date(Date.now() + 7 * DAY),
    });
  return token;
}

const linkIdOf = async (token: string) => {
  const [row] = await db()
    .select()
    .from(inviteLinks)
    .where(eq(inviteLinks.tokenHash, sha256(token)));
  return row!.id;
};

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

    const audit = await db()
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.actorId, data.user.id)));
    expect(audit.map((a) => a.action).sort()).toEqual(['MEMBER_JOINED', 'USER_LOGIN', 'USER_LOGIN']);
    expect(audit.find((a) => a.action === 'MEMBER_JOINED')).toMatchObject({
      entityType: 'member',
      entityId: member.id,
      actorId: data.user.id,
      metadata: { via: 'email', role: 'EDITOR' },
    });
  });

  it('needs a password to create the account', async () => {
    const tenant = await createTenant(t);
    const { token } = await emailedInvite(tenant);
    const error = expectError(await accept({ token, name: 'No Password' }), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'password', message: expect.any(String) }]);
    // the invite is still usable
    expect((await accept({ token, password: 'now-with-password' })).statusCode).toBe(200);
  });

  it("links an existing password account only with that account's password", async () => {
    const tenant = await createTenant(t);
    const user = await existingUser();
    const { token, member } = await emailedInvite(tenant, { email: user.email.toUpperCase(), role: 'ADMIN' });
    const missing = expectError(await accept({ token }), 400, 'VALIDATION_ERROR');
    expect(missing.details).toEqual([{ path: 'password', message: expect.any(String) }]);
    expectError(await accept({ token, password: 'not-the-password' }), 401, 'AUTH_INVALID_CREDENTIALS');
    expectError(
      await accept({ token, password: 'not-the-password', name: 'Renamed' }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    expect(await membershipOf(tenant.tenantId, user.id)).toBeUndefined();
    const [still] = await db().select().from(members).where(eq(members.id, member.id));
    expect(still).toMatchObject({ isPending: true, userId: null });

    const res = await accept({ token, password: TEST_PASSWORD });
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
    expectError(await accept({ token, password: TEST_PASSWORD }), 409, 'MEMBER_EXISTS');
  });

  it('does not link an existing Google account without its Google sign-in', async () => {
    const tenant = await createTenant(t);
    const user = await existingUser({ google: true });
    const { token, member } = await emailedInvite(tenant, { email: user.email });
    expectError(await accept({ token }), 401, 'AUTH_PROVIDER_MISMATCH');
    expectError(await accept({ token, password: 'any-password-1' }), 401, 'AUTH_PROVIDER_MISMATCH');
    const [still] = await db().select().from(members).where(eq(members.id, member.id));
    expect(still).toMatchObject({ isPending: true, userId: null });
  });

  it("an attacker who registered the invitee's email first gets nothing; the owner recovers it by reset", async () => {
    const victim = uniqueEmail('victim');
    // The attacker signs up with the victim's address (sign-up does not verify emails).
    const squat = await t.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: victim, password: 'attacker-password', companyName: `Squat ${randomHex(4)}` },
    });
    expect(squat.statusCode, squat.body).toBe(201);
    const attacker = {
      userId: squat.json().data.user.id as string,
      accessToken: squat.json().data.accessToken as string,
      refreshToken: cookieOf(squat, 'refresh_token')!.value,
    };

    const tenant = await createTenant(t);
    const { token } = await emailedInvite(tenant, { email: victim, role: 'EDITOR' });
    // The victim follows the mailed invite with the password they mean to use: refused.
    expectError(await accept({ token, password: 'victim-password' }), 401, 'AUTH_INVALID_CREDENTIALS');
    expect(await membershipOf(tenant.tenantId, attacker.userId)).toBeUndefined();

    // The mail proves the address: the victim resets the password of the account.
    const requested = await t.inject({
      method: 'POST',
      url: '/api/auth/password-reset/request',
      payload: { email: victim },
    });
    expect(requested.statusCode).toBe(202);
    await deliverPasswordResets(t.deps); // the worker's run
    await expect
      .poll(
        async () =>
          (await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, victim))).filter((m) =>
            m.body.includes('/reset-password/'),
          ).length,
        { timeout: 3000, interval: 25 },
      )
      .toBe(1);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, victim));
    const resetToken = mail!.body.match(/\/reset-password\/([\w-]+)/)![1]!;
    const confirmed = await t.inject({
      method: 'POST',
      url: '/api/auth/password-reset/confirm',
      payload: { token: resetToken, password: 'victim-password' },
    });
    expect(confirmed.statusCode, confirmed.body).toBe(200);

    // The attacker's sessions are over.
    expectError(
      await t.inject({
        method: 'GET',
        url: '/api/auth/me',
        headers: { authorization: `Bearer ${attacker.accessToken}` },
      }),
      401,
      'AUTH_TOKEN_REVOKED',
    );
    expectError(
      await t.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        cookies: { refresh_token: attacker.refreshToken },
      }),
      401,
      'AUTH_INVALID_REFRESH_TOKEN',
    );
    expectError(
      await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email: victim, password: 'attacker-password' },
      }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );

    // Now the victim accepts with the new password and is the member.
    const res = await accept({ token, password: 'victim-password' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      user: { id: attacker.userId, email: victim },
      tenant: { id: tenant.tenantId },
      role: 'EDITOR',
    });
    expect(await membershipOf(tenant.tenantId, attacker.userId)).toMatchObject({
      isPending: false,
      role: 'EDITOR',
    });
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
      const [joined] = await db()
        .select()
        .from(auditLogs)
        .where(
          and(
            eq(auditLogs.tenantId, tenant.tenantId),
            eq(auditLogs.action, 'MEMBER_JOINED'),
            eq(auditLogs.actorId, data.user.id),
          ),
        );
      expect(joined).toMatchObject({
        entityType: 'member',
        entityId: (await membershipOf(tenant.tenantId, data.user.id))!.id,
        metadata: { via: 'link', role: 'EDITOR', inviteLinkId: await linkIdOf(token) },
      });
    }
    t.clock.set(Date.now() + 7 * DAY + 1000);
    try {
      expectError(
        await accept({ token, email: uniqueEmail('invitee'), password: 'joined-by-link' }),
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
    const b = expectError(await accept({ token, email: uniqueEmail('invitee') }), 400, 'VALIDATION_ERROR');
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
    const [joined] = await auditEntries(t, tenant.tenantId, { action: 'MEMBER_JOINED' });
    expect(joined).toMatchObject({
      entityType: 'member',
      entityId: member.id,
      actorId: res.json().data.user.id,
      metadata: { via: 'link', role: 'VIEWER', inviteLinkId: await linkIdOf(link) },
    });
  });

  it('works only while its creator is still a member whose role ranks at least the link role', async () => {
    const join = (token: string) =>
      accept({ token, email: uniqueEmail('invitee'), password: 'joined-by-link' });
    const tenant = await createTenant(t);
    const admin = await tenant.as('ADMIN');
    const adminLink = await inviteLink(tenant, { role: 'ADMIN', createdBy: admin.userId });
    const editorLink = await inviteLink(tenant, { role: 'EDITOR', createdBy: admin.userId });
    expect((await join(adminLink)).statusCode).toBe(200);

    // demoted below the link's role: that link dies, the lower one still works
    await db().update(members).set({ role: 'EDITOR' }).where(eq(members.id, admin.memberId));
    expectError(await join(adminLink), 400, 'INVALID_INVITE_TOKEN');
    expect((await join(editorLink)).statusCode).toBe(200);
    await db().update(members).set({ role: 'VIEWER' }).where(eq(members.id, admin.memberId));
    expectError(await join(editorLink), 400, 'INVALID_INVITE_TOKEN');
    // promoted back: usable again (nothing was consumed)
    await db().update(members).set({ role: 'OWNER' }).where(eq(members.id, admin.memberId));
    expect((await join(adminLink)).statusCode).toBe(200);

    // removed from the tenant: every link they created dies, also for an existing account
    await db().delete(members).where(eq(members.id, admin.memberId));
    expectError(await join(editorLink), 400, 'INVALID_INVITE_TOKEN');
    const user = await existingUser();
    expectError(
      await accept({ token: editorLink, email: user.email, password: TEST_PASSWORD }),
      400,
      'INVALID_INVITE_TOKEN',
    );
    expect(await membershipOf(tenant.tenantId, user.id)).toBeUndefined();
  });

  it('refuses links without a creator, by a pending member, or by a member of another tenant only', async () => {
    const join = (token: string) =>
      accept({ token, email: uniqueEmail('invitee'), password: 'joined-by-link' });
    const tenant = await createTenant(t);
    const other = await createTenant(t);
    expectError(await join(await inviteLink(tenant, { createdBy: null })), 400, 'INVALID_INVITE_TOKEN');
    expectError(
      await join(await inviteLink(tenant, { createdBy: other.owner.userId })),
      400,
      'INVALID_INVITE_TOKEN',
    );
    const pendingUser = await existingUser();
    await db().insert(members).values({
      id: newId(),
      tenantId: tenant.tenantId,
      userId: pendingUser.id,
      email: pendingUser.email,
      role: 'OWNER',
      isPending: true,
    });
    expectError(
      await join(await inviteLink(tenant, { createdBy: pendingUser.id })),
      400,
      'INVALID_INVITE_TOKEN',
    );
    const viewer = await tenant.as('VIEWER');
    expect(
      (await join(await inviteLink(tenant, { role: 'VIEWER', createdBy: viewer.userId }))).statusCode,
    ).toBe(200);
  });

  it('answers INVALID_INVITE_TOKEN for an expired link', async () => {
    const tenant = await createTenant(t);
    const token = await inviteLink(tenant, { expiresAt: new Date(t.clock.now() - 1000) });
    expectError(
      await accept({ token, email: uniqueEmail('invitee'), password: 'long-enough-1' }),
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
