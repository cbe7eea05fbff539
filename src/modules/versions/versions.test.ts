import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, callAs, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, dashboard, SITE, sdkCall, tooltip } from '../../../test/helpers/sdk.js';

/**
 * Versions through HTTP (docs/versions.md): publishing takes a snapshot, the SDK serves the live
 * one only, edits wait for a publish, roll back serves an old version at once, diffs, 404s and
 * tenant isolation. Runs on the embedded database and on PostgreSQL (DATABASE_URL).
 */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Session {
  flows: {
    id: string;
    name: string;
    version?: number;
    steps: { id: string; content: Record<string, unknown> }[];
  }[];
  content: { id: string; name: string; content?: Record<string, unknown>; version?: number }[];
}

async function setup() {
  const tenant = await createTenant(t);
  const sdk = sdkCall(t, await apiKeyOf(t, tenant));
  const session = async (): Promise<Session> => {
    const res = await sdk('POST', '/api/sdk/session', { userId: 'u-1' });
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };
  const call = (method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', url: string, body?: unknown) =>
    callAs(t, tenant, method, url, body);
  return { tenant, session, call };
}

const titles = (s: Session, flowId: string) =>
  s.flows.find((f) => f.id === flowId)?.steps.map((st) => st.content.title) ?? null;

async function newFlow(tenant: TenantFixture, titlesOf: string[], extra: Record<string, unknown> = {}) {
  return dashboard(t, tenant, 'POST', '/api/flows', {
    name: 'Tour',
    siteId: SITE,
    template: 'PRODUCT_TOUR',
    steps: titlesOf.map((title) => ({ type: 'MODAL', content: { title } })),
    ...extra,
  });
}

describe('flow versions', () => {
  it('serves the published snapshot only: an edit waits for the next publish, which takes the next version', async () => {
    const { tenant, session, call } = await setup();
    const flow = await newFlow(tenant, ['A1', 'A2']);
    expect(flow).toMatchObject({ version: null, hasUnpublishedChanges: false });

    const published = await call('POST', `/api/flows/${flow.id}/publish`, { note: 'first' });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json().data).toMatchObject({
      status: 'PUBLISHED',
      version: 1,
      hasUnpublishedChanges: false,
    });
    expect(titles(await session(), flow.id)).toEqual(['A1', 'A2']);

    // Edits of every kind change the working copy only.
    await dashboard(t, tenant, 'PATCH', `/api/flows/${flow.id}/steps/${flow.steps[0].id}`, {
      content: { title: 'B1' },
    });
    await dashboard(t, tenant, 'PATCH', `/api/flows/${flow.id}`, { name: 'Tour 2' });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/steps`, {
      type: 'MODAL',
      content: { title: 'B3' },
    });
    const edited = await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}`);
    expect(edited).toMatchObject({ name: 'Tour 2', version: 1, hasUnpublishedChanges: true });
    const before = await session();
    expect(titles(before, flow.id)).toEqual(['A1', 'A2']);
    expect(before.flows[0]).toMatchObject({ name: 'Tour', version: 1 });

    const second = await call('POST', `/api/flows/${flow.id}/publish`);
    expect(second.statusCode, second.body).toBe(200);
    expect(second.json().data).toMatchObject({ version: 2, hasUnpublishedChanges: false });
    const after = await session();
    expect(titles(after, flow.id)).toEqual(['B1', 'A2', 'B3']);
    expect(after.flows[0]).toMatchObject({ name: 'Tour 2', version: 2 });

    // Nothing changed since: 409 as the state table says.
    expectError(await call('POST', `/api/flows/${flow.id}/publish`), 409, 'INVALID_STATE_TRANSITION');

    const list = (await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}/versions`)) as {
      version: number;
      live: boolean;
      note: string | null;
      publishedBy: string | null;
      bytes: number;
    }[];
    expect(list.map((v) => [v.version, v.live, v.note])).toEqual([
      [2, true, null],
      [1, false, 'first'],
    ]);
    expect(list[0]!.publishedBy).toBe(tenant.owner.userId);
    expect(list[0]!.bytes).toBeGreaterThan(0);

    const v1 = await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}/versions/1`);
    expect(v1.snapshot).toMatchObject({
      name: 'Tour',
      steps: [{ content: { title: 'A1' } }, { content: { title: 'A2' } }],
    });

    const audits = await auditEntries(t, tenant.tenantId, { entityId: flow.id, action: 'FLOW_PUBLISHED' });
    expect(audits.map((a) => a.metadata.version)).toEqual([1, 2]);
  });

  it('rolls back in one call: version m+1 equal to n, live at once; restore only changes the working copy', async () => {
    const { tenant, session, call } = await setup();
    const flow = await newFlow(tenant, ['old']);
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    await dashboard(t, tenant, 'PATCH', `/api/flows/${flow.id}/steps/${flow.steps[0].id}`, {
      content: { title: 'new' },
    });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    expect(titles(await session(), flow.id)).toEqual(['new']);

    const rolled = await call('POST', `/api/flows/${flow.id}/versions/1/publish`);
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(rolled.json().data).toMatchObject({ version: 3, hasUnpublishedChanges: false });
    expect(rolled.json().data.steps.map((s: { content: { title: string } }) => s.content.title)).toEqual([
      'old',
    ]);
    expect(titles(await session(), flow.id)).toEqual(['old']);
    const diff = await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}/versions/1/diff/3`);
    expect(diff).toMatchObject({
      from: 1,
      to: 3,
      fields: [],
      collections: { steps: { added: [], removed: [], moved: [], changed: [] } },
    });
    const [entry] = await auditEntries(t, tenant.tenantId, { entityId: flow.id, action: 'FLOW_ROLLED_BACK' });
    expect(entry!.metadata).toEqual({ version: 1, newVersion: 3, previousVersion: 2 });

    // Rolling back to what is live: nothing to do.
    expectError(
      await call('POST', `/api/flows/${flow.id}/versions/3/publish`),
      409,
      'INVALID_STATE_TRANSITION',
    );

    const restored = await call('POST', `/api/flows/${flow.id}/versions/2/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data).toMatchObject({ version: 3, hasUnpublishedChanges: true });
    expect(restored.json().data.steps[0].content.title).toBe('new');
    expect(titles(await session(), flow.id)).toEqual(['old']);
    const [restoreAudit] = await auditEntries(t, tenant.tenantId, {
      entityId: flow.id,
      action: 'FLOW_VERSION_RESTORED',
    });
    expect(restoreAudit!.metadata).toEqual({ version: 2 });
  });

  it("keeps a step's learned fingerprint through restore and roll back (it is learned, not versioned)", async () => {
    const { tenant, call } = await setup();
    const fp = { v: 1, tag: 'button', text: 'Save' };
    const flow = await dashboard(t, tenant, 'POST', '/api/flows', {
      name: 'Tour',
      siteId: SITE,
      template: 'PRODUCT_TOUR',
      steps: [{ type: 'TOOLTIP', targetSelector: '#save', content: { title: 'old' } }],
    });
    const stepUrl = `/api/flows/${flow.id}/steps/${flow.steps[0].id}`;
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    await dashboard(t, tenant, 'PATCH', stepUrl, { content: { title: 'new' }, targetFingerprint: fp });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);

    const restored = await call('POST', `/api/flows/${flow.id}/versions/1/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data.steps[0]).toMatchObject({ content: { title: 'old' }, targetFingerprint: fp });
    await dashboard(t, tenant, 'PATCH', stepUrl, { content: { title: 'newer' } });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    const rolled = await call('POST', `/api/flows/${flow.id}/versions/2/publish`);
    expect(rolled.statusCode, rolled.body).toBe(200);
    expect(rolled.json().data.steps[0]).toMatchObject({ content: { title: 'new' }, targetFingerprint: fp });

    // A version whose step targets another selector does not inherit this selector's fingerprint.
    await dashboard(t, tenant, 'PATCH', stepUrl, { targetSelector: '#other' });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    const back = await call('POST', `/api/flows/${flow.id}/versions/2/restore`);
    expect(back.json().data.steps[0]).toMatchObject({ targetSelector: '#save', targetFingerprint: null });
  });

  it('diffs fields and steps added, removed, moved and changed', async () => {
    const { tenant } = await setup();
    const flow = await newFlow(tenant, ['a', 'b', 'c'], { settings: { color: 'blue' } });
    const [a, b, c] = flow.steps as { id: string }[];
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    await dashboard(t, tenant, 'PATCH', `/api/flows/${flow.id}`, {
      name: 'Renamed',
      settings: { color: 'red' },
    });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/steps/reorder`, {
      stepIds: [c!.id, a!.id, b!.id],
    });
    await dashboard(t, tenant, 'PATCH', `/api/flows/${flow.id}/steps/${b!.id}`, { content: { title: 'B' } });
    await dashboard(t, tenant, 'DELETE', `/api/flows/${flow.id}/steps/${a!.id}`);
    const d = await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/steps`, {
      type: 'TOOLTIP',
      targetSelector: '#x',
      content: { title: 'd' },
    });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);

    const diff = await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}/versions/1/diff/2`);
    expect(diff.fields).toEqual([
      { path: 'name', from: 'Tour', to: 'Renamed' },
      { path: 'settings.color', from: 'blue', to: 'red' },
    ]);
    const steps = diff.collections.steps;
    expect(steps.added.map((x: { id: string; index: number }) => [x.id, x.index])).toEqual([[d.id, 2]]);
    expect(steps.removed.map((x: { id: string; index: number }) => [x.id, x.index])).toEqual([[a!.id, 0]]);
    expect(steps.moved).toEqual([{ id: c!.id, from: 2, to: 0 }]);
    expect(steps.changed).toEqual([{ id: b!.id, fields: [{ path: 'content.title', from: 'b', to: 'B' }] }]);
    // The reverse diff mirrors it.
    const back = await dashboard(t, tenant, 'GET', `/api/flows/${flow.id}/versions/2/diff/1`);
    expect(back.collections.steps.added.map((x: { id: string }) => x.id)).toEqual([a!.id]);
    expect(back.fields[0]).toEqual({ path: 'name', from: 'Renamed', to: 'Tour' });
  });

  it('answers 404 CONTENT_NOT_FOUND for unknown versions and 400 for malformed numbers', async () => {
    const { tenant, call } = await setup();
    const flow = await newFlow(tenant, ['a']);
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    for (const [method, url] of [
      ['GET', `/api/flows/${flow.id}/versions/2`],
      ['GET', `/api/flows/${flow.id}/versions/1/diff/9`],
      ['GET', `/api/flows/${flow.id}/versions/9/diff/1`],
      ['POST', `/api/flows/${flow.id}/versions/2/restore`],
      ['POST', `/api/flows/${flow.id}/versions/2/publish`],
    ] as const) {
      expectError(await call(method, url), 404, 'CONTENT_NOT_FOUND');
    }
    expectError(await call('GET', `/api/flows/${flow.id}/versions/0`), 400, 'VALIDATION_ERROR');
    expectError(await call('GET', `/api/flows/${flow.id}/versions/x`), 400, 'VALIDATION_ERROR');
    // A draft never published has no versions.
    const draft = await newFlow(tenant, ['a']);
    expect(await dashboard(t, tenant, 'GET', `/api/flows/${draft.id}/versions`)).toEqual([]);
  });

  it("never shows or changes another tenant's versions", async () => {
    const { tenant } = await setup();
    const other = await createTenant(t);
    const flow = await newFlow(tenant, ['a']);
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    for (const [method, url] of [
      ['GET', `/api/flows/${flow.id}/versions`],
      ['GET', `/api/flows/${flow.id}/versions/1`],
      ['GET', `/api/flows/${flow.id}/versions/1/diff/1`],
      ['POST', `/api/flows/${flow.id}/versions/1/restore`],
      ['POST', `/api/flows/${flow.id}/versions/1/publish`],
      ['GET', '/api/flows/not-a-uuid/versions'],
    ] as const) {
      expectError(await callAs(t, other, method, url), 404, 'CONTENT_NOT_FOUND');
    }
  });

  it('lets a VIEWER read versions but not restore or roll back', async () => {
    const { tenant } = await setup();
    const flow = await newFlow(tenant, ['a']);
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    const viewer = await tenant.as('VIEWER');
    expect((await callAs(t, viewer, 'GET', `/api/flows/${flow.id}/versions`)).statusCode).toBe(200);
    expectError(
      await callAs(t, viewer, 'POST', `/api/flows/${flow.id}/versions/1/restore`),
      403,
      'INSUFFICIENT_ROLE',
    );
  });
});

describe('content versions', () => {
  it('an item live on creation gets version 1; edits wait for a publish; diffs walk the body', async () => {
    const { tenant, session, call } = await setup();
    const item = await dashboard(t, tenant, 'POST', '/api/content/announcements', {
      name: 'News',
      siteId: SITE,
      type: 'BANNER',
      content: { title: 'Hello' },
    });
    expect(item).toMatchObject({ status: 'PUBLISHED', version: 1, hasUnpublishedChanges: false });
    const served = async () =>
      (await session()).content.find((c) => c.id === item.id) as Record<string, unknown>;
    expect(await served()).toMatchObject({ content: { title: 'Hello' }, version: 1 });

    const edited = await dashboard(t, tenant, 'PATCH', `/api/content/announcements/${item.id}`, {
      content: { title: 'Bye' },
    });
    expect(edited).toMatchObject({ content: { title: 'Bye' }, version: 1, hasUnpublishedChanges: true });
    expect(await served()).toMatchObject({ content: { title: 'Hello' } });

    const published = await call('POST', `/api/content/announcements/${item.id}/publish`, {
      note: 'new title',
    });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json().data).toMatchObject({ version: 2, hasUnpublishedChanges: false });
    expect(await served()).toMatchObject({ content: { title: 'Bye' }, version: 2 });
    expectError(
      await call('POST', `/api/content/announcements/${item.id}/publish`),
      409,
      'INVALID_STATE_TRANSITION',
    );

    const diff = await dashboard(t, tenant, 'GET', `/api/content/announcements/${item.id}/versions/1/diff/2`);
    expect(diff.fields).toEqual([{ path: 'body.content.title', from: 'Hello', to: 'Bye' }]);
    expect(diff.collections).toEqual({});

    await dashboard(t, tenant, 'POST', `/api/content/announcements/${item.id}/versions/1/publish`);
    expect(await served()).toMatchObject({ content: { title: 'Hello' }, version: 3 });
    const list = await dashboard(t, tenant, 'GET', `/api/content/announcements/${item.id}/versions`);
    expect(list.map((v: { version: number; note: string | null }) => [v.version, v.note])).toEqual([
      [3, 'Rollback to version 1'],
      [2, 'new title'],
      [1, null],
    ]);
  });

  it('a tooltip published from draft, edited, unpublished and republished serves its latest publish', async () => {
    const { tenant, session, call } = await setup();
    const item = await dashboard(t, tenant, 'POST', '/api/content/tooltips', tooltip());
    expect(item).toMatchObject({ status: 'DRAFT', version: null, hasUnpublishedChanges: false });
    await dashboard(t, tenant, 'POST', `/api/content/tooltips/${item.id}/publish`);
    await dashboard(t, tenant, 'PATCH', `/api/content/tooltips/${item.id}`, { content: { text: 'Changed' } });
    const served = async () => (await session()).content.find((c) => c.id === item.id);
    expect((await served())?.content).toEqual({ text: 'Save here' });
    // Unpublishing and publishing again takes the working copy.
    await dashboard(t, tenant, 'POST', `/api/content/tooltips/${item.id}/unpublish`);
    expect(await served()).toBeUndefined();
    await dashboard(t, tenant, 'POST', `/api/content/tooltips/${item.id}/publish`);
    expect((await served())?.content).toEqual({ text: 'Changed' });
    // A content type's versions are only reachable under its own type.
    expectError(await call('GET', `/api/content/beacons/${item.id}/versions`), 404, 'CONTENT_NOT_FOUND');
    const other = await createTenant(t);
    expectError(
      await callAs(t, other, 'GET', `/api/content/tooltips/${item.id}/versions/1`),
      404,
      'CONTENT_NOT_FOUND',
    );
  });
  it("keeps a tooltip's learned fingerprint through restore (same selector only)", async () => {
    const { tenant, call } = await setup();
    const fp = { v: 1, tag: 'button', text: 'Save' };
    const item = await dashboard(t, tenant, 'POST', '/api/content/tooltips', tooltip());
    const url = `/api/content/tooltips/${item.id}`;
    await dashboard(t, tenant, 'POST', `${url}/publish`);
    await dashboard(t, tenant, 'PATCH', url, { content: { text: 'Changed' }, targetFingerprint: fp });
    const restored = await call('POST', `${url}/versions/1/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data).toMatchObject({ content: { text: 'Save here' }, targetFingerprint: fp });

    await dashboard(t, tenant, 'PATCH', url, { targetSelector: '#other', targetFingerprint: fp });
    await dashboard(t, tenant, 'POST', `${url}/publish`);
    const back = await call('POST', `${url}/versions/1/restore`);
    expect(back.statusCode, back.body).toBe(200);
    expect(back.json().data.targetSelector).toBe('#save');
    expect(back.json().data.targetFingerprint ?? null).toBeNull();
  });
});

describe('audience versions', () => {
  it('every change is a version, applied at once; restore applies an old one as a new version', async () => {
    const { tenant, session, call } = await setup();
    const pro = { field: 'traits.plan', operator: 'eq', value: 'pro' };
    const aud = await dashboard(t, tenant, 'POST', '/api/audiences', { name: 'Pro', ruleTree: pro });
    const flow = await newFlow(tenant, ['a'], { audienceId: aud.id });
    await dashboard(t, tenant, 'POST', `/api/flows/${flow.id}/publish`);
    expect((await session()).flows).toEqual([]);

    await dashboard(t, tenant, 'PATCH', `/api/audiences/${aud.id}`, {
      name: 'Everyone',
      ruleTree: { field: 'traits.plan', operator: 'not_exists' },
    });
    expect((await session()).flows.map((f) => f.id)).toEqual([flow.id]);
    // A PATCH that changes nothing is no version.
    await dashboard(t, tenant, 'PATCH', `/api/audiences/${aud.id}`, { name: 'Everyone' });

    const list = await dashboard(t, tenant, 'GET', `/api/audiences/${aud.id}/versions`);
    expect(list.map((v: { version: number; live: boolean }) => v.version)).toEqual([2, 1]);
    const diff = await dashboard(t, tenant, 'GET', `/api/audiences/${aud.id}/versions/1/diff/2`);
    expect(diff.fields).toEqual([
      { path: 'name', from: 'Pro', to: 'Everyone' },
      { path: 'ruleTree.operator', from: 'eq', to: 'not_exists' },
      { path: 'ruleTree.value', from: 'pro', to: null },
    ]);

    const restored = await call('POST', `/api/audiences/${aud.id}/versions/1/restore`);
    expect(restored.statusCode, restored.body).toBe(200);
    expect(restored.json().data).toMatchObject({ name: 'Pro', ruleTree: pro });
    expect((await session()).flows).toEqual([]);
    const after = await dashboard(t, tenant, 'GET', `/api/audiences/${aud.id}/versions`);
    expect(after.map((v: { version: number }) => v.version)).toEqual([3, 2, 1]);
    // No draft, so no publish route.
    expect((await call('POST', `/api/audiences/${aud.id}/versions/1/publish`)).statusCode).toBe(404);
    expectError(await call('GET', `/api/audiences/${aud.id}/versions/7`), 404, 'CONTENT_NOT_FOUND');
    const other = await createTenant(t);
    expectError(await callAs(t, other, 'GET', `/api/audiences/${aud.id}/versions`), 404, 'NOT_FOUND');
  });
});
