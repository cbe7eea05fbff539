import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { auditEntries, createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import {
  apiKeyOf,
  dashboard,
  publishedContent,
  publishedFlow,
  SITE,
  sdkCall,
} from '../../../test/helpers/sdk.js';
import { pickTokens, targetLookups } from '../../db/schema/index.js';
import { sha256 } from '../../platform/crypto.js';
import { newId } from '../../platform/ids.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let key: string;
let otherKey: string;

const fp = (name: string, extra: Record<string, unknown> = {}) => ({
  v: 1,
  tag: 'button',
  role: 'button',
  name,
  text: name,
  path: 'body>main>button',
  rect: [Math.random() * 100, 10, 80, 30],
  ...extra,
});

interface Lookup {
  itemKind: 'flow' | 'content';
  itemId: string;
  stepId: string | null;
  outcome: string;
  selector: string;
  fingerprint?: unknown;
  suggestedSelector?: string;
}

async function report(apiKey: string, lookups: Lookup[], at = t.clock.now()) {
  const res = await sdkCall(t, apiKey)('POST', '/api/sdk/events', {
    events: lookups.map((properties, i) => ({
      id: newId(),
      type: 'TARGET_LOOKUP',
      properties: { pageTemplate: '/settings', ...properties },
      timestamp: new Date(at - i).toISOString(),
      anonymousId: 'anon-1',
    })),
  });
  expect(res.statusCode, res.body).toBe(202);
  await t.processEvents();
}

async function flowWithTarget(tenant: TenantFixture, selector = '#save') {
  const id = await publishedFlow(t, tenant, {
    steps: [
      { type: 'MODAL', content: { title: 'Welcome' } },
      { type: 'TOOLTIP', targetSelector: selector, content: { text: 'Save' } },
    ],
  });
  const flow = await dashboard(t, tenant, 'GET', `/api/flows/${id}`);
  return { id, stepId: flow.steps[1].id as string };
}

const health = (tenant: TenantFixture, url: string) =>
  t.inject({ method: 'GET', url, headers: tenant.owner.headers });

beforeAll(async () => {
  t = await createTestApp();
  [acme, other] = await Promise.all([createTenant(t), createTenant(t)]);
  [key, otherKey] = await Promise.all([apiKeyOf(t, acme), apiKeyOf(t, other)]);
});
afterAll(async () => {
  await t?.close();
});

describe('TARGET_LOOKUP → target health and served fingerprints', () => {
  it('counts outcomes per step, keeps the fingerprint seen most often, and serves it with the step', async () => {
    const { id, stepId } = await flowWithTarget(acme);
    const base = { itemKind: 'flow' as const, itemId: id, stepId, selector: '#save' };
    await report(key, [
      { ...base, outcome: 'found', fingerprint: fp('Save') },
      { ...base, outcome: 'found', fingerprint: fp('Save') }, // another viewport: the same fingerprint
      { ...base, outcome: 'found', fingerprint: fp('Save changes') },
      {
        ...base,
        outcome: 'healed',
        fingerprint: fp('Save'),
        suggestedSelector: 'button[data-action="save"]',
      },
      { ...base, outcome: 'missing' },
      { ...base, outcome: 'ambiguous' },
      // ignored: unknown outcome, no selector, a step id of no step
      { ...base, outcome: 'lost' },
      { ...base, selector: '', outcome: 'found' },
      { ...base, stepId: newId(), outcome: 'missing' },
    ]);
    const res = await health(acme, `/api/flows/${id}/target-health`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      {
        stepId,
        order: 1,
        targetSelector: '#save',
        found: 3,
        healed: 1,
        missing: 1,
        ambiguous: 1,
        suggestedSelector: 'button[data-action="save"]',
        lastSeenAt: expect.any(String),
        status: 'warning',
        lastHour: { found: 3, healed: 1, missing: 1, ambiguous: 1 },
        broken: false,
      },
    ]);
    // served: the fingerprint seen most often (three times "Save"), with the step
    const session = await sdkCall(t, key)('POST', '/api/sdk/session', {
      userId: 'u-1',
      url: 'https://a.example/x',
    });
    expect(session.statusCode, session.body).toBe(201);
    const flow = session.json().data.flows.find((f: { id: string }) => f.id === id);
    expect(flow.steps[1].targetFingerprint).toMatchObject({ v: 1, tag: 'button', name: 'Save' });
    expect(flow.steps[0].targetFingerprint).toBeNull();

    // "Save changes" overtakes once it was seen more often
    await report(
      key,
      [1, 2, 3].map(() => ({ ...base, outcome: 'found', fingerprint: fp('Save changes') })),
    );
    const step = (await dashboard(t, acme, 'GET', `/api/flows/${id}`)).steps[1];
    expect(step.targetFingerprint).toMatchObject({ name: 'Save changes' });
  });

  it('keeps reports of another tenant’s step out, and answers 404 for another tenant’s flow', async () => {
    const { id, stepId } = await flowWithTarget(acme);
    await report(otherKey, [{ itemKind: 'flow', itemId: id, stepId, outcome: 'missing', selector: '#save' }]);
    const rows = await t.deps.database.db
      .select()
      .from(targetLookups)
      .where(eq(targetLookups.targetId, stepId));
    expect(rows).toEqual([]);
    expectError(await health(other, `/api/flows/${id}/target-health`), 404, 'CONTENT_NOT_FOUND');
    expectError(await health(acme, '/api/flows/not-an-id/target-health'), 404, 'CONTENT_NOT_FOUND');
  });

  it('counts only the current selector, and forgets the fingerprint when the selector is changed by hand', async () => {
    const { id, stepId } = await flowWithTarget(acme);
    const base = { itemKind: 'flow' as const, itemId: id, stepId };
    await report(key, [{ ...base, outcome: 'found', selector: '#save', fingerprint: fp('Save') }]);
    expect((await dashboard(t, acme, 'GET', `/api/flows/${id}`)).steps[1].targetFingerprint).not.toBeNull();
    const patched = await dashboard(t, acme, 'PATCH', `/api/flows/${id}/steps/${stepId}`, {
      targetSelector: '#other',
    });
    expect(patched.targetFingerprint).toBeNull();
    const [entry] = (await health(acme, `/api/flows/${id}/target-health`)).json().data;
    expect(entry).toMatchObject({ targetSelector: '#other', found: 0, status: 'unknown', lastSeenAt: null });
  });

  it('tooltips: health under /api/content/tooltips/:id/target-health, fingerprint served in the body', async () => {
    const tipId = await publishedContent(t, acme, 'tooltips', {
      name: 'Tip',
      siteId: SITE,
      targetSelector: '#export',
      content: { text: 'Export' },
    });
    const base = { itemKind: 'content' as const, itemId: tipId, stepId: null, selector: '#export' };
    await report(key, [
      { ...base, outcome: 'found', fingerprint: fp('Export') },
      { ...base, outcome: 'missing' },
    ]);
    const res = await health(acme, `/api/content/tooltips/${tipId}/target-health`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual([
      expect.objectContaining({ stepId: null, order: 0, targetSelector: '#export', found: 1, missing: 1 }),
    ]);
    const tip = await dashboard(t, acme, 'GET', `/api/content/tooltips/${tipId}`);
    expect(tip.targetFingerprint).toMatchObject({ name: 'Export' });
    expectError(await health(acme, `/api/content/beacons/${tipId}/target-health`), 404, 'CONTENT_NOT_FOUND');
    expectError(
      await health(other, `/api/content/tooltips/${tipId}/target-health`),
      404,
      'CONTENT_NOT_FOUND',
    );
    expectError(await health(acme, `/api/content/surveys/${tipId}/target-health`), 400, 'VALIDATION_ERROR');
  });
});

describe('needs attention, broken, and applying a suggested selector', () => {
  it('lists the steps whose lookups mostly fail, and applies a suggestion in one click (audited)', async () => {
    const { id, stepId } = await flowWithTarget(acme, '.css-1x2y3z-Save');
    const base = { itemKind: 'flow' as const, itemId: id, stepId, selector: '.css-1x2y3z-Save' };
    await report(key, [
      { ...base, outcome: 'missing' },
      { ...base, outcome: 'missing' },
      { ...base, outcome: 'healed', fingerprint: fp('Save'), suggestedSelector: 'button::-p-text("Save")' },
    ]);
    const list = await health(acme, '/api/target-health/needs-attention');
    expect(list.statusCode, list.body).toBe(200);
    expect(list.json().data).toContainEqual(
      expect.objectContaining({
        itemKind: 'flow',
        itemId: id,
        itemName: 'Tour',
        stepId,
        attention: 'hour',
        broken: true,
        missing: 2,
        healed: 1,
        suggestedSelector: 'button::-p-text("Save")',
      }),
    );
    expect((await health(other, '/api/target-health/needs-attention')).json().data).toEqual([]);

    const apply = (body?: unknown, who = acme) =>
      t.inject({
        method: 'POST',
        url: `/api/flows/${id}/steps/${stepId}/apply-suggested-selector`,
        headers: who.owner.headers,
        ...(body ? { payload: body as object } : {}),
      });
    expectError(await apply(undefined, other), 404, 'CONTENT_NOT_FOUND');
    expectError(await apply({ suggestedSelector: '#stale' }), 409, 'VERSION_CONFLICT');
    const applied = await apply({ suggestedSelector: 'button::-p-text("Save")' });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data).toMatchObject({ id: stepId, targetSelector: 'button::-p-text("Save")' });
    expect(applied.json().data.targetFingerprint).toMatchObject({ name: 'Save' }); // the same element
    const [audited] = await auditEntries(t, acme.tenantId, { action: 'TARGET_SELECTOR_APPLIED' });
    expect(audited).toMatchObject({
      entityType: 'flow',
      entityId: id,
      actorId: acme.owner.userId,
      metadata: { targetId: stepId, from: '.css-1x2y3z-Save', to: 'button::-p-text("Save")' },
    });
    // the new selector starts clean: no suggestion left, off the attention list
    expectError(await apply(), 409, 'INVALID_STATE_TRANSITION');
    const after = (await health(acme, '/api/target-health/needs-attention')).json().data;
    expect(after.find((e: { stepId: string }) => e.stepId === stepId)).toBeUndefined();
    const viewer = await acme.as('VIEWER');
    expectError(await apply(undefined, { owner: viewer } as never), 403, 'INSUFFICIENT_ROLE');
  });

  it('a failure rate over 7 days only lists the step as "week"; old buckets are not counted', async () => {
    const { id, stepId } = await flowWithTarget(acme, '#gone');
    const base = { itemKind: 'flow' as const, itemId: id, stepId, selector: '#gone' };
    const now = Date.now();
    t.clock.set(now);
    await report(
      key,
      [1, 2, 3].map(() => ({ ...base, outcome: 'missing' })),
      now - 3 * 3_600_000,
    );
    await report(
      key,
      [1, 2, 3].map(() => ({ ...base, outcome: 'missing' })),
      now - 9 * 86_400_000,
    );
    const entry = (await health(acme, '/api/target-health/needs-attention'))
      .json()
      .data.find((e: { stepId: string }) => e.stepId === stepId);
    expect(entry).toMatchObject({ attention: 'week', missing: 3, broken: false, status: 'broken' });
    await t.runJob('targeting-retention');
    const rows = await t.deps.database.db
      .select()
      .from(targetLookups)
      .where(eq(targetLookups.targetId, stepId));
    expect(rows).toHaveLength(1);
    t.clock.reset();
  });
});

describe('pick tokens', () => {
  async function newPick(tenant = acme) {
    const { id, stepId } = await flowWithTarget(tenant);
    const res = await t.inject({
      method: 'POST',
      url: '/api/pick-tokens',
      headers: tenant.owner.headers,
      payload: { itemKind: 'flow', itemId: id, stepId },
    });
    expect(res.statusCode, res.body).toBe(201);
    return { flowId: id, stepId, ...(res.json().data as { id: string; token: string; expiresAt: string }) };
  }
  const verify = (token: string, apiKey = key) =>
    sdkCall(t, apiKey)('POST', '/api/sdk/pick/verify', { token });
  const result = (token: string, apiKey = key, selector = '#save') =>
    sdkCall(t, apiKey)('POST', '/api/sdk/pick/result', { token, selector, fingerprint: fp('Save') });
  const poll = (id: string, who: { headers: Record<string, string> } = acme.owner) =>
    t.inject({ method: 'GET', url: `/api/pick-tokens/${id}`, headers: who.headers });

  it('verifies, takes the pick once, and the dashboard user polls it; the token is stored hashed', async () => {
    const pick = await newPick();
    expect(pick.token).toMatch(/^gpk_[\w-]{43}$/);
    expect(new Date(pick.expiresAt).getTime() - Date.now()).toBeGreaterThan(9 * 60_000);
    const [row] = await t.deps.database.db.select().from(pickTokens).where(eq(pickTokens.id, pick.id));
    expect(row!.tokenHash).toBe(sha256(pick.token));
    expect(JSON.stringify(row)).not.toContain(pick.token);
    expect((await poll(pick.id)).json().data).toMatchObject({ status: 'pending', selector: null });

    const verified = await verify(pick.token);
    expect(verified.statusCode, verified.body).toBe(200);
    expect(verified.json().data).toEqual({
      stepId: pick.stepId,
      itemKind: 'flow',
      itemId: pick.flowId,
      expiresAt: pick.expiresAt,
    });
    expect(verified.headers['access-control-allow-origin']).toBeUndefined(); // no Origin: no CORS header
    const sent = await result(pick.token);
    expect(sent.statusCode, sent.body).toBe(204);
    expect((await poll(pick.id)).json().data).toMatchObject({
      status: 'picked',
      selector: '#save',
      fingerprint: { name: 'Save' },
      pickedAt: expect.any(String),
    });
    // used: refused both ways
    expectError(await result(pick.token), 410, 'PICK_TOKEN_USED');
    expectError(await verify(pick.token), 410, 'PICK_TOKEN_USED');
    // the dashboard then saves the pick on the step, fingerprint included
    const saved = await dashboard(t, acme, 'PATCH', `/api/flows/${pick.flowId}/steps/${pick.stepId}`, {
      targetSelector: '#save',
      targetFingerprint: fp('Save'),
    });
    expect(saved.targetFingerprint).toMatchObject({ name: 'Save' });
  });

  it('refuses an expired token, a forged one, and another tenant’s key', async () => {
    const pick = await newPick();
    expectError(await verify('gpk_forged0123456789abcdefforged0123456789abc'), 404, 'PICK_TOKEN_INVALID');
    // Another last character (a fixed 'A' was the token itself when it ended in 'A': 1 in 64).
    const altered = `${pick.token.slice(0, -1)}${pick.token.endsWith('A') ? 'B' : 'A'}`;
    expectError(await verify(altered), 404, 'PICK_TOKEN_INVALID');
    expectError(await verify('not-even-our-format'), 404, 'PICK_TOKEN_INVALID');
    expectError(await verify(pick.token, otherKey), 404, 'PICK_TOKEN_INVALID');
    expectError(await result(pick.token, otherKey), 404, 'PICK_TOKEN_INVALID');
    expectError(await verify('short'), 400, 'VALIDATION_ERROR');
    t.clock.set(Date.now() + 10 * 60_000 + 1_000);
    expectError(await verify(pick.token), 410, 'PICK_TOKEN_EXPIRED');
    expectError(await result(pick.token), 410, 'PICK_TOKEN_EXPIRED');
    expect((await poll(pick.id)).json().data.status).toBe('expired');
    t.clock.reset();
  });

  it('is bound to the dashboard user and the tenant’s own steps', async () => {
    const pick = await newPick();
    const editor = await acme.as('EDITOR');
    expectError(await poll(pick.id, editor), 404, 'NOT_FOUND');
    expectError(await poll(pick.id, other.owner), 404, 'NOT_FOUND');
    const { id, stepId } = await flowWithTarget(other);
    const res = await t.inject({
      method: 'POST',
      url: '/api/pick-tokens',
      headers: acme.owner.headers,
      payload: { itemKind: 'flow', itemId: id, stepId },
    });
    expectError(res, 404, 'CONTENT_NOT_FOUND');
    const bad = await sdkCall(t, key)('POST', '/api/sdk/pick/result', {
      token: pick.token,
      selector: '#x',
      fingerprint: { tag: 'button' },
    });
    expectError(bad, 400, 'VALIDATION_ERROR');
  });
});
