import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { eq } from 'drizzle-orm';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { cookieOf, TEST_PASSWORD } from '../../../test/helpers/factories.js';
import { members, users } from '../../db/schema/index.js';
import { hashPassword, randomHex, sha256 } from '../../platform/crypto.js';
import { newId } from '../../platform/ids.js';

/**
 * Google sign-in against a local JWKS: an RS256 key pair of our own, served from loopback,
 * with the app configured to trust it for client id `test-client`.
 */
const CLIENT_ID = 'test-client';
const KID = 'test-key-1';

let t: TestApp;
let server: Server;
let jwksUrl: string;
let privateKey: CryptoKey;
let jwksHits = 0;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  server = createServer((_req, res) => {
    jwksHits++;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/certs`;
  t = await createTestApp({ config: { google: { clientId: CLIENT_ID, jwksUrl } } });
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => server.close(resolve));
});

interface TokenOptions {
  claims?: JWTPayload & Record<string, unknown>;
  audience?: string;
  issuer?: string;
  expiresAt?: number;
  key?: CryptoKey;
  kid?: string;
}

async function idToken(opts: TokenOptions = {}) {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({
    email: `g-${randomHex(5)}@gmail.com`,
    email_verified: true,
    name: 'Gail Google',
    ...opts.claims,
  })
    .setProtectedHeader({ alg: 'RS256', kid: opts.kid ?? KID })
    .setSubject((opts.claims?.sub as string | undefined) ?? `sub-${randomHex(8)}`)
    .setIssuer(opts.issuer ?? 'https://accounts.google.com')
    .setAudience(opts.audience ?? CLIENT_ID)
    .setIssuedAt(now - 10)
    .setExpirationTime(opts.expiresAt ?? now + 3600)
    .sign(opts.key ?? privateKey);
}

const google = (payload: Record<string, unknown>, app: TestApp = t) =>
  app.inject({ method: 'POST', url: '/api/auth/google', payload });

describe('POST /api/auth/google', () => {
  it('creates the account and a tenant on first sign-in (201), then signs in (200)', async () => {
    const sub = `sub-${randomHex(8)}`;
    const email = `ada-${randomHex(4)}@gmail.com`;
    const companyName = `Gco ${randomHex(4)}`;
    const first = await google({
      idToken: await idToken({ claims: { sub, email: email.toUpperCase(), name: 'Ada L' } }),
      companyName,
    });
    expect(first.statusCode, first.body).toBe(201);
    const data = first.json().data;
    expect(data).toEqual({
      user: { id: expect.any(String), email, name: 'Ada L' },
      tenant: { id: expect.any(String), name: companyName, slug: expect.any(String) },
      role: 'OWNER',
      accessToken: expect.any(String),
    });
    expect(cookieOf(first, 'session_token')!.value).toBe(data.accessToken);
    expect(cookieOf(first, 'refresh_token')).toBeDefined();
    const [user] = await db().select().from(users).where(eq(users.id, data.user.id));
    expect(user).toMatchObject({ authProvider: 'google', googleSubject: sub, passwordHash: null });

    const again = await google({ idToken: await idToken({ claims: { sub, email, name: 'Ada L' } }) });
    expect(again.statusCode).toBe(200);
    expect(again.json().data).toMatchObject({ user: data.user, tenant: data.tenant, role: 'OWNER' });
    const me = await t.inject({
      method: 'GET',
      url: '/api/auth/me',
      headers: { authorization: `Bearer ${again.json().data.accessToken}` },
    });
    expect(me.statusCode).toBe(200);

    // a Google account has no password to log in with
    expectError(
      await t.inject({
        method: 'POST',
        url: '/api/auth/login',
        payload: { email, password: 'whatever-123' },
      }),
      401,
      'AUTH_PROVIDER_MISMATCH',
    );
  });

  it('names the tenant "<name>\'s workspace" without a company name, or after the email', async () => {
    const name = `Bob ${randomHex(4)}`;
    const a = await google({ idToken: await idToken({ claims: { name } }) });
    expect(a.statusCode).toBe(201);
    expect(a.json().data.tenant.name).toBe(`${name}'s workspace`);

    const local = `carol-${randomHex(4)}`;
    const b = await google({
      idToken: await idToken({ claims: { name: undefined, email: `${local}@gmail.com` } }),
    });
    expect(b.statusCode).toBe(201);
    expect(b.json().data.tenant.name).toBe(`${local}'s workspace`);
    expect(b.json().data.user.name).toBeNull();

    // a taken default name gets a suffix rather than failing
    const c = await google({ idToken: await idToken({ claims: { name } }) });
    expect(c.statusCode).toBe(201);
    expect(c.json().data.tenant.name).toMatch(new RegExp(`^${name}'s workspace [0-9a-f]{4}$`));
  });

  it('answers TENANT_EXISTS for a company name already taken', async () => {
    const companyName = `Taken ${randomHex(4)}`;
    expect((await google({ idToken: await idToken(), companyName })).statusCode).toBe(201);
    expectError(
      await google({ idToken: await idToken(), companyName: companyName.toLowerCase() }),
      409,
      'TENANT_EXISTS',
    );
  });

  it('accepts both Google issuer spellings', async () => {
    const res = await google({ idToken: await idToken({ issuer: 'accounts.google.com' }) });
    expect(res.statusCode).toBe(201);
  });

  it('answers AUTH_PROVIDER_MISMATCH when the email belongs to a password account', async () => {
    const email = `pw-${randomHex(4)}@gmail.com`;
    await db()
      .insert(users)
      .values({ id: newId(), email, passwordHash: await hashPassword(TEST_PASSWORD) });
    expectError(
      await google({ idToken: await idToken({ claims: { email } }) }),
      401,
      'AUTH_PROVIDER_MISMATCH',
    );
  });

  it('answers AUTH_INVALID_TOKEN for a bad audience, issuer, key, expiry, unverified email or garbage', async () => {
    const other = await generateKeyPair('RS256');
    const now = Math.floor(Date.now() / 1000);
    const bad: Array<[string, string]> = [
      ['audience', await idToken({ audience: 'someone-else' })],
      ['issuer', await idToken({ issuer: 'https://evil.example.com' })],
      ['unverified', await idToken({ claims: { email_verified: false } })],
      ['no email', await idToken({ claims: { email: undefined } })],
      ['other key, same kid', await idToken({ key: other.privateKey })],
      ['other key, unknown kid', await idToken({ key: other.privateKey, kid: 'unknown-kid' })],
      ['expired', await idToken({ expiresAt: now - 60 })],
      ['garbage', 'not.a.jwt'],
    ];
    for (const [why, token] of bad) {
      const res = await google({ idToken: token });
      expect({ why, status: res.statusCode }).toEqual({ why, status: 401 });
      expectError(res, 401, 'AUTH_INVALID_TOKEN');
    }
    const hs = await new SignJWT({ email: 'x@gmail.com', email_verified: true })
      .setProtectedHeader({ alg: 'HS256', kid: KID })
      .setSubject('s')
      .setIssuer('https://accounts.google.com')
      .setAudience(CLIENT_ID)
      .setExpirationTime(now + 60)
      .sign(new TextEncoder().encode('a-shared-secret-that-is-long-enough'));
    expectError(await google({ idToken: hs }), 401, 'AUTH_INVALID_TOKEN');
  });

  it('caches the key set instead of fetching it for every sign-in', async () => {
    await google({ idToken: await idToken() });
    const before = jwksHits;
    for (let i = 0; i < 3; i++) expect((await google({ idToken: await idToken() })).statusCode).toBe(201);
    expect(jwksHits).toBe(before);
  });

  it('signs an existing Google user in to the tenant asked for', async () => {
    const sub = `sub-${randomHex(8)}`;
    const email = `multi-${randomHex(4)}@gmail.com`;
    const first = await google({ idToken: await idToken({ claims: { sub, email } }) });
    const userId = first.json().data.user.id as string;
    const otherSignup = await google({ idToken: await idToken() });
    const otherTenant = otherSignup.json().data.tenant.id as string;
    await db().insert(members).values({ id: newId(), tenantId: otherTenant, userId, email, role: 'VIEWER' });
    const res = await google({ idToken: await idToken({ claims: { sub, email } }), tenantId: otherTenant });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ tenant: { id: otherTenant }, role: 'VIEWER' });
  });

  it('validates the body', async () => {
    const error = expectError(await google({}), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'idToken', message: expect.any(String) }]);
  });
});

describe('accepting an emailed invite with a Google account', () => {
  const accept = (payload: Record<string, unknown>) =>
    t.inject({ method: 'POST', url: '/api/auth/invites/accept', payload });

  it('links the existing Google account only with an ID token of that account', async () => {
    const sub = `sub-${randomHex(8)}`;
    const email = `invited-${randomHex(4)}@gmail.com`;
    const signup = await google({ idToken: await idToken({ claims: { sub, email } }) });
    expect(signup.statusCode).toBe(201);
    const userId = signup.json().data.user.id as string;
    const host = await google({ idToken: await idToken() });
    const tenantId = host.json().data.tenant.id as string;
    const token = randomHex(32);
    const memberId = newId();
    await db()
      .insert(members)
      .values({
        id: memberId,
        tenantId,
        email,
        role: 'EDITOR',
        isPending: true,
        inviteTokenHash: sha256(token),
        inviteExpiresAt: new Date(Date.now() + 86_400_000),
      });

    expectError(await accept({ token }), 401, 'AUTH_PROVIDER_MISMATCH');
    expectError(await accept({ token, password: 'a-password-1' }), 401, 'AUTH_PROVIDER_MISMATCH');
    // another Google identity claiming the same email, or the same subject with another email
    expectError(
      await accept({ token, idToken: await idToken({ claims: { sub: `sub-${randomHex(8)}`, email } }) }),
      401,
      'AUTH_PROVIDER_MISMATCH',
    );
    expectError(
      await accept({ token, idToken: await idToken({ claims: { sub, email: `x-${email}` } }) }),
      401,
      'AUTH_PROVIDER_MISMATCH',
    );
    expectError(
      await accept({ token, idToken: await idToken({ claims: { sub, email }, audience: 'someone-else' }) }),
      401,
      'AUTH_INVALID_TOKEN',
    );
    const [pending] = await db().select().from(members).where(eq(members.id, memberId));
    expect(pending).toMatchObject({ isPending: true, userId: null });

    const res = await accept({
      token,
      idToken: await idToken({ claims: { sub, email: email.toUpperCase() } }),
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toMatchObject({
      user: { id: userId, email },
      tenant: { id: tenantId },
      role: 'EDITOR',
    });
    const [joined] = await db().select().from(members).where(eq(members.id, memberId));
    expect(joined).toMatchObject({ isPending: false, userId });
  });
});

describe('JWKS unreachable', () => {
  it('answers 500 EXTERNAL_SERVICE_ERROR', async () => {
    const dead = createServer();
    await new Promise<void>((resolve) => dead.listen(0, '127.0.0.1', resolve));
    const port = (dead.address() as AddressInfo).port;
    await new Promise((resolve) => dead.close(resolve));
    const app = await createTestApp({
      db: t.db,
      config: { google: { clientId: CLIENT_ID, jwksUrl: `http://127.0.0.1:${port}/certs` } },
    });
    try {
      const error = expectError(
        await google({ idToken: await idToken() }, app),
        500,
        'EXTERNAL_SERVICE_ERROR',
      );
      expect(error.message).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
    } finally {
      await app.close();
    }
  });
});

const db = () => t.deps.database.db;

describe('GET /api/auth/providers', () => {
  it('offers Google with its client id when configured, and lets the dashboard load Google Identity Services', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/auth/providers' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ data: { password: true, google: { clientId: CLIENT_ID } } });
    const csp = String(
      (await t.inject({ method: 'GET', url: '/signin' })).headers['content-security-policy'],
    );
    expect(csp).toContain("script-src 'self' https://accounts.google.com/gsi/client");
    expect(csp).toMatch(/frame-src [^;]*https:\/\/accounts\.google\.com\/gsi\//);
    // The API itself still loads nothing.
    expect(String(res.headers['content-security-policy'])).toContain("default-src 'none'");
  });

  it('offers password sign-in only, and no Google script, without GOOGLE_CLIENT_ID', async () => {
    const plain = await createTestApp();
    try {
      const res = await plain.inject({ method: 'GET', url: '/api/auth/providers' });
      expect(res.json()).toEqual({ data: { password: true, google: null } });
      const csp = String(
        (await plain.inject({ method: 'GET', url: '/signin' })).headers['content-security-policy'],
      );
      expect(csp).not.toContain('accounts.google.com');
    } finally {
      await plain.close();
    }
  });
});
