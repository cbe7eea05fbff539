import { and, desc, eq, sql } from 'drizzle-orm';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { cookieOf, createTenant, uniqueEmail } from '../../../test/helpers/factories.js';
import {
  auditLogs,
  mailOutbox,
  members,
  passwordResetRequests,
  passwordResets,
  sessions,
  tenants,
  users,
} from '../../db/schema/index.js';
import * as crypto from '../../platform/crypto.js';
import { newId } from '../../platform/ids.js';
import { provisionTenant } from '../tenants/provision.js';
import { deliverPasswordResets } from './password-reset.js';

// Wrap verifyPassword so a test can see that an unknown email still costs an argon2 verify.
vi.mock('../../platform/crypto.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../platform/crypto.js')>();
  return { ...original, verifyPassword: vi.fn(original.verifyPassword) };
});

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface SignedInBody {
  user: { id: string; email: string; name: string | null };
  tenant: { id: string; name: string; slug: string };
  role: string;
  accessToken: string;
}
const PASSWORD = 'a-good-password';

async function registerUser(
  body: Partial<{ email: string; password: string; name: string; companyName: string }> = {},
) {
  const payload = {
    email: uniqueEmail(),
    password: PASSWORD,
    name: 'Ada',
    companyName: `Company ${crypto.randomHex(5)}`,
    ...body,
  };
  const res = await t.inject({ method: 'POST', url: '/api/auth/register', payload });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as SignedInBody;
  return { res, data, payload, refreshToken: cookieOf(res, 'refresh_token')!.value };
}

const post = (url: string, payload?: unknown, extra: Record<string, unknown> = {}) =>
  t.inject({
    method: 'POST',
    url,
    ...(payload === undefined ? {} : { payload: payload as object }),
    ...extra,
  });
const login = (payload: Record<string, unknown>, headers: Record<string, string> = {}) =>
  post('/api/auth/login', payload, { headers });
const me = (opts: { bearer?: string; cookie?: string } = {}) =>
  t.inject({
    method: 'GET',
    url: '/api/auth/me',
    ...(opts.bearer ? { headers: { authorization: `Bearer ${opts.bearer}` } } : {}),
    ...(opts.cookie ? { cookies: { session_token: opts.cookie } } : {}),
  });
const refresh = (token?: string, via: 'cookie' | 'body' = 'cookie') =>
  via === 'cookie'
    ? post('/api/auth/refresh', undefined, token ? { cookies: { refresh_token: token } } : {})
    : post('/api/auth/refresh', { refreshToken: token });

const db = () => t.deps.database.db;
/** Runs `fn` with the service clock just past the refresh grace window of a rotation made now. */
async function afterGraceWindow(fn: () => Promise<void>) {
  t.clock.set(Date.now() + t.config.refreshGraceSeconds * 1000 + 1_000);
  try {
    await fn();
  } finally {
    t.clock.reset();
  }
}

const sessionRow = async (refreshToken: string) => {
  const [row] = await db()
    .select()
    .from(sessions)
    .where(eq(sessions.id, refreshToken.split('.')[0]!));
  return row!;
};

describe('POST /api/auth/register', () => {
  it('creates user, tenant, OWNER membership and session, and signs in', async () => {
    const { res, data, payload } = await registerUser({ email: 'New.Owner@Example.com', name: 'Grace' });
    expect(data).toEqual({
      user: { id: expect.any(String), email: 'new.owner@example.com', name: 'Grace' },
      tenant: { id: expect.any(String), name: payload.companyName, slug: expect.any(String) },
      role: 'OWNER',
      accessToken: expect.any(String),
    });
    expect(res.json().data.refreshToken).toBeUndefined();
    expect(cookieOf(res, 'session_token')!.value).toBe(data.accessToken);
    expect(cookieOf(res, 'refresh_token')!.value).toMatch(/^[0-9a-f-]{36}\.[\w-]+$/);

    const [user] = await db().select().from(users).where(eq(users.id, data.user.id));
    expect(user!.passwordHash).toMatch(/^\$argon2id\$/);
    expect(user!.authProvider).toBe('password');
    const [member] = await db().select().from(members).where(eq(members.userId, data.user.id));
    expect(member).toMatchObject({ tenantId: data.tenant.id, role: 'OWNER', isPending: false });

    const who = await me({ bearer: data.accessToken });
    expect(who.statusCode).toBe(200);
    expect(who.json().data).toEqual({ user: data.user, tenant: data.tenant, role: 'OWNER' });
  });

  it('answers EMAIL_EXISTS for an email in any case, creating nothing', async () => {
    const { payload } = await registerUser();
    const company = `Other ${crypto.randomHex(4)}`;
    const res = await post('/api/auth/register', {
      email: payload.email.toUpperCase(),
      password: PASSWORD,
      companyName: company,
    });
    expectError(res, 409, 'EMAIL_EXISTS');
    expect(await db().select().from(tenants).where(eq(tenants.name, company))).toHaveLength(0);
  });

  it('answers TENANT_EXISTS for a company name in any case, creating nothing', async () => {
    const { payload } = await registerUser();
    const email = uniqueEmail();
    const res = await post('/api/auth/register', {
      email,
      password: PASSWORD,
      companyName: `  ${payload.companyName.toUpperCase()} `,
    });
    expectError(res, 409, 'TENANT_EXISTS');
    expect(await db().select().from(users).where(eq(users.email, email))).toHaveLength(0);
  });

  it('validates the body with exact paths', async () => {
    const ok = { email: uniqueEmail(), password: PASSWORD, companyName: 'X' };
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, email: 'not-an-email' }, 'email'],
      [{ ...ok, password: 'short77' }, 'password'],
      [{ ...ok, password: 'x'.repeat(129) }, 'password'],
      [{ ...ok, companyName: '   ' }, 'companyName'],
      [{ email: ok.email, password: PASSWORD }, 'companyName'],
    ];
    for (const [payload, path] of cases) {
      const error = expectError(await post('/api/auth/register', payload), 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([{ path, message: expect.any(String) }]);
    }
    // exactly 8 and 128 characters are fine
    await registerUser({ password: '12345678' });
    await registerUser({ password: 'p'.repeat(128) });
  });

  it('answers 500 REGISTRATION_FAILED on an unexpected failure, leaking nothing and keeping nothing', async () => {
    await t.deps.database.query(
      'alter table sessions add constraint sessions_test_fail check (false) not valid',
    );
    try {
      const email = uniqueEmail();
      const companyName = `Doomed ${crypto.randomHex(4)}`;
      const res = await post('/api/auth/register', { email, password: PASSWORD, companyName });
      const error = expectError(res, 500, 'REGISTRATION_FAILED');
      expect(error.message).toBe('Registration could not complete');
      expect(res.body).not.toMatch(/sessions|constraint|insert/i);
      expect(await db().select().from(users).where(eq(users.email, email))).toHaveLength(0);
      expect(await db().select().from(tenants).where(eq(tenants.name, companyName))).toHaveLength(0);
    } finally {
      await t.deps.database.query('alter table sessions drop constraint sessions_test_fail');
    }
  });
});

describe('POST /api/auth/login', () => {
  it('signs in with the register body shape and sets both cookies with the right attributes', async () => {
    const { data, payload } = await registerUser();
    const res = await login({ email: payload.email, password: PASSWORD });
    expect(res.statusCode).toBe(200);
    const body = res.json().data as SignedInBody;
    expect(body).toEqual({ ...data, accessToken: expect.any(String) });

    const session = cookieOf(res, 'session_token')!;
    expect(session).toMatchObject({
      value: body.accessToken,
      httpOnly: true,
      sameSite: 'Lax',
      path: '/',
      maxAge: t.config.accessTokenTtlSeconds,
    });
    expect(session.secure).toBeFalsy();
    const refreshCookie = cookieOf(res, 'refresh_token')!;
    expect(refreshCookie).toMatchObject({
      httpOnly: true,
      sameSite: 'Lax',
      path: '/api/auth',
      maxAge: t.config.refreshTokenTtlSeconds,
    });
    const raw = ([] as string[]).concat(res.headers['set-cookie'] as string | string[]);
    expect(raw.find((c) => c.startsWith('session_token='))).toMatch(
      /; Max-Age=900; Path=\/; HttpOnly; SameSite=Lax$/,
    );
    expect(raw.join('\n')).not.toMatch(/Secure/);
  });

  it('compares the email case-insensitively', async () => {
    const { payload } = await registerUser();
    expect((await login({ email: payload.email.toUpperCase(), password: PASSWORD })).statusCode).toBe(200);
  });

  it('answers the same AUTH_INVALID_CREDENTIALS for an unknown email and a wrong password', async () => {
    const { payload } = await registerUser();
    const wrong = expectError(
      await login({ email: payload.email, password: 'wrong-password' }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    const verify = vi.mocked(crypto.verifyPassword);
    verify.mockClear();
    const unknown = expectError(
      await login({ email: uniqueEmail('ghost'), password: 'wrong-password' }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    expect(unknown).toEqual(wrong);
    // the unknown email still paid for an argon2id verify (no timing oracle)
    expect(verify).toHaveBeenCalledTimes(1);
    expect(verify.mock.calls[0]![0]).toMatch(/^\$argon2id\$/);
  });

  it('answers AUTH_PROVIDER_MISMATCH for an account registered with Google', async () => {
    const email = uniqueEmail('google');
    const userId = newId();
    await db().transaction(async (tx) => {
      await tx.insert(users).values({ id: userId, email, authProvider: 'google', googleSubject: 'g-1' });
      await provisionTenant(tx, { name: `G ${crypto.randomHex(4)}`, owner: { userId, email }, plan: 'free' });
    });
    expectError(await login({ email, password: PASSWORD }), 401, 'AUTH_PROVIDER_MISMATCH');
  });

  it('picks the oldest accepted membership by default, or the tenant asked for', async () => {
    const { data, payload } = await registerUser();
    const second = await createTenant(t);
    await db().insert(members).values({
      id: newId(),
      tenantId: second.tenantId,
      userId: data.user.id,
      email: payload.email,
      role: 'EDITOR',
    });
    const byDefault = await login({ email: payload.email, password: PASSWORD });
    expect(byDefault.json().data).toMatchObject({ tenant: { id: data.tenant.id }, role: 'OWNER' });
    const picked = await login({ email: payload.email, password: PASSWORD, tenantId: second.tenantId });
    expect(picked.json().data).toMatchObject({ tenant: { id: second.tenantId }, role: 'EDITOR' });
    const who = await me({ bearer: picked.json().data.accessToken });
    expect(who.json().data).toMatchObject({ tenant: { id: second.tenantId }, role: 'EDITOR' });

    const stranger = await createTenant(t);
    expectError(
      await login({ email: payload.email, password: PASSWORD, tenantId: stranger.tenantId }),
      401,
      'AUTH_INVALID_CREDENTIALS',
    );
    const bad = expectError(
      await login({ email: payload.email, password: PASSWORD, tenantId: 'nope' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(bad.details).toEqual([{ path: 'tenantId', message: expect.any(String) }]);
  });

  it('refuses a user whose only membership is a pending invite', async () => {
    const tenant = await createTenant(t);
    const email = uniqueEmail('pending');
    const userId = newId();
    await db()
      .insert(users)
      .values({ id: userId, email, passwordHash: await crypto.hashPassword(PASSWORD) });
    await db().insert(members).values({
      id: newId(),
      tenantId: tenant.tenantId,
      userId,
      email,
      role: 'VIEWER',
      isPending: true,
    });
    expectError(await login({ email, password: PASSWORD }), 401, 'AUTH_INVALID_CREDENTIALS');
  });

  it('writes USER_LOGIN with the user as actor and the user agent', async () => {
    const { data, payload } = await registerUser();
    const res = await login({ email: payload.email, password: PASSWORD }, { 'user-agent': 'vitest-agent/1' });
    expect(res.statusCode).toBe(200);
    const [row] = await db()
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, data.tenant.id), eq(auditLogs.action, 'USER_LOGIN')))
      .orderBy(desc(auditLogs.createdAt), desc(auditLogs.id))
      .limit(1);
    expect(row).toMatchObject({
      actorId: data.user.id,
      entityType: 'user',
      entityId: data.user.id,
      ipAddress: '127.0.0.1',
      metadata: { userAgent: 'vitest-agent/1', method: 'password' },
    });
    // the session id would let anyone reading the audit log aim at the session
    expect(row!.metadata).not.toHaveProperty('sessionId');
  });

  it('validates the body', async () => {
    for (const [payload, path] of [
      [{ password: 'x' }, 'email'],
      [{ email: 'a@b.co' }, 'password'],
      [{ email: 'a@b.co', password: '' }, 'password'],
    ] as const) {
      const error = expectError(await login(payload), 400, 'VALIDATION_ERROR');
      expect(error.details).toEqual([{ path, message: expect.any(String) }]);
    }
  });
});

describe('access tokens on dashboard routes', () => {
  it('accepts the token from the Bearer header and from the session_token cookie', async () => {
    const { data, res } = await registerUser();
    expect((await me({ bearer: data.accessToken })).statusCode).toBe(200);
    expect((await me({ cookie: cookieOf(res, 'session_token')!.value })).statusCode).toBe(200);
  });

  it('answers AUTH_NO_TOKEN without a token', async () => {
    expectError(await me(), 401, 'AUTH_NO_TOKEN');
    expectError(await post('/api/auth/logout'), 401, 'AUTH_NO_TOKEN');
  });

  it('answers AUTH_INVALID_TOKEN for garbage, a foreign signature and an expired token', async () => {
    const { data } = await registerUser();
    expectError(await me({ bearer: 'garbage' }), 401, 'AUTH_INVALID_TOKEN');
    expectError(await me({ cookie: 'garbage.also.garbage' }), 401, 'AUTH_INVALID_TOKEN');
    const [, payload] = data.accessToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const sign = (secret: string, exp: number) =>
      new SignJWT({ tid: claims.tid, sid: claims.sid, typ: 'access' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(claims.sub)
        .setIssuedAt(exp - 900)
        .setExpirationTime(exp)
        .sign(new TextEncoder().encode(secret));
    const nowSec = Math.floor(Date.now() / 1000);
    // the same claims signed with the real secret work: only the expiry or the key differ below
    expect((await me({ bearer: await sign(t.config.jwtSecret, nowSec + 60) })).statusCode).toBe(200);
    expectError(await me({ bearer: await sign(t.config.jwtSecret, nowSec - 5) }), 401, 'AUTH_INVALID_TOKEN');
    expectError(
      await me({ bearer: await sign('another-secret-0123456789abcdef0123456789', nowSec + 60) }),
      401,
      'AUTH_INVALID_TOKEN',
    );
  });

  it('lets an access token lapse after the configured TTL', async () => {
    const short = await createTestApp({ db: t.db, config: { accessTokenTtlSeconds: 1 } });
    try {
      const res = await short.inject({
        method: 'POST',
        url: '/api/auth/register',
        payload: { email: uniqueEmail(), password: PASSWORD, companyName: `Short ${crypto.randomHex(4)}` },
      });
      expect(cookieOf(res, 'session_token')!.maxAge).toBe(1);
      const token = res.json().data.accessToken as string;
      const headers = { authorization: `Bearer ${token}` };
      expect((await short.inject({ method: 'GET', url: '/api/auth/me', headers })).statusCode).toBe(200);
      await new Promise((r) => setTimeout(r, 2100));
      expectError(
        await short.inject({ method: 'GET', url: '/api/auth/me', headers }),
        401,
        'AUTH_INVALID_TOKEN',
      );
      // the refresh token still gets a fresh access token
      const renewed = await short.inject({
        method: 'POST',
        url: '/api/auth/refresh',
        cookies: { refresh_token: cookieOf(res, 'refresh_token')!.value },
      });
      expect(renewed.statusCode).toBe(200);
    } finally {
      await short.close();
    }
  });
});

describe('GET /api/auth/me', () => {
  it('answers user, tenant and role for any member role', async () => {
    const tenant = await createTenant(t, { name: `Me ${crypto.randomHex(4)}` });
    const viewer = await tenant.as('VIEWER');
    const res = await t.inject({ method: 'GET', url: '/api/auth/me', headers: viewer.headers });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      data: {
        user: { id: viewer.userId, email: viewer.email, name: 'VIEWER' },
        tenant: { id: tenant.tenantId, name: tenant.name, slug: expect.any(String) },
        role: 'VIEWER',
      },
    });
  });
});

describe('POST /api/auth/refresh', () => {
  it('rotates the refresh token from the cookie and sets both cookies again', async () => {
    const { refreshToken } = await registerUser();
    const before = await sessionRow(refreshToken);
    const res = await refresh(refreshToken);
    expect(res.statusCode).toBe(200);
    const accessToken = res.json().data.accessToken as string;
    expect(res.json()).toEqual({ data: { accessToken: expect.any(String) } });
    expect(cookieOf(res, 'session_token')).toMatchObject({ value: accessToken, path: '/', httpOnly: true });
    const next = cookieOf(res, 'refresh_token')!;
    expect(next).toMatchObject({ path: '/api/auth', httpOnly: true, sameSite: 'Lax' });
    expect(next.value).not.toBe(refreshToken);
    expect(next.value.split('.')[0]).toBe(refreshToken.split('.')[0]);

    const after = await sessionRow(refreshToken);
    expect(after.refreshTokenHash).toBe(crypto.sha256(next.value.split('.')[1]!));
    expect(after.refreshTokenHash).not.toBe(before.refreshTokenHash);
    expect(after.rotatedAt).toBeInstanceOf(Date);
    expect(after.previousRefreshTokenHash).toBe(before.refreshTokenHash);
    expect(JSON.stringify(after)).not.toContain(next.value.split('.')[1]);
    expect((await me({ bearer: accessToken })).statusCode).toBe(200);
    // the new one rotates again
    expect((await refresh(next.value)).statusCode).toBe(200);
  });

  it('accepts the token in the body for non-browser clients', async () => {
    const { refreshToken } = await registerUser();
    const res = await refresh(refreshToken, 'body');
    expect(res.statusCode).toBe(200);
    expect((await me({ bearer: res.json().data.accessToken })).statusCode).toBe(200);
  });

  it('answers AUTH_NO_REFRESH_TOKEN without a token', async () => {
    expectError(await refresh(), 401, 'AUTH_NO_REFRESH_TOKEN');
    expectError(await post('/api/auth/refresh', {}), 401, 'AUTH_NO_REFRESH_TOKEN');
  });

  it('answers AUTH_INVALID_REFRESH_TOKEN for malformed and unknown tokens', async () => {
    for (const token of [
      'garbage',
      'not-a-uuid.abcdefghijklmnopqrstuvwxyz',
      `${newId()}.abcdefghijklmnopqrstuv`,
    ]) {
      expectError(await refresh(token), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    }
  });

  it('answers AUTH_INVALID_REFRESH_TOKEN once the refresh token has expired', async () => {
    const { refreshToken } = await registerUser();
    t.clock.set(Date.now() + t.config.refreshTokenTtlSeconds * 1000 + 1000);
    try {
      expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('revokes the whole session when an already rotated token is used again after the grace window', async () => {
    const { refreshToken, data } = await registerUser();
    const first = await refresh(refreshToken);
    const rotated = cookieOf(first, 'refresh_token')!.value;
    const access = first.json().data.accessToken as string;
    expect((await me({ bearer: access })).statusCode).toBe(200);

    await afterGraceWindow(async () => {
      expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    });
    const row = await sessionRow(refreshToken);
    expect(row.revokedAt).toBeInstanceOf(Date);
    expect(row.revokedReason).toBe('refresh_reuse');
    // every token of the session is dead: the current refresh token and all access tokens
    expectError(await refresh(rotated), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    expectError(await me({ bearer: access }), 401, 'AUTH_TOKEN_REVOKED');
    expectError(await me({ bearer: data.accessToken }), 401, 'AUTH_TOKEN_REVOKED');
  });

  it('refuses a forged secret for a known session id without revoking the session', async () => {
    const { refreshToken, data } = await registerUser();
    const sessionId = refreshToken.split('.')[0]!;
    const forged = () => `${sessionId}.${crypto.randomToken(32)}`;
    expectError(await refresh(forged()), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    expect((await sessionRow(refreshToken)).revokedAt).toBeNull();
    expect((await me({ bearer: data.accessToken })).statusCode).toBe(200);

    // also after rotations, and for a token older than the last one rotated away
    const first = await refresh(refreshToken);
    expect(first.statusCode).toBe(200);
    const second = await refresh(cookieOf(first, 'refresh_token')!.value);
    expect(second.statusCode).toBe(200);
    expectError(await refresh(forged()), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    expect((await sessionRow(refreshToken)).revokedAt).toBeNull();
    const current = cookieOf(second, 'refresh_token')!.value;
    const third = await refresh(current);
    expect(third.statusCode).toBe(200);
    expect((await me({ bearer: third.json().data.accessToken })).statusCode).toBe(200);

    // the token rotated away last, presented again after the grace window, is a replay
    await afterGraceWindow(async () => {
      expectError(await refresh(current), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    });
    expect((await sessionRow(refreshToken)).revokedReason).toBe('refresh_reuse');
  });

  it('answers two concurrent refreshes with the same token with the same new pair, rotating once', async () => {
    let { refreshToken } = await registerUser();
    for (let round = 0; round < 5; round++) {
      const before = await sessionRow(refreshToken);
      const results = await Promise.all([refresh(refreshToken), refresh(refreshToken)]);
      for (const r of results) expect(r.statusCode, r.body).toBe(200);
      const [a, b] = results.map((r) => ({
        refresh: cookieOf(r, 'refresh_token')!.value,
        access: r.json().data.accessToken as string,
      }));
      expect(a).toEqual(b);
      const row = await sessionRow(refreshToken);
      // rotated once, to that token; the second was a race, not a replay
      expect(row.refreshTokenHash).toBe(crypto.sha256(a!.refresh.split('.')[1]!));
      expect(row.previousRefreshTokenHash).toBe(before.refreshTokenHash);
      expect(row.revokedAt).toBeNull();
      expect((await me({ bearer: a!.access })).statusCode).toBe(200);
      refreshToken = a!.refresh;
    }
    // replaying a token after its rotation and the grace window is still reuse
    const next = await refresh(refreshToken);
    expect(next.statusCode).toBe(200);
    await afterGraceWindow(async () => {
      expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    });
    expect((await sessionRow(refreshToken)).revokedReason).toBe('refresh_reuse');
  });

  describe('grace window (REFRESH_GRACE_SECONDS)', () => {
    it('answers the token rotated away last, presented again within the window, with the same pair', async () => {
      const { refreshToken } = await registerUser();
      const first = await refresh(refreshToken);
      const again = await refresh(refreshToken);
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(first.json());
      expect(cookieOf(again, 'refresh_token')!.value).toBe(cookieOf(first, 'refresh_token')!.value);
      expect(cookieOf(again, 'session_token')!.value).toBe(first.json().data.accessToken);
      const row = await sessionRow(refreshToken);
      expect(row.revokedAt).toBeNull();
      // nothing rotated a second time: the pair's refresh token is still the current one
      expect(row.refreshTokenHash).toBe(
        crypto.sha256(cookieOf(first, 'refresh_token')!.value.split('.')[1]!),
      );
      // and it rotates on as usual
      const next = await refresh(cookieOf(first, 'refresh_token')!.value);
      expect(next.statusCode).toBe(200);
      expect(cookieOf(next, 'refresh_token')!.value).not.toBe(cookieOf(first, 'refresh_token')!.value);
    });

    it('ends with the window: the same replay after it revokes the session', async () => {
      const { refreshToken } = await registerUser();
      const first = await refresh(refreshToken);
      // just inside: still the same pair
      t.clock.set(Date.now() + t.config.refreshGraceSeconds * 1000 - 1_000);
      try {
        expect((await refresh(refreshToken)).json()).toEqual(first.json());
      } finally {
        t.clock.reset();
      }
      await afterGraceWindow(async () => {
        expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
      });
      expect((await sessionRow(refreshToken)).revokedReason).toBe('refresh_reuse');
      expectError(await me({ bearer: first.json().data.accessToken }), 401, 'AUTH_TOKEN_REVOKED');
    });

    it('does not answer a token two rotations old, and does not revoke for it either', async () => {
      const { refreshToken } = await registerUser();
      const first = await refresh(refreshToken);
      const second = await refresh(cookieOf(first, 'refresh_token')!.value);
      expect(second.statusCode).toBe(200);
      expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
      expect((await sessionRow(refreshToken)).revokedAt).toBeNull();
      // the one rotated away last is still within its own window
      expect((await refresh(cookieOf(first, 'refresh_token')!.value)).json()).toEqual(second.json());
    });

    it('answers nothing for a logged-out session or an ended membership', async () => {
      const a = await registerUser();
      const first = await refresh(a.refreshToken);
      const logout = await post('/api/auth/logout', undefined, {
        headers: { authorization: `Bearer ${first.json().data.accessToken}` },
      });
      expect(logout.statusCode).toBe(204);
      expectError(await refresh(a.refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');

      const b = await registerUser();
      await refresh(b.refreshToken);
      await db().delete(members).where(eq(members.userId, b.data.user.id));
      expectError(await refresh(b.refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
      expect((await sessionRow(b.refreshToken)).revokedAt).toBeNull();
    });

    it('is off with REFRESH_GRACE_SECONDS=0: a replay revokes at once, a lost race is refused without revoking', async () => {
      const strict = await createTestApp({ config: { refreshGraceSeconds: 0 } });
      try {
        const refreshOn = (token: string) =>
          strict.inject({ method: 'POST', url: '/api/auth/refresh', cookies: { refresh_token: token } });
        const register = async () => {
          const res = await strict.inject({
            method: 'POST',
            url: '/api/auth/register',
            payload: { email: uniqueEmail(), password: PASSWORD, companyName: `Co ${crypto.randomHex(5)}` },
          });
          return cookieOf(res, 'refresh_token')!.value;
        };
        let token = await register();
        for (let round = 0; round < 3; round++) {
          const results = await Promise.all([refreshOn(token), refreshOn(token)]);
          const winners = results.filter((r) => r.statusCode === 200);
          expect(winners).toHaveLength(1);
          expectError(results.find((r) => r.statusCode !== 200)!, 401, 'AUTH_INVALID_REFRESH_TOKEN');
          token = cookieOf(winners[0]!, 'refresh_token')!.value;
        }
        const old = await register();
        expect((await refreshOn(old)).statusCode).toBe(200);
        expectError(await refreshOn(old), 401, 'AUTH_INVALID_REFRESH_TOKEN');
        const [row] = await strict.deps.database.db
          .select()
          .from(sessions)
          .where(eq(sessions.id, old.split('.')[0]!));
        expect(row!.revokedReason).toBe('refresh_reuse');
      } finally {
        await strict.close();
      }
    });
  });

  it('refuses to refresh a session whose membership has ended', async () => {
    const { refreshToken, data } = await registerUser();
    await db().delete(members).where(eq(members.userId, data.user.id));
    expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
  });
});

describe('POST /api/auth/logout', () => {
  it('revokes the session, clears both cookies and writes USER_LOGOUT', async () => {
    const { data, refreshToken } = await registerUser();
    const res = await post('/api/auth/logout', undefined, {
      headers: { authorization: `Bearer ${data.accessToken}` },
      cookies: { refresh_token: refreshToken },
    });
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    for (const [name, path] of [
      ['session_token', '/'],
      ['refresh_token', '/api/auth'],
    ]) {
      const c = cookieOf(res, name!)!;
      expect(c).toMatchObject({ value: '', path, httpOnly: true });
      expect((c.expires as Date).getTime()).toBeLessThanOrEqual(Date.now());
    }
    expectError(await me({ bearer: data.accessToken }), 401, 'AUTH_TOKEN_REVOKED');
    expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    expectError(
      await post('/api/auth/logout', undefined, { headers: { authorization: `Bearer ${data.accessToken}` } }),
      401,
      'AUTH_TOKEN_REVOKED',
    );
    const row = await sessionRow(refreshToken);
    expect(row.revokedReason).toBe('logout');
    const audit = await db()
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, data.tenant.id), eq(auditLogs.action, 'USER_LOGOUT')));
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actorId: data.user.id, entityType: 'user', entityId: data.user.id });
    expect(audit[0]!.metadata).not.toHaveProperty('sessionId');
  });

  it('works with the cookie alone and leaves the other sessions of the user alive', async () => {
    const { res, payload } = await registerUser();
    const other = await login({ email: payload.email, password: PASSWORD });
    const out = await post('/api/auth/logout', undefined, {
      cookies: { session_token: cookieOf(res, 'session_token')!.value },
    });
    expect(out.statusCode).toBe(204);
    expect((await me({ bearer: other.json().data.accessToken })).statusCode).toBe(200);
  });

  it('is open to every role', async () => {
    const tenant = await createTenant(t);
    const viewer = await tenant.as('VIEWER');
    expect((await post('/api/auth/logout', undefined, { headers: viewer.headers })).statusCode).toBe(204);
  });
});

describe('password reset', () => {
  /** The worker's run (in production every 2 s, never woken by the route). */
  const deliver = () => deliverPasswordResets(t.deps);
  const latestMail = async (to: string) => {
    await deliver();
    const [mail] = await db()
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.recipient, to))
      .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
      .limit(1);
    expect(mail, `a mail to ${to}`).toBeDefined();
    return mail!;
  };
  const tokenFrom = (body: string) => {
    const match = body.match(/\/reset-password\/([\w-]+)/);
    expect(match).not.toBeNull();
    return match![1]!;
  };
  const queued = (email: string) =>
    db().select().from(passwordResetRequests).where(eq(passwordResetRequests.email, email));

  it('resets end to end: mail with a link, new password works, old fails, sessions end', async () => {
    const { data, payload, refreshToken } = await registerUser();
    const res = await post('/api/auth/password-reset/request', { email: payload.email.toUpperCase() });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ data: { accepted: true } });
    const mail = await latestMail(payload.email);
    expect(mail.body).toContain(`${t.config.appUrl}/reset-password/`);
    const token = tokenFrom(mail.body);
    const [stored] = await db().select().from(passwordResets).where(eq(passwordResets.userId, data.user.id));
    expect(stored!.tokenHash).toBe(crypto.sha256(token));
    expect(stored!.expiresAt.getTime() - stored!.createdAt.getTime()).toBeGreaterThan(59 * 60_000);
    expect(stored!.expiresAt.getTime() - Date.now()).toBeLessThanOrEqual(3600_000);

    const confirm = await post('/api/auth/password-reset/confirm', { token, password: 'brand-new-password' });
    expect(confirm.statusCode).toBe(200);
    expect(confirm.json()).toEqual({ data: { success: true } });

    expectError(await login({ email: payload.email, password: PASSWORD }), 401, 'AUTH_INVALID_CREDENTIALS');
    expect((await login({ email: payload.email, password: 'brand-new-password' })).statusCode).toBe(200);
    expectError(await me({ bearer: data.accessToken }), 401, 'AUTH_TOKEN_REVOKED');
    expectError(await refresh(refreshToken), 401, 'AUTH_INVALID_REFRESH_TOKEN');
    expect((await sessionRow(refreshToken)).revokedReason).toBe('password_reset');
    const [user] = await db().select().from(users).where(eq(users.id, data.user.id));
    expect(user!.passwordHash).toMatch(/^\$argon2id\$/);

    // single use
    expectError(
      await post('/api/auth/password-reset/confirm', { token, password: 'another-password' }),
      400,
      'INVALID_RESET_TOKEN',
    );
  });

  it('does the same work on the request path for known and unknown emails: it only queues the request', async () => {
    const { data, payload } = await registerUser();
    const unknown = uniqueEmail('nobody');
    const database = t.deps.database.db;
    // Every statement the request path runs, by kind (the route reads nothing about accounts).
    const calls: string[] = [];
    const spies = (['select', 'insert', 'update', 'delete', 'execute', 'transaction'] as const).map(
      (kind) => {
        const original = (database[kind] as (...args: unknown[]) => unknown).bind(database);
        return vi.spyOn(database, kind).mockImplementation(((...args: unknown[]) => {
          calls.push(kind);
          return original(...args);
        }) as never);
      },
    );
    const statements: Record<string, string[]> = {};
    try {
      for (const email of [payload.email, unknown]) {
        calls.length = 0;
        const res = await post('/api/auth/password-reset/request', { email });
        expect(res.statusCode).toBe(202);
        expect(res.json()).toEqual({ data: { accepted: true } });
        statements[email] = [...calls];
      }
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expect(statements[payload.email]).toEqual(['insert']);
    expect(statements[unknown]).toEqual(['insert']);
    // nothing issued yet: both requests wait in the queue, as typed
    expect(
      await db().select().from(passwordResets).where(eq(passwordResets.userId, data.user.id)),
    ).toHaveLength(0);
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, payload.email))).toHaveLength(
      0,
    );
    expect(await queued(payload.email)).toHaveLength(1);
    expect(await queued(unknown)).toHaveLength(1);

    // the worker issues the known one, drops the unknown one, and empties the queue
    expect(await deliver()).toBeGreaterThanOrEqual(2);
    expect(await queued(payload.email)).toHaveLength(0);
    expect(await queued(unknown)).toHaveLength(0);
    expect(
      await db().select().from(passwordResets).where(eq(passwordResets.userId, data.user.id)),
    ).toHaveLength(1);
    expect((await latestMail(payload.email)).body).toContain('/reset-password/');
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, unknown))).toHaveLength(0);
  });

  it('is done by the password-resets worker on its interval, not woken by the request', async () => {
    const worker = t.deps.modules.jobs.find((job) => job.name === 'password-resets');
    expect(worker).toBeDefined();
    const { payload } = await registerUser();
    expect((await post('/api/auth/password-reset/request', { email: payload.email })).statusCode).toBe(202);
    await worker!.run(t.deps);
    expect(await queued(payload.email)).toHaveLength(0);
    expect((await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, payload.email))).length).toBe(
      1,
    );
  });

  it('answers 202 whatever the worker meets later, which logs a failed request and goes on', async () => {
    const first = await registerUser();
    const second = await registerUser();
    const database = t.deps.database.db;
    const insert = database.insert.bind(database);
    const failure = new Error('simulated insert failure');
    let failed = false;
    const spy = vi.spyOn(database, 'insert').mockImplementation(((table: Parameters<typeof insert>[0]) => {
      if (table === passwordResets && !failed) {
        failed = true;
        throw failure;
      }
      return insert(table);
    }) as unknown as typeof database.insert);
    const logged = vi.spyOn(t.deps.log, 'error');
    try {
      for (const { payload } of [first, second]) {
        const res = await post('/api/auth/password-reset/request', { email: payload.email });
        expect(res.statusCode).toBe(202);
      }
      await deliver();
      expect(logged.mock.calls.some(([arg]) => (arg as { err?: unknown })?.err === failure)).toBe(true);
    } finally {
      spy.mockRestore();
      logged.mockRestore();
    }
    // the failed one is dropped (the user asks again), the next one is delivered
    expect(await queued(first.payload.email)).toHaveLength(0);
    expect(
      await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, first.payload.email)),
    ).toHaveLength(0);
    expect((await latestMail(second.payload.email)).body).toContain('/reset-password/');
  });

  it('answers 202 for an unknown email and sends nothing', async () => {
    const email = uniqueEmail('nobody');
    const res = await post('/api/auth/password-reset/request', { email });
    expect(res.statusCode).toBe(202);
    expect(res.json()).toEqual({ data: { accepted: true } });
    await deliver();
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).toHaveLength(0);
  });

  it('sends nothing for a Google account', async () => {
    const email = uniqueEmail('google');
    await db().insert(users).values({ id: newId(), email, authProvider: 'google', googleSubject: 'g-2' });
    expect((await post('/api/auth/password-reset/request', { email })).statusCode).toBe(202);
    await deliver();
    expect(await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, email))).toHaveLength(0);
  });

  it('answers INVALID_RESET_TOKEN for unknown and expired tokens', async () => {
    expectError(
      await post('/api/auth/password-reset/confirm', { token: 'unknown-token', password: 'whatever-123' }),
      400,
      'INVALID_RESET_TOKEN',
    );
    const { payload } = await registerUser();
    await post('/api/auth/password-reset/request', { email: payload.email });
    const token = tokenFrom((await latestMail(payload.email)).body);
    t.clock.set(Date.now() + 3600_000 + 1000);
    try {
      expectError(
        await post('/api/auth/password-reset/confirm', { token, password: 'whatever-123' }),
        400,
        'INVALID_RESET_TOKEN',
      );
    } finally {
      t.clock.set(Date.now());
    }
    expect((await login({ email: payload.email, password: PASSWORD })).statusCode).toBe(200);
  });

  it('validates the bodies', async () => {
    const a = expectError(
      await post('/api/auth/password-reset/request', { email: 'x' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(a.details).toEqual([{ path: 'email', message: expect.any(String) }]);
    const b = expectError(
      await post('/api/auth/password-reset/confirm', { token: 't', password: 'short' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(b.details).toEqual([{ path: 'password', message: expect.any(String) }]);
    const c = expectError(
      await post('/api/auth/password-reset/confirm', { password: 'long-enough' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(c.details).toEqual([{ path: 'token', message: expect.any(String) }]);
  });
});

describe('Google sign-in without configuration', () => {
  it('answers 500 EXTERNAL_SERVICE_ERROR naming GOOGLE_CLIENT_ID', async () => {
    expect(t.config.google.clientId).toBeUndefined();
    const error = expectError(
      await post('/api/auth/google', { idToken: 'x.y.z' }),
      500,
      'EXTERNAL_SERVICE_ERROR',
    );
    expect(error.message).toMatch(/GOOGLE_CLIENT_ID/);
  });
});

describe('rate limits and secure cookies', () => {
  let limited: TestApp;
  beforeAll(async () => {
    limited = await createTestApp({
      db: t.db,
      config: { cookieSecure: true, rateLimits: { auth: 10, refresh: 20 } as never },
    });
  });
  afterAll(() => limited.close());

  it('marks cookies Secure when configured', async () => {
    const res = await limited.inject({
      method: 'POST',
      url: '/api/auth/register',
      payload: { email: uniqueEmail(), password: PASSWORD, companyName: `Sec ${crypto.randomHex(4)}` },
      remoteAddress: '10.9.9.9',
    });
    expect(res.statusCode).toBe(201);
    expect(cookieOf(res, 'session_token')!.secure).toBe(true);
    expect(cookieOf(res, 'refresh_token')!.secure).toBe(true);
  });

  it('refuses the 11th auth request of a minute from one IP with 429 and Retry-After', async () => {
    const windowStart = Math.ceil(Date.now() / 60_000) * 60_000;
    limited.clock.set(windowStart);
    try {
      const attempt = (ip: string) =>
        limited.inject({
          method: 'POST',
          url: '/api/auth/login',
          payload: { email: 'nobody@example.com', password: 'wrong-password' },
          remoteAddress: ip,
        });
      for (let i = 1; i <= 10; i++) {
        const res = await attempt('10.1.2.3');
        expectError(res, 401, 'AUTH_INVALID_CREDENTIALS');
        expect(res.headers['ratelimit-limit']).toBe('10');
        expect(res.headers['ratelimit-remaining']).toBe(String(10 - i));
        expect(res.headers['ratelimit-reset']).toBe('60');
      }
      const refused = await attempt('10.1.2.3');
      expectError(refused, 429, 'RATE_LIMITED');
      expect(refused.headers['retry-after']).toBe('60');
      expect(refused.headers['ratelimit-remaining']).toBe('0');
      // the scope is shared by the auth routes, and counted per IP
      expectError(
        await limited.inject({
          method: 'POST',
          url: '/api/auth/password-reset/request',
          payload: { email: 'nobody@example.com' },
          remoteAddress: '10.1.2.3',
        }),
        429,
        'RATE_LIMITED',
      );
      expectError(await attempt('10.1.2.4'), 401, 'AUTH_INVALID_CREDENTIALS');
      // refresh has a scope of its own
      const r = await limited.inject({ method: 'POST', url: '/api/auth/refresh', remoteAddress: '10.1.2.3' });
      expectError(r, 401, 'AUTH_NO_REFRESH_TOKEN');
      expect(r.headers['ratelimit-limit']).toBe('20');
      // the next window starts afresh
      limited.clock.set(windowStart + 60_000);
      expectError(await attempt('10.1.2.3'), 401, 'AUTH_INVALID_CREDENTIALS');
    } finally {
      limited.clock.set(Date.now());
    }
  });
});

describe('storage', () => {
  it('never stores a refresh secret or a password in clear', async () => {
    const { data, refreshToken } = await registerUser();
    const rows = await db().select().from(sessions).where(eq(sessions.userId, data.user.id));
    expect(JSON.stringify(rows)).not.toContain(refreshToken.split('.')[1]);
    const [user] = await db()
      .select({ hash: users.passwordHash })
      .from(users)
      .where(sql`${users.id} = ${data.user.id}`);
    expect(user!.hash).not.toContain(PASSWORD);
  });
});
