import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const KB = '/api/ai/knowledge-base';

async function addArticle(tenant: TenantFixture, body: Record<string, unknown>) {
  const res = await callAs(t, tenant, 'POST', KB, body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data as { id: string; updatedAt: string; [k: string]: unknown };
}

const titles = (res: { json(): { data: { title: string }[] } }) => res.json().data.map((a) => a.title);

describe('knowledge-base CRUD', () => {
  it('creates (EDITOR), reads (VIEWER), updates and deletes an article, auditing each write', async () => {
    const tenant = await createTenant(t);
    const editor = await tenant.as('EDITOR');
    const viewer = await tenant.as('VIEWER');
    const created = await callAs(t, editor, 'POST', KB, {
      title: '  Reset your password ',
      content: '# Steps\n\nChoose **Forgot password** on the sign-in page.',
      category: 'Account',
      tags: ['login', 'password', 'login'],
      metadata: { source: 'help-center' },
    });
    expect(created.statusCode).toBe(201);
    const article = created.json().data;
    expect(article).toEqual({
      id: expect.any(String),
      tenantId: tenant.tenantId,
      title: 'Reset your password',
      content: '# Steps\n\nChoose **Forgot password** on the sign-in page.',
      category: 'Account',
      tags: ['login', 'password'],
      metadata: { source: 'help-center' },
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
    });

    const read = await callAs(t, viewer, 'GET', `${KB}/${article.id}`);
    expect(read.json()).toEqual({ data: article });

    const patched = await callAs(t, editor, 'PATCH', `${KB}/${article.id}`, {
      category: null,
      tags: ['security'],
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json().data).toMatchObject({
      category: null,
      tags: ['security'],
      title: 'Reset your password',
    });

    const deleted = await callAs(t, editor, 'DELETE', `${KB}/${article.id}`);
    expect(deleted.statusCode).toBe(204);
    expect(deleted.body).toBe('');
    expectError(await callAs(t, viewer, 'GET', `${KB}/${article.id}`), 404, 'NOT_FOUND');
    expectError(await callAs(t, editor, 'DELETE', `${KB}/${article.id}`), 404, 'NOT_FOUND');

    const entries = await auditEntries(t, tenant.tenantId, { entityId: article.id });
    expect(entries.map((e) => [e.action, e.metadata])).toEqual([
      ['KB_ARTICLE_CREATED', { title: 'Reset your password' }],
      ['KB_ARTICLE_UPDATED', { changes: ['category', 'tags'] }],
      ['KB_ARTICLE_DELETED', { title: 'Reset your password' }],
    ]);
  });

  it('a PATCH that changes nothing writes nothing: same updatedAt, no audit row', async () => {
    const tenant = await createTenant(t);
    const article = await addArticle(tenant, { title: 'Same', content: 'Body', tags: ['a', 'b'] });
    t.clock.advance(5_000);
    const res = await callAs(t, tenant, 'PATCH', `${KB}/${article.id}`, { title: 'Same', tags: ['a', 'b'] });
    t.clock.reset();
    expect(res.statusCode).toBe(200);
    expect(res.json().data.updatedAt).toBe(article.updatedAt);
    expect(await auditEntries(t, tenant.tenantId, { action: 'KB_ARTICLE_UPDATED' })).toEqual([]);
  });

  it('lists newest first with the spec’s meta, and filters by category (case-insensitive)', async () => {
    const tenant = await createTenant(t);
    for (const [i, category] of ['Billing', 'Account', 'billing'].entries()) {
      t.clock.set(Date.parse('2026-03-01T00:00:00Z') + i * 1000);
      await addArticle(tenant, { title: `Article ${i}`, content: 'text', category });
    }
    t.clock.reset();
    const page1 = await callAs(t, tenant, 'GET', `${KB}?limit=2`);
    expect(titles(page1)).toEqual(['Article 2', 'Article 1']);
    expect(page1.json().meta).toEqual({ page: 1, limit: 2, total: 3, totalPages: 2 });
    const billing = await callAs(t, tenant, 'GET', `${KB}?category=BILLING`);
    expect(titles(billing)).toEqual(['Article 2', 'Article 0']);
  });

  it('validates bodies, queries and ids', async () => {
    const tenant = await createTenant(t);
    const cases = [
      [{ content: 'x' }, 'title'],
      [{ title: 'x' }, 'content'],
      [{ title: 'x', content: 'y', tags: 'billing' }, 'tags'],
      [{ title: 'x', content: 'y', tags: ['ok', ''] }, 'tags.1'],
      [{ title: 'x', content: 'y', metadata: [] }, 'metadata'],
    ] as const;
    for (const [body, path] of cases) {
      const err = expectError(await callAs(t, tenant, 'POST', KB, body), 400, 'VALIDATION_ERROR');
      expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
    }
    const err = expectError(await callAs(t, tenant, 'GET', `${KB}?limit=0`), 400, 'VALIDATION_ERROR');
    expect(err.details).toEqual([expect.objectContaining({ path: 'query.limit' })]);
    expectError(await callAs(t, tenant, 'GET', `${KB}/not-a-uuid`), 404, 'NOT_FOUND');
    expectError(await callAs(t, tenant, 'PATCH', `${KB}/not-a-uuid`, { title: 'x' }), 404, 'NOT_FOUND');
    expectError(await callAs(t, tenant, 'DELETE', `${KB}/not-a-uuid`), 404, 'NOT_FOUND');
  });

  it('a VIEWER reads but cannot write', async () => {
    const tenant = await createTenant(t);
    const article = await addArticle(tenant, { title: 'Read me', content: 'text' });
    const viewer = await tenant.as('VIEWER');
    expect((await callAs(t, viewer, 'GET', KB)).statusCode).toBe(200);
    expectError(await callAs(t, viewer, 'POST', KB, { title: 'x', content: 'y' }), 403, 'INSUFFICIENT_ROLE');
    expectError(
      await callAs(t, viewer, 'PATCH', `${KB}/${article.id}`, { title: 'x' }),
      403,
      'INSUFFICIENT_ROLE',
    );
    expectError(await callAs(t, viewer, 'DELETE', `${KB}/${article.id}`), 403, 'INSUFFICIENT_ROLE');
  });

  it('creating needs the plan’s ai feature; existing articles stay readable and editable', async () => {
    const tenant = await createTenant(t);
    const article = await addArticle(tenant, { title: 'Kept', content: 'text' });
    await t.deps.database.query(
      `update subscriptions set plan_id = (select id from plans where name = 'free') where tenant_id = $1`,
      [tenant.tenantId],
    );
    expectError(
      await callAs(t, tenant, 'POST', KB, { title: 'New', content: 'text' }),
      403,
      'PLAN_FEATURE_UNAVAILABLE',
    );
    expect((await callAs(t, tenant, 'GET', `${KB}/${article.id}`)).statusCode).toBe(200);
    expect(
      (await callAs(t, tenant, 'PATCH', `${KB}/${article.id}`, { title: 'Kept, edited' })).statusCode,
    ).toBe(200);
  });
});

describe('full-text search', () => {
  async function helpCenter() {
    const tenant = await createTenant(t);
    await addArticle(tenant, {
      title: 'Reset a forgotten password',
      content: 'Choose Forgot password and follow the link we send you.',
      category: 'Account',
    });
    await addArticle(tenant, {
      title: 'Change your email address',
      content: 'Open your profile. If you also want a new password, see the password article.',
      category: 'Account',
    });
    await addArticle(tenant, {
      title: 'Invoices',
      content: 'Download invoices as PDF files from the billing page.',
      category: 'Billing',
      tags: ['receipts'],
    });
    return tenant;
  }

  it('matches stemmed words, ranks title matches first, and honours web-search syntax', async () => {
    const tenant = await helpCenter();
    const search = async (q: string) =>
      titles(await callAs(t, tenant, 'GET', `${KB}?search=${encodeURIComponent(q)}`));
    expect(await search('passwords')).toEqual(['Reset a forgotten password', 'Change your email address']);
    expect(await search('password -email')).toEqual(['Reset a forgotten password']);
    expect(await search('"forgotten password"')).toEqual(['Reset a forgotten password']);
    expect(await search('receipt')).toEqual(['Invoices']);
    expect((await search('invoices or email')).sort()).toEqual(['Change your email address', 'Invoices']);
    expect(await search('the')).toEqual([]);
    const filtered = await callAs(t, tenant, 'GET', `${KB}?search=password&category=billing`);
    expect(filtered.json()).toEqual({ data: [], meta: { page: 1, limit: 20, total: 0, totalPages: 0 } });
  });

  it('counts matches in meta and pages through them', async () => {
    const tenant = await helpCenter();
    const res = await callAs(t, tenant, 'GET', `${KB}?search=password&limit=1&page=2`);
    expect(titles(res)).toEqual(['Change your email address']);
    expect(res.json().meta).toEqual({ page: 2, limit: 1, total: 2, totalPages: 2 });
  });
});

describe('tenant isolation', () => {
  it('another tenant’s article is not found, listed or searched', async () => {
    const a = await createTenant(t);
    const b = await createTenant(t);
    const article = await addArticle(a, { title: 'Secret roadmap', content: 'Only for tenant A' });
    expectError(await callAs(t, b, 'GET', `${KB}/${article.id}`), 404, 'NOT_FOUND');
    expectError(await callAs(t, b, 'PATCH', `${KB}/${article.id}`, { title: 'Mine now' }), 404, 'NOT_FOUND');
    expectError(await callAs(t, b, 'DELETE', `${KB}/${article.id}`), 404, 'NOT_FOUND');
    expect((await callAs(t, b, 'GET', KB)).json().data).toEqual([]);
    expect((await callAs(t, b, 'GET', `${KB}?search=roadmap`)).json().data).toEqual([]);
    expect((await callAs(t, a, 'GET', `${KB}/${article.id}`)).json().data.title).toBe('Secret roadmap');
  });
});
