import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  type Actor,
  auditEntries,
  createTenant,
  type TenantFixture,
  uniqueEmail,
} from '../../../test/helpers/factories.js';
import { inviteLinks, mailOutbox, members, type Role, sessions } from '../../db/schema/index.js';
import type { ServiceCtx } from '../../platform/context.js';
import { randomHex, sha256 } from '../../platform/crypto.js';
import { INVITE_TTL_MS } from './invites.js';
import { changeMemberRole, removeMember } from './members.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type Member = {
  id: string;
  tenantId: string;
  userId: string | null;
  email: string;
  role: Role;
  invitedBy: string | null;
  isPending: boolean;
  inviteEmailStatus: string | null;
  inviteResendCount: number;
  inviteExpiresAt: string | null;
  createdAt: string;
  updatedAt: string;
};

const db = () => t.deps.database.db;
const api = (
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE',
  url: string,
  actor: { headers: Record<string, string> } | null,
  payload?: unknown,
  remoteAddress?: string,
) =>
  t.inject({
    method,
    url,
    headers: actor?.headers ?? {},
    ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    ...(remoteAddress ? { remoteAddress } : {}),
  });

async function invite(tenant: TenantFixture, body: { email?: string; role?: Role } = {}, actor?: Actor) {
  const res = await api('POST', '/api/tenants/members', actor ?? tenant.owner, {
    email: body.email ?? uniqueEmail('invitee'),
    role: body.role ?? 'EDITOR',
  });
  expect(res.statusCode).toBe(201);
  return res.json().data as Member;
}

/** The invite token of the last mail to `email` (the only place a token travels). */
async function lastInviteToken(email: string) {
  const [mail] = await db()
    .select()
    .from(mailOutbox)
    .where(eq(mailOutbox.recipient, email))
    .orderBy(desc(mailOutbox.createdAt), desc(mailOutbox.id))
    .limit(1);
  const match = mail?.body.match(/\/invite\/([A-Za-z0-9_-]+)/);
  expect(match).toBeTruthy();
  return match![1]!;
}

async function memberRow(id: string) {
  const [row] = await db().select().from(members).where(eq(members.id, id));
  return row;
}

async function ownerCount(tenantId: string) {
  const rows = await db()
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.role, 'OWNER'), eq(members.isPending, false)));
  return rows.length;
}

describe('GET /api/tenants/members', () => {
  it('paginates newest first with meta and never exposes token hashes', async () => {
    const acme = await createTenant(t);
    const invited: Member[] = [];
    for (let i = 0; i < 4; i++) invited.push(await invite(acme));
    const all = await api('GET', '/api/tenants/members?limit=100', acme.owner);
    expect(all.statusCode).toBe(200);
    const ids = all.json().data.map((m: Member) => m.id);
    expect(ids).toHaveLength(5);
    expect(ids.slice(0, 4)).toEqual(invited.map((m) => m.id).reverse());
    expect(ids[4]).toBe(acme.owner.memberId);
    expect(all.body).not.toMatch(/hash/i);
    expect(all.json().data[4]).toEqual({
      id: acme.owner.memberId,
      tenantId: acme.tenantId,
      userId: acme.owner.userId,
      email: acme.owner.email,
      role: 'OWNER',
      invitedBy: null,
      isPending: false,
      inviteEmailStatus: null,
      inviteResendCount: 0,
      inviteExpiresAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const page2 = await api('GET', '/api/tenants/members?page=2&limit=2', acme.owner);
    expect(page2.json().meta).toEqual({ page: 2, limit: 2, total: 5, totalPages: 3 });
    expect(page2.json().data.map((m: Member) => m.id)).toEqual(ids.slice(2, 4));
    const page3 = await api('GET', '/api/tenants/members?page=3&limit=2', acme.owner);
    expect(page3.json().data.map((m: Member) => m.id)).toEqual(ids.slice(4));
    const beyond = await api('GET', '/api/tenants/members?page=9&limit=2', acme.owner);
    expect(beyond.json()).toEqual({ data: [], meta: { page: 9, limit: 2, total: 5, totalPages: 3 } });
    const defaults = await api('GET', '/api/tenants/members', acme.owner);
    expect(defaults.json().meta).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 });
  });

  it('filters by email substring (case-insensitive, wildcards literal), role and isPending', async () => {
    const acme = await createTenant(t);
    const tag = randomHex(3);
    const a = await invite(acme, { email: `Alice.${tag}@Example.com`, role: 'ADMIN' });
    const b = await invite(acme, { email: `bob_${tag}@example.com`, role: 'VIEWER' });
    const editor = await acme.as('EDITOR');
    const list = async (q: string) =>
      (await api('GET', `/api/tenants/members?${q}`, acme.owner)).json() as {
        data: Member[];
        meta: { total: number };
      };

    expect((await list(`search=ALICE.${tag}`)).data.map((m) => m.id)).toEqual([a.id]);
    expect((await list('search=EXAMPLE.COM')).meta.total).toBe(4);
    expect((await list(`search=bob_${tag}`)).data.map((m) => m.id)).toEqual([b.id]);
    expect((await list('search=bob%')).data).toEqual([]);
    // as a wildcard `b_b_` would match "bob_"; literally it cannot occur (one underscore, hex after it)
    expect((await list('search=b_b_')).data).toEqual([]);
    expect((await list('role=ADMIN')).data.map((m) => m.id)).toEqual([a.id]);
    expect((await list('role=OWNER')).data.map((m) => m.id)).toEqual([acme.owner.memberId]);
    expect((await list('role=EDITOR')).data.map((m) => m.email)).toEqual([editor.email]);
    expect((await list('isPending=true')).data.map((m) => m.id).sort()).toEqual([a.id, b.id].sort());
    expect((await list('isPending=false')).data.map((m) => m.id).sort()).toEqual(
      [acme.owner.memberId, editor.memberId].sort(),
    );
    expect((await list('isPending=true&role=VIEWER')).data.map((m) => m.id)).toEqual([b.id]);
    expect((await list(`isPending=false&search=${tag}`)).meta.total).toBe(0);
  });

  it('rejects invalid query parameters with dotted paths', async () => {
    const acme = await createTenant(t);
    for (const [q, path] of [
      ['role=GOD', 'query.role'],
      ['isPending=yes', 'query.isPending'],
      ['limit=0', 'query.limit'],
      ['limit=101', 'query.limit'],
      ['page=0', 'query.page'],
      ['page=x', 'query.page'],
    ]) {
      const err = expectError(
        await api('GET', `/api/tenants/members?${q}`, acme.owner),
        400,
        'VALIDATION_ERROR',
      );
      expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
  });

  it('shows only the tenant’s own members', async () => {
    const acme = await createTenant(t);
    const other = await createTenant(t);
    const m = await invite(acme);
    const res = await api('GET', '/api/tenants/members?limit=100', other.owner);
    expect(res.json().data.map((x: Member) => x.id)).toEqual([other.owner.memberId]);
    expect(res.body).not.toContain(m.id);
  });
});

describe('POST /api/tenants/members (invite)', () => {
  it('creates a pending member, mails a 7-day link whose token only its hash is stored, and audits it', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const email = uniqueEmail('invitee');
    const before = Date.now();
    const res = await api(
      'POST',
      '/api/tenants/members',
      admin,
      { email: `  ${email.toUpperCase()} `, role: 'EDITOR' },
      '198.51.100.4',
    );
    const after = Date.now();
    expect(res.statusCode).toBe(201);
    const m = res.json().data as Member;
    expect(m).toEqual({
      id: expect.any(String),
      tenantId: acme.tenantId,
      userId: null,
      email,
      role: 'EDITOR',
      invitedBy: admin.userId,
      isPending: true,
      inviteEmailStatus: 'LOGGED',
      inviteResendCount: 0,
      inviteExpiresAt: expect.any(String),
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });
    const expires = new Date(m.inviteExpiresAt!).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + INVITE_TTL_MS);
    expect(expires).toBeLessThanOrEqual(after + INVITE_TTL_MS);

    const token = await lastInviteToken(email);
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, email));
    expect(mail).toMatchObject({ tenantId: acme.tenantId, status: 'LOGGED' });
    expect(mail!.body).toContain(`${t.config.appUrl}/invite/${token}`);
    const row = await memberRow(m.id);
    expect(row!.inviteTokenHash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(res.body).not.toContain(token);

    const [entry] = await auditEntries(t, acme.tenantId, { entityId: m.id });
    expect(entry).toMatchObject({
      action: 'MEMBER_INVITED',
      entityType: 'member',
      actorId: admin.userId,
      ipAddress: '198.51.100.4',
      metadata: { email, role: 'EDITOR', via: 'email' },
    });
    expect(JSON.stringify(entry)).not.toContain(token);

    const got = await api('GET', `/api/tenants/members/${m.id}`, await acme.as('VIEWER'));
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(m);
  });

  it('answers 409 MEMBER_EXISTS for an active or pending member, in any case', async () => {
    const acme = await createTenant(t);
    const pending = await invite(acme);
    for (const email of [pending.email, pending.email.toUpperCase(), acme.owner.email.toUpperCase()]) {
      expectError(
        await api('POST', '/api/tenants/members', acme.owner, { email, role: 'VIEWER' }),
        409,
        'MEMBER_EXISTS',
      );
    }
    // The same email may be invited by another tenant.
    const other = await createTenant(t);
    expect(
      (await api('POST', '/api/tenants/members', other.owner, { email: pending.email, role: 'VIEWER' }))
        .statusCode,
    ).toBe(201);
  });

  it('lets only an OWNER invite an OWNER', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    expectError(
      await api('POST', '/api/tenants/members', admin, { email: uniqueEmail('invitee'), role: 'OWNER' }),
      403,
      'INSUFFICIENT_ROLE',
    );
    const m = await invite(acme, { role: 'OWNER' });
    expect(m.role).toBe('OWNER');
    for (const role of ['ADMIN', 'EDITOR', 'VIEWER'] as const) {
      expect((await invite(acme, { role }, admin)).role).toBe(role);
    }
  });

  it('validates email and role', async () => {
    const acme = await createTenant(t);
    const cases: [unknown, string][] = [
      [{ role: 'EDITOR' }, 'email'],
      [{ email: 'not-an-email', role: 'EDITOR' }, 'email'],
      [{ email: `${'a'.repeat(250)}@x.io`, role: 'EDITOR' }, 'email'],
      [{ email: uniqueEmail('invitee') }, 'role'],
      [{ email: uniqueEmail('invitee'), role: 'SUPERUSER' }, 'role'],
      [{ email: uniqueEmail('invitee'), role: 'editor' }, 'role'],
    ];
    for (const [payload, path] of cases) {
      const err = expectError(
        await api('POST', '/api/tenants/members', acme.owner, payload),
        400,
        'VALIDATION_ERROR',
      );
      expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
  });
});

describe('PATCH /api/tenants/members/:id (role)', () => {
  it('lets an OWNER change a role, audits { from, to } and returns the member', async () => {
    const acme = await createTenant(t);
    const editor = await acme.as('EDITOR');
    const res = await api(
      'PATCH',
      `/api/tenants/members/${editor.memberId}`,
      acme.owner,
      { role: 'ADMIN' },
      '192.0.2.10',
    );
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      id: editor.memberId,
      role: 'ADMIN',
      email: editor.email,
      isPending: false,
    });
    const [entry] = await auditEntries(t, acme.tenantId, { entityId: editor.memberId });
    expect(entry).toMatchObject({
      action: 'MEMBER_ROLE_CHANGED',
      entityType: 'member',
      actorId: acme.owner.userId,
      ipAddress: '192.0.2.10',
      metadata: { from: 'EDITOR', to: 'ADMIN' },
    });
    // The new role applies at once: the promoted member may now manage members.
    expect(
      (await api('POST', '/api/tenants/members', editor, { email: uniqueEmail('invitee'), role: 'VIEWER' }))
        .statusCode,
    ).toBe(201);
    // Same role: 200, no new audit row.
    expect(
      (await api('PATCH', `/api/tenants/members/${editor.memberId}`, acme.owner, { role: 'ADMIN' }))
        .statusCode,
    ).toBe(200);
    expect(await auditEntries(t, acme.tenantId, { entityId: editor.memberId })).toHaveLength(1);
  });

  it('changes the role of a pending invite too', async () => {
    const acme = await createTenant(t);
    const m = await invite(acme, { role: 'VIEWER' });
    const res = await api('PATCH', `/api/tenants/members/${m.id}`, acme.owner, { role: 'EDITOR' });
    expect(res.json().data).toMatchObject({ id: m.id, role: 'EDITOR', isPending: true });
  });

  it('refuses ADMIN, EDITOR and VIEWER', async () => {
    const acme = await createTenant(t);
    const target = await acme.as('VIEWER');
    for (const role of ['ADMIN', 'EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      expectError(
        await api('PATCH', `/api/tenants/members/${target.memberId}`, actor, { role: 'EDITOR' }),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
    expect((await memberRow(target.memberId))!.role).toBe('VIEWER');
  });

  it('answers 409 LAST_OWNER when demoting the last owner, and allows it with a second owner', async () => {
    const acme = await createTenant(t);
    const err = expectError(
      await api('PATCH', `/api/tenants/members/${acme.owner.memberId}`, acme.owner, { role: 'ADMIN' }),
      409,
      'LAST_OWNER',
    );
    expect(err.category).toBe('CONFLICT');
    // A pending OWNER invite does not count as an owner.
    await invite(acme, { role: 'OWNER' });
    expectError(
      await api('PATCH', `/api/tenants/members/${acme.owner.memberId}`, acme.owner, { role: 'VIEWER' }),
      409,
      'LAST_OWNER',
    );
    const second = await acme.as('OWNER');
    const res = await api('PATCH', `/api/tenants/members/${acme.owner.memberId}`, second, { role: 'ADMIN' });
    expect(res.statusCode).toBe(200);
    expect(await ownerCount(acme.tenantId)).toBe(1);
    expectError(
      await api('PATCH', `/api/tenants/members/${second.memberId}`, second, { role: 'ADMIN' }),
      409,
      'LAST_OWNER',
    );
  });

  it('validates role', async () => {
    const acme = await createTenant(t);
    const v = await acme.as('VIEWER');
    for (const payload of [{}, { role: 'ROOT' }, { role: null }]) {
      const err = expectError(
        await api('PATCH', `/api/tenants/members/${v.memberId}`, acme.owner, payload),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([{ path: 'role', message: expect.any(String) }]);
    }
  });
});

describe('DELETE /api/tenants/members/:id', () => {
  it('removes a member, revokes their sessions (401 AUTH_TOKEN_REVOKED) and audits it', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const editor = await acme.as('EDITOR');
    expect((await api('GET', '/api/tenants/current', editor)).statusCode).toBe(200);
    const res = await api(
      'DELETE',
      `/api/tenants/members/${editor.memberId}`,
      admin,
      undefined,
      '192.0.2.55',
    );
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    expect(await memberRow(editor.memberId)).toBeUndefined();
    const [session] = await db().select().from(sessions).where(eq(sessions.id, editor.sessionId));
    expect(session!.revokedAt).toBeInstanceOf(Date);
    expectError(await api('GET', '/api/tenants/current', editor), 401, 'AUTH_TOKEN_REVOKED');
    expectError(await api('GET', `/api/tenants/members/${editor.memberId}`, admin), 404, 'NOT_FOUND');
    const [entry] = await auditEntries(t, acme.tenantId, { entityId: editor.memberId });
    expect(entry).toMatchObject({
      action: 'MEMBER_REMOVED',
      entityType: 'member',
      actorId: admin.userId,
      ipAddress: '192.0.2.55',
      metadata: { email: editor.email, role: 'EDITOR', userId: editor.userId, wasPending: false },
    });
    // The others keep working.
    expect((await api('GET', '/api/tenants/current', admin)).statusCode).toBe(200);
  });

  it('withdraws a pending invite', async () => {
    const acme = await createTenant(t);
    const m = await invite(acme);
    expect((await api('DELETE', `/api/tenants/members/${m.id}`, acme.owner)).statusCode).toBe(204);
    expect(await memberRow(m.id)).toBeUndefined();
  });

  it('lets only an OWNER remove an OWNER and never the last one', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const second = await acme.as('OWNER');
    expectError(
      await api('DELETE', `/api/tenants/members/${second.memberId}`, admin),
      403,
      'INSUFFICIENT_ROLE',
    );
    const pendingOwner = await invite(acme, { role: 'OWNER' });
    expectError(
      await api('DELETE', `/api/tenants/members/${pendingOwner.id}`, admin),
      403,
      'INSUFFICIENT_ROLE',
    );
    expectError(
      await api('DELETE', `/api/tenants/members/${acme.owner.memberId}`, admin),
      403,
      'INSUFFICIENT_ROLE',
    );
    expect((await api('DELETE', `/api/tenants/members/${second.memberId}`, acme.owner)).statusCode).toBe(204);
    expectError(
      await api('DELETE', `/api/tenants/members/${acme.owner.memberId}`, acme.owner),
      409,
      'LAST_OWNER',
    );
    expect(await ownerCount(acme.tenantId)).toBe(1);
    // An admin may remove themselves.
    expect((await api('DELETE', `/api/tenants/members/${admin.memberId}`, admin)).statusCode).toBe(204);
  });

  it('refuses EDITOR and VIEWER', async () => {
    const acme = await createTenant(t);
    const target = await acme.as('VIEWER');
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      expectError(
        await api('DELETE', `/api/tenants/members/${target.memberId}`, actor),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
    expect(await memberRow(target.memberId)).toBeDefined();
  });
});

describe('last-owner protection under concurrency', () => {
  const ctxFor = (tenant: TenantFixture): ServiceCtx => ({
    now: new Date(),
    db: db(),
    tenantId: tenant.tenantId,
    actorId: tenant.owner.userId,
    ip: null,
  });

  it('never leaves zero owners when the two last owners are demoted or removed at once', async () => {
    const ops = [
      (ctx: ServiceCtx, id: string) => changeMemberRole(ctx, id, 'ADMIN'),
      (ctx: ServiceCtx, id: string) => removeMember(ctx, 'OWNER', id),
    ];
    for (const [first, second] of [
      [0, 0],
      [1, 1],
      [0, 1],
      [1, 0],
    ] as const) {
      const acme = await createTenant(t);
      const other = await acme.as('OWNER');
      const ctx = ctxFor(acme);
      const results = await Promise.allSettled([
        ops[first]!(ctx, acme.owner.memberId),
        ops[second]!(ctx, other.memberId),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
      expect(rejected.reason).toMatchObject({ code: 'LAST_OWNER' });
      expect(await ownerCount(acme.tenantId)).toBe(1);
    }
  });

  it('holds through HTTP when two owners demote each other concurrently', async () => {
    const acme = await createTenant(t);
    const other = await acme.as('OWNER');
    const [a, b] = await Promise.all([
      api('PATCH', `/api/tenants/members/${other.memberId}`, acme.owner, { role: 'ADMIN' }),
      api('PATCH', `/api/tenants/members/${acme.owner.memberId}`, other, { role: 'ADMIN' }),
    ]);
    const codes = [a, b].map((r) => r.statusCode).sort();
    expect(codes[0]).toBe(200);
    // The loser is refused by the last-owner rule, or already by its own demotion (403).
    expect([403, 409]).toContain(codes[1]);
    expect(await ownerCount(acme.tenantId)).toBe(1);
  });
});

describe('POST /api/tenants/members/:id/resend-invite', () => {
  it('issues a new token and expiry twice, invalidating the old token, then answers RESEND_LIMIT_REACHED', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const m = await invite(acme);
    const tokens = [await lastInviteToken(m.email)];
    let lastExpiry = m.inviteExpiresAt!;
    for (const n of [1, 2]) {
      const res = await api('POST', `/api/tenants/members/${m.id}/resend-invite`, admin);
      expect(res.statusCode).toBe(200);
      const data = res.json().data as Member;
      expect(data).toMatchObject({
        id: m.id,
        isPending: true,
        inviteResendCount: n,
        inviteEmailStatus: 'LOGGED',
      });
      expect(new Date(data.inviteExpiresAt!).getTime()).toBeGreaterThanOrEqual(
        new Date(lastExpiry).getTime(),
      );
      lastExpiry = data.inviteExpiresAt!;
      const token = await lastInviteToken(m.email);
      expect(tokens).not.toContain(token);
      tokens.push(token);
      const row = await memberRow(m.id);
      expect(row!.inviteTokenHash).toBe(sha256(token));
      // The old tokens no longer match any member.
      for (const old of tokens.slice(0, -1)) {
        expect(
          await db()
            .select()
            .from(members)
            .where(eq(members.inviteTokenHash, sha256(old))),
        ).toEqual([]);
      }
    }
    const third = await api('POST', `/api/tenants/members/${m.id}/resend-invite`, admin);
    expect(expectError(third, 409, 'RESEND_LIMIT_REACHED').details).toEqual({ limit: 2, resendCount: 2 });
    expect((await memberRow(m.id))!.inviteTokenHash).toBe(sha256(tokens[2]!));
    const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.recipient, m.email));
    expect(mails).toHaveLength(3);
    const entries = await auditEntries(t, acme.tenantId, { entityId: m.id });
    expect(entries.map((e) => [e.action, e.metadata.via])).toEqual([
      ['MEMBER_INVITED', 'email'],
      ['MEMBER_INVITED', 'resend'],
      ['MEMBER_INVITED', 'resend'],
    ]);
  });

  it('answers 409 INVALID_STATE_TRANSITION for an accepted member', async () => {
    const acme = await createTenant(t);
    const editor = await acme.as('EDITOR');
    const err = expectError(
      await api('POST', `/api/tenants/members/${editor.memberId}/resend-invite`, acme.owner),
      409,
      'INVALID_STATE_TRANSITION',
    );
    expect(err.details).toEqual({ from: 'ACCEPTED', action: 'resend-invite' });
  });

  it('refuses EDITOR and VIEWER', async () => {
    const acme = await createTenant(t);
    const m = await invite(acme);
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      expectError(
        await api('POST', `/api/tenants/members/${m.id}/resend-invite`, await acme.as(role)),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
    expect((await memberRow(m.id))!.inviteResendCount).toBe(0);
  });
});

describe('POST /api/tenants/invites/link', () => {
  it('creates a 7-day shareable link on APP_URL whose token is stored hashed', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const before = Date.now();
    const res = await api('POST', '/api/tenants/invites/link', admin, { role: 'VIEWER' });
    expect(res.statusCode).toBe(201);
    const { data } = res.json() as { data: { link: string; role: Role; expiresAt: string } };
    expect(Object.keys(data).sort()).toEqual(['expiresAt', 'id', 'link', 'role']);
    expect(data.role).toBe('VIEWER');
    const prefix = `${t.config.appUrl}/invite/`;
    expect(data.link.startsWith(prefix)).toBe(true);
    const token = data.link.slice(prefix.length);
    expect(token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const expires = new Date(data.expiresAt).getTime();
    expect(expires).toBeGreaterThanOrEqual(before + INVITE_TTL_MS);
    expect(expires).toBeLessThanOrEqual(Date.now() + INVITE_TTL_MS);
    const [row] = await db()
      .select()
      .from(inviteLinks)
      .where(eq(inviteLinks.tokenHash, sha256(token)));
    expect(row).toMatchObject({ tenantId: acme.tenantId, role: 'VIEWER', createdBy: admin.userId });
    expect(row!.expiresAt.getTime()).toBe(expires);
    const [entry] = await auditEntries(t, acme.tenantId, { entityId: row!.id });
    expect(entry).toMatchObject({
      action: 'MEMBER_INVITED',
      entityType: 'invite_link',
      metadata: { role: 'VIEWER', via: 'link' },
    });
  });

  it('needs OWNER for an OWNER link, ADMIN otherwise, and validates role', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    expectError(
      await api('POST', '/api/tenants/invites/link', admin, { role: 'OWNER' }),
      403,
      'INSUFFICIENT_ROLE',
    );
    expect((await api('POST', '/api/tenants/invites/link', acme.owner, { role: 'OWNER' })).statusCode).toBe(
      201,
    );
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      expectError(
        await api('POST', '/api/tenants/invites/link', await acme.as(role), { role: 'VIEWER' }),
        403,
        'INSUFFICIENT_ROLE',
      );
    }
    for (const payload of [{}, { role: 'KING' }]) {
      const err = expectError(
        await api('POST', '/api/tenants/invites/link', admin, payload),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([{ path: 'role', message: expect.any(String) }]);
    }
  });
});

describe('tenant isolation and the role matrix', () => {
  it('answers 404 NOT_FOUND to a second tenant for every member id of the first, and for unknown or malformed ids', async () => {
    const acme = await createTenant(t);
    const other = await createTenant(t);
    const pending = await invite(acme);
    const editor = await acme.as('EDITOR');
    const ids = [
      acme.owner.memberId,
      editor.memberId,
      pending.id,
      'not-a-uuid',
      '01900000-0000-7000-8000-000000000000',
    ];
    for (const id of ids) {
      for (const [method, url, body] of [
        ['GET', `/api/tenants/members/${id}`, undefined],
        ['PATCH', `/api/tenants/members/${id}`, { role: 'VIEWER' }],
        ['DELETE', `/api/tenants/members/${id}`, undefined],
        ['POST', `/api/tenants/members/${id}/resend-invite`, undefined],
      ] as const) {
        expectError(await api(method, url, other.owner, body), 404, 'NOT_FOUND');
      }
    }
    expect(await memberRow(editor.memberId)).toMatchObject({ role: 'EDITOR' });
    expect(await memberRow(pending.id)).toMatchObject({ inviteResendCount: 0 });
  });

  it('applies the role matrix to every route', async () => {
    const acme = await createTenant(t);
    const actors: Record<Role, Actor> = {
      OWNER: acme.owner,
      ADMIN: await acme.as('ADMIN'),
      EDITOR: await acme.as('EDITOR'),
      VIEWER: await acme.as('VIEWER'),
    };
    const rank: Record<Role, number> = { VIEWER: 0, EDITOR: 1, ADMIN: 2, OWNER: 3 };
    const routes: { min: Role; call: (a: Actor) => Promise<{ statusCode: number }>; ok: number }[] = [
      { min: 'VIEWER', ok: 200, call: (a) => api('GET', '/api/tenants/current', a) },
      {
        min: 'ADMIN',
        ok: 200,
        call: (a) => api('PATCH', '/api/tenants/current', a, { settings: { k: a.role } }),
      },
      { min: 'VIEWER', ok: 200, call: (a) => api('GET', '/api/tenants/members', a) },
      { min: 'VIEWER', ok: 200, call: (a) => api('GET', `/api/tenants/members/${acme.owner.memberId}`, a) },
      {
        min: 'ADMIN',
        ok: 201,
        call: (a) =>
          api('POST', '/api/tenants/members', a, { email: uniqueEmail('invitee'), role: 'VIEWER' }),
      },
      {
        min: 'OWNER',
        ok: 200,
        call: async (a) => {
          const m = await invite(acme);
          return api('PATCH', `/api/tenants/members/${m.id}`, a, { role: 'ADMIN' });
        },
      },
      {
        min: 'ADMIN',
        ok: 204,
        call: async (a) => {
          const m = await invite(acme);
          return api('DELETE', `/api/tenants/members/${m.id}`, a);
        },
      },
      {
        min: 'ADMIN',
        ok: 200,
        call: async (a) => {
          const m = await invite(acme);
          return api('POST', `/api/tenants/members/${m.id}/resend-invite`, a);
        },
      },
      { min: 'ADMIN', ok: 201, call: (a) => api('POST', '/api/tenants/invites/link', a, { role: 'EDITOR' }) },
    ];
    for (const route of routes) {
      for (const role of Object.keys(actors) as Role[]) {
        const res = await route.call(actors[role]);
        const expected = rank[role] >= rank[route.min] ? route.ok : 403;
        expect({ route: routes.indexOf(route), role, status: res.statusCode }).toEqual({
          route: routes.indexOf(route),
          role,
          status: expected,
        });
      }
    }
    for (const [method, url] of [
      ['GET', '/api/tenants/current'],
      ['GET', '/api/tenants/members'],
      ['POST', '/api/tenants/members'],
      ['POST', '/api/tenants/invites/link'],
      ['DELETE', `/api/tenants/members/${acme.owner.memberId}`],
    ] as const) {
      expectError(await api(method, url, null, method === 'POST' ? {} : undefined), 401, 'AUTH_NO_TOKEN');
    }
  });
});
