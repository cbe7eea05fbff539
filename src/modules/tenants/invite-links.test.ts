import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { type Actor, auditEntries, createTenant } from '../../../test/helpers/factories.js';
import { inviteLinks, type Role } from '../../db/schema/index.js';
import { randomHex } from '../../platform/crypto.js';
import { INVITE_TTL_MS } from './invites.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

type CreatedLink = { id: string; link: string; role: Role; expiresAt: string };
type ListedLink = { id: string; role: Role; createdBy: string | null; expiresAt: string; createdAt: string };

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

async function createLink(actor: Actor, role: Role = 'VIEWER'): Promise<CreatedLink & { token: string }> {
  const res = await api('POST', '/api/tenants/invites/link', actor, { role });
  expect(res.statusCode, res.body).toBe(201);
  const data = res.json().data as CreatedLink;
  const prefix = `${t.config.appUrl}/invite/`;
  expect(data.link.startsWith(prefix)).toBe(true);
  return { ...data, token: data.link.slice(prefix.length) };
}

async function listLinks(actor: Actor, query = '') {
  const res = await api('GET', `/api/tenants/invites/links${query}`, actor);
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as {
    data: ListedLink[];
    meta: { page: number; limit: number; total: number; totalPages: number };
  };
}

const listedIds = async (actor: Actor) => (await listLinks(actor, '?limit=100')).data.map((l) => l.id);

async function linkRow(id: string) {
  const [row] = await db().select().from(inviteLinks).where(eq(inviteLinks.id, id));
  return row!;
}

/** Joins through the link as a brand-new user. */
const acceptAsNewUser = (token: string) =>
  t.inject({
    method: 'POST',
    url: '/api/auth/invites/accept',
    payload: {
      token,
      email: `joiner-${randomHex(5)}@example.com`,
      name: 'Joiner',
      password: 'a long enough password',
    },
  });

async function expectRevoked(id: string, token: string) {
  const row = await linkRow(id);
  expect(row.revokedAt).toBeInstanceOf(Date);
  expect(row.expiresAt.getTime()).toBe(row.revokedAt!.getTime());
  expect(row.expiresAt.getTime()).toBeLessThanOrEqual(Date.now());
  expectError(await acceptAsNewUser(token), 400, 'INVALID_INVITE_TOKEN');
}

async function expectLive(id: string) {
  const row = await linkRow(id);
  expect(row.revokedAt).toBeNull();
  expect(row.expiresAt.getTime()).toBeGreaterThan(Date.now());
}

const memberUrl = (actor: Actor) => `/api/tenants/members/${actor.memberId}`;

describe('POST /api/tenants/invites/link', () => {
  it('returns the id of the link it created', async () => {
    const acme = await createTenant(t);
    const link = await createLink(acme.owner, 'EDITOR');
    expect(link.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await linkRow(link.id)).toMatchObject({
      tenantId: acme.tenantId,
      role: 'EDITOR',
      revokedAt: null,
    });
  });
});

describe('GET /api/tenants/invites/links', () => {
  it('lists the usable links newest first with meta, never their tokens', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const created = [
      await createLink(acme.owner, 'OWNER'),
      await createLink(admin, 'ADMIN'),
      await createLink(admin, 'EDITOR'),
    ];
    const res = await api('GET', '/api/tenants/invites/links', admin);
    expect(res.statusCode).toBe(200);
    for (const c of created) expect(res.body).not.toContain(c.token);
    expect(res.body).not.toMatch(/hash|token|link"/i);
    const body = res.json() as Awaited<ReturnType<typeof listLinks>>;
    expect(body.meta).toEqual({ page: 1, limit: 20, total: 3, totalPages: 1 });
    expect(body.data.map((l) => l.id)).toEqual(created.map((c) => c.id).reverse());
    const row = await linkRow(created[1]!.id);
    expect(body.data[1]).toEqual({
      id: created[1]!.id,
      role: 'ADMIN',
      createdBy: admin.userId,
      expiresAt: created[1]!.expiresAt,
      createdAt: row.createdAt.toISOString(),
    });

    const page2 = await listLinks(admin, '?page=2&limit=2');
    expect(page2.meta).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 });
    expect(page2.data.map((l) => l.id)).toEqual([created[0]!.id]);
  });

  it('leaves out revoked links, expired links and other tenants’ links', async () => {
    const acme = await createTenant(t);
    const other = await createTenant(t);
    const kept = await createLink(acme.owner);
    const revoked = await createLink(acme.owner);
    await createLink(other.owner);
    expect((await api('DELETE', `/api/tenants/invites/links/${revoked.id}`, acme.owner)).statusCode).toBe(
      204,
    );
    expect(await listedIds(acme.owner)).toEqual([kept.id]);
    expect((await listLinks(acme.owner)).meta.total).toBe(1);

    // A week later the link has expired: no longer listed (nor revocable).
    t.clock.set(Date.now() + INVITE_TTL_MS + 1000);
    try {
      expect(await listLinks(acme.owner)).toEqual({
        data: [],
        meta: { page: 1, limit: 20, total: 0, totalPages: 0 },
      });
      expectError(await api('DELETE', `/api/tenants/invites/links/${kept.id}`, acme.owner), 404, 'NOT_FOUND');
    } finally {
      t.clock.reset();
    }
    expect((await linkRow(kept.id)).revokedAt).toBeNull();
  });

  it('validates the pagination query', async () => {
    const acme = await createTenant(t);
    for (const [query, path] of [
      ['?limit=0', 'query.limit'],
      ['?limit=101', 'query.limit'],
      ['?page=0', 'query.page'],
      ['?page=x', 'query.page'],
    ] as const) {
      const err = expectError(
        await api('GET', `/api/tenants/invites/links${query}`, acme.owner),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([{ path, message: expect.any(String) }]);
    }
  });
});

describe('DELETE /api/tenants/invites/links/:id', () => {
  it('revokes the link at once (204), audits it, and acceptance refuses it', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const link = await createLink(acme.owner, 'EDITOR');
    const other = await createLink(acme.owner, 'EDITOR');

    const res = await api('DELETE', `/api/tenants/invites/links/${link.id}`, admin, undefined, '192.0.2.77');
    expect(res.statusCode).toBe(204);
    expect(res.body).toBe('');
    await expectRevoked(link.id, link.token);
    expect(await listedIds(admin)).toEqual([other.id]);

    const [entry, ...more] = await auditEntries(t, acme.tenantId, {
      entityId: link.id,
      action: 'INVITE_LINK_REVOKED',
    });
    expect(more).toHaveLength(0);
    expect(entry).toMatchObject({
      entityType: 'invite_link',
      actorId: admin.userId,
      ipAddress: '192.0.2.77',
      metadata: { role: 'EDITOR', createdBy: acme.owner.userId, expiresAt: link.expiresAt },
    });

    // Revoking again: 404, and no second audit entry.
    expectError(await api('DELETE', `/api/tenants/invites/links/${link.id}`, admin), 404, 'NOT_FOUND');
    expect(
      await auditEntries(t, acme.tenantId, { entityId: link.id, action: 'INVITE_LINK_REVOKED' }),
    ).toHaveLength(1);

    // The other link still works.
    expect((await acceptAsNewUser(other.token)).statusCode).toBe(200);
  });

  it('needs ADMIN, and OWNER for an OWNER link', async () => {
    const acme = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const ownerLink = await createLink(acme.owner, 'OWNER');
    const adminLink = await createLink(acme.owner, 'ADMIN');
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      expectError(await api('GET', '/api/tenants/invites/links', actor), 403, 'INSUFFICIENT_ROLE');
      for (const link of [ownerLink, adminLink]) {
        expectError(
          await api('DELETE', `/api/tenants/invites/links/${link.id}`, actor),
          403,
          'INSUFFICIENT_ROLE',
        );
      }
    }
    expectError(
      await api('DELETE', `/api/tenants/invites/links/${ownerLink.id}`, admin),
      403,
      'INSUFFICIENT_ROLE',
    );
    await expectLive(ownerLink.id);
    await expectLive(adminLink.id);
    expect(
      await auditEntries(t, acme.tenantId, { entityId: ownerLink.id, action: 'INVITE_LINK_REVOKED' }),
    ).toHaveLength(0);

    expect((await api('DELETE', `/api/tenants/invites/links/${adminLink.id}`, admin)).statusCode).toBe(204);
    expect((await api('DELETE', `/api/tenants/invites/links/${ownerLink.id}`, acme.owner)).statusCode).toBe(
      204,
    );
    await expectRevoked(ownerLink.id, ownerLink.token);
    await expectRevoked(adminLink.id, adminLink.token);

    for (const [method, url] of [
      ['GET', '/api/tenants/invites/links'],
      ['DELETE', `/api/tenants/invites/links/${ownerLink.id}`],
    ] as const) {
      expectError(await api(method, url, null), 401, 'AUTH_NO_TOKEN');
    }
  });

  it('answers 404 NOT_FOUND to another tenant and for unknown or malformed ids', async () => {
    const acme = await createTenant(t);
    const other = await createTenant(t);
    const link = await createLink(acme.owner, 'VIEWER');
    for (const id of [link.id, 'not-a-uuid', '01900000-0000-7000-8000-000000000000']) {
      expectError(await api('DELETE', `/api/tenants/invites/links/${id}`, other.owner), 404, 'NOT_FOUND');
    }
    expect(await listedIds(other.owner)).toEqual([]);
    for (const id of ['not-a-uuid', '01900000-0000-7000-8000-000000000000']) {
      expectError(await api('DELETE', `/api/tenants/invites/links/${id}`, acme.owner), 404, 'NOT_FOUND');
    }
    await expectLive(link.id);
    expect(await listedIds(acme.owner)).toEqual([link.id]);
  });
});

describe('links outliving their creator', () => {
  async function linksOf(creator: Actor, roles: Role[]) {
    const out: (CreatedLink & { token: string })[] = [];
    for (const role of roles) out.push(await createLink(creator, role));
    return out;
  }

  it("removing a member revokes every usable link they created, in the removal's audit entry", async () => {
    const acme = await createTenant(t);
    const leaving = await acme.as('ADMIN');
    const staying = await acme.as('ADMIN');
    const theirs = await linksOf(leaving, ['ADMIN', 'EDITOR', 'VIEWER']);
    const [kept] = await linksOf(staying, ['EDITOR']);
    // An already expired link of theirs is left as it is.
    const [expired] = await db()
      .update(inviteLinks)
      .set({ expiresAt: new Date(Date.now() - 1000) })
      .where(eq(inviteLinks.id, theirs[2]!.id))
      .returning();

    expect((await api('DELETE', memberUrl(leaving), acme.owner)).statusCode).toBe(204);
    for (const link of theirs.slice(0, 2)) await expectRevoked(link.id, link.token);
    expect(await linkRow(expired!.id)).toMatchObject({ revokedAt: null, expiresAt: expired!.expiresAt });
    await expectLive(kept!.id);
    expect(await listedIds(acme.owner)).toEqual([kept!.id]);

    const [entry] = await auditEntries(t, acme.tenantId, {
      entityId: leaving.memberId,
      action: 'MEMBER_REMOVED',
    });
    expect(entry!.metadata).toMatchObject({ role: 'ADMIN', userId: leaving.userId, revokedInviteLinks: 2 });

    // A member without links: the count is 0.
    const editor = await acme.as('EDITOR');
    expect((await api('DELETE', memberUrl(editor), staying)).statusCode).toBe(204);
    const [none] = await auditEntries(t, acme.tenantId, {
      entityId: editor.memberId,
      action: 'MEMBER_REMOVED',
    });
    expect(none!.metadata).toMatchObject({ revokedInviteLinks: 0 });
  });

  it('removal revokes only links of that member in that tenant', async () => {
    const acme = await createTenant(t);
    const other = await createTenant(t);
    const admin = await acme.as('ADMIN');
    const otherLink = await createLink(other.owner, 'ADMIN');
    const ownerLink = await createLink(acme.owner, 'ADMIN');
    await linksOf(admin, ['VIEWER']);
    expect((await api('DELETE', memberUrl(admin), acme.owner)).statusCode).toBe(204);
    await expectLive(otherLink.id);
    await expectLive(ownerLink.id);
  });

  it('a demotion revokes the links granting a role above the new one', async () => {
    const acme = await createTenant(t);
    const coOwner = await acme.as('OWNER');
    const [ownerL, adminL, editorL, viewerL] = await linksOf(coOwner, ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER']);
    const bystander = await createLink(acme.owner, 'OWNER');

    // OWNER → ADMIN: only the OWNER link goes.
    let res = await api('PATCH', memberUrl(coOwner), acme.owner, { role: 'ADMIN' });
    expect(res.statusCode, res.body).toBe(200);
    await expectRevoked(ownerL!.id, ownerL!.token);
    for (const l of [adminL!, editorL!, viewerL!, bystander]) await expectLive(l.id);
    let entries = await auditEntries(t, acme.tenantId, {
      entityId: coOwner.memberId,
      action: 'MEMBER_ROLE_CHANGED',
    });
    expect(entries.at(-1)!.metadata).toMatchObject({ from: 'OWNER', to: 'ADMIN', revokedInviteLinks: 1 });

    // A promotion revokes nothing.
    res = await api('PATCH', memberUrl(coOwner), acme.owner, { role: 'OWNER' });
    expect(res.statusCode).toBe(200);
    for (const l of [adminL!, editorL!, viewerL!]) await expectLive(l.id);
    entries = await auditEntries(t, acme.tenantId, {
      entityId: coOwner.memberId,
      action: 'MEMBER_ROLE_CHANGED',
    });
    expect(entries.at(-1)!.metadata).toMatchObject({ from: 'ADMIN', to: 'OWNER', revokedInviteLinks: 0 });

    // OWNER → VIEWER: the ADMIN and EDITOR links go, the VIEWER link stays.
    res = await api('PATCH', memberUrl(coOwner), acme.owner, { role: 'VIEWER' });
    expect(res.statusCode).toBe(200);
    await expectRevoked(adminL!.id, adminL!.token);
    await expectRevoked(editorL!.id, editorL!.token);
    await expectLive(viewerL!.id);
    await expectLive(bystander.id);
    entries = await auditEntries(t, acme.tenantId, {
      entityId: coOwner.memberId,
      action: 'MEMBER_ROLE_CHANGED',
    });
    expect(entries.at(-1)!.metadata).toMatchObject({ from: 'OWNER', to: 'VIEWER', revokedInviteLinks: 2 });
    expect(new Set(await listedIds(acme.owner))).toEqual(new Set([viewerL!.id, bystander.id]));
  });
});
