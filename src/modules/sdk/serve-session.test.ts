import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import {
  apiKeyOf,
  audience,
  dashboard,
  publishedContent,
  publishedFlow,
  SITE,
  sdkCall,
  tooltip,
} from '../../../test/helpers/sdk.js';
import { endUserItemStates, endUsers, eventBatches } from '../../db/schema/index.js';
import type { DeliveryContributor, RememberEntry } from '../delivery/contract.js';
import type { SessionFacts } from '../delivery/engine/choose-session.js';
import type { StoredEvent } from '../events/types.js';
import { storedBody } from '../events/writer.js';
import { allModules } from '../index.js';

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

interface Payload {
  sessionId: string;
  endUserId: string | null;
  flows: { id: string; name: string; steps: { id: string; content: Record<string, unknown> }[] }[];
  content: Record<string, unknown>[];
  experiments: unknown[];
  journeys: unknown[];
}

async function setup() {
  const tenant = await createTenant(t);
  const key = await apiKeyOf(t, tenant);
  const sdk = sdkCall(t, key);
  const session = async (body: Record<string, unknown> = { userId: 'u-1' }): Promise<Payload> => {
    const res = await sdk('POST', '/api/sdk/session', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().data;
  };
  const ids = async (body?: Record<string, unknown>) => {
    const p = await session(body);
    return { flows: p.flows.map((f) => f.id), content: p.content.map((c) => c.id as string) };
  };
  return { tenant, key, sdk, session, ids };
}

const process = () => t.processEvents();

describe('POST /api/sdk/session', () => {
  it('answers 201 with the session payload, records the session start, and tracks the user', async () => {
    const { sdk, tenant } = await setup();
    const res = await sdk('POST', '/api/sdk/session', {
      userId: 'u-1',
      url: 'https://app.example.com/home',
      locale: 'en',
      device: { type: 'desktop', browser: 'firefox' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    const data = res.json().data as Payload;
    expect(data).toEqual({
      sessionId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      endUserId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      flows: [],
      content: [],
      experiments: [],
      journeys: [],
    });
    // the same user gets the same end user, a new session id
    const again = (await sdk('POST', '/api/sdk/session', { userId: 'u-1' })).json().data;
    expect(again.endUserId).toBe(data.endUserId);
    expect(again.sessionId).not.toBe(data.sessionId);

    // the session start is stored as an SDK_INIT event under the X-Correlation-Id
    const correlationId = res.headers['x-correlation-id'] as string;
    const [batch] = await t.deps.database.db
      .select()
      .from(eventBatches)
      .where(eq(eventBatches.correlationId, correlationId));
    expect(batch!.tenantId).toBe(tenant.tenantId);
    const events = JSON.parse(storedBody(batch!.events, batch!.eventsBr)) as StoredEvent[];
    expect(events).toContainEqual(
      expect.objectContaining({
        type: 'SDK_INIT',
        userId: 'u-1',
        sessionId: data.sessionId,
        url: 'https://app.example.com/home',
        properties: { source: 'session', locale: 'en' },
        metadata: { device: { type: 'desktop', browser: 'firefox' } },
      }),
    );

    // processing advances last_seen_at
    const before = await t.deps.database.db.select().from(endUsers).where(eq(endUsers.id, data.endUserId!));
    t.clock.set(Date.now() + 3_600_000);
    try {
      await sdk('POST', '/api/sdk/session', { userId: 'u-1' });
      await process();
      const [after] = await t.deps.database.db
        .select()
        .from(endUsers)
        .where(eq(endUsers.id, data.endUserId!));
      expect(after!.lastSeenAt.getTime()).toBeGreaterThan(before[0]!.lastSeenAt.getTime() + 3_000_000);
      expect(after!.externalId).toBe('u-1');
      expect(after!.traits).toEqual({});
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('serves an anonymous visitor by anonymousId, and nobody at all with endUserId null', async () => {
    const { session, tenant } = await setup();
    await publishedFlow(t, tenant);
    const a = await session({ anonymousId: 'anon-1' });
    expect(a.endUserId).toMatch(/^[0-9a-f-]{36}$/);
    expect((await session({ anonymousId: 'anon-1' })).endUserId).toBe(a.endUserId);
    const [row] = await t.deps.database.db.select().from(endUsers).where(eq(endUsers.id, a.endUserId!));
    expect(row).toMatchObject({ externalId: null, anonymousId: 'anon-1', traits: {} });
    const nobody = await session({});
    expect(nobody.endUserId).toBeNull();
    expect(nobody.flows).toHaveLength(1);
    // a bodiless POST is the same anonymous session
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/session',
      headers: { 'x-api-key': (await setup()).key },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.endUserId).toBeNull();
  });

  it('serves only PUBLISHED, unexpired items of this tenant', async () => {
    const now = Date.now();
    t.clock.set(now);
    try {
      const { tenant, ids } = await setup();
      const published = await publishedFlow(t, tenant, { name: 'Live' });
      const expiring = await publishedFlow(t, tenant, {
        name: 'Expiring',
        expiresAt: new Date(now + 3_600_000).toISOString(),
      });
      const draft = (
        await dashboard(t, tenant, 'POST', '/api/flows', { name: 'Draft', siteId: SITE, template: 'CUSTOM' })
      ).id;
      const archived = await publishedFlow(t, tenant, { name: 'Archived' });
      await dashboard(t, tenant, 'POST', `/api/flows/${archived}/archive`);
      const tip = await publishedContent(t, tenant, 'tooltips', tooltip());
      const draftTip = (await dashboard(t, tenant, 'POST', '/api/content/tooltips', tooltip())).id;
      const archivedTip = await publishedContent(t, tenant, 'tooltips', tooltip());
      await dashboard(t, tenant, 'DELETE', `/api/content/tooltips/${archivedTip}`);
      const unpublishedTip = await publishedContent(t, tenant, 'tooltips', tooltip());
      await dashboard(t, tenant, 'POST', `/api/content/tooltips/${unpublishedTip}/unpublish`);
      const announcement = await publishedContent(t, tenant, 'announcements', {
        name: 'News',
        siteId: SITE,
        type: 'BANNER',
        content: { title: 'New!' },
        expiresAt: new Date(now + 3_600_000).toISOString(),
      });

      // another tenant's published items never show
      const other = await setup();
      const foreign = await publishedFlow(t, other.tenant);
      const foreignTip = await publishedContent(t, other.tenant, 'tooltips', tooltip());

      const served = await ids();
      expect(served.flows).toEqual([published, expiring]);
      expect(served.content).toEqual([tip, announcement]);
      for (const id of [draft, archived, foreign]) expect(served.flows).not.toContain(id);
      for (const id of [draftTip, archivedTip, unpublishedTip, foreignTip])
        expect(served.content).not.toContain(id);

      // past expiresAt, before the background job archives it: no longer served
      t.clock.set(now + 3_600_000 + 1);
      const later = await ids();
      expect(later.flows).toEqual([published]);
      expect(later.content).toEqual([tip]);
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('returns full flow records with ordered steps and content records with contentType', async () => {
    const { tenant, session } = await setup();
    const flowId = await publishedFlow(t, tenant, {
      steps: [
        { type: 'MODAL', content: { title: 'One' } },
        { type: 'TOOLTIP', targetSelector: '#b', content: { title: 'Two' } },
      ],
    });
    const tipId = await publishedContent(t, tenant, 'tooltips', tooltip());
    const newsId = await publishedContent(t, tenant, 'announcements', {
      name: 'News',
      siteId: SITE,
      type: 'MODAL',
      content: { title: 'Hello', body: 'World' },
    });
    const nps = await dashboard(t, tenant, 'POST', '/api/nps-surveys', {
      name: 'NPS',
      siteId: SITE,
      question: 'Would you recommend us?',
    });
    await dashboard(t, tenant, 'POST', `/api/nps-surveys/${nps.id}/publish`);

    const payload = await session();
    // The live version as the dashboard reads it (steps stamped with the version's publish time).
    const { hasUnpublishedChanges, ...flow } = await dashboard(t, tenant, 'GET', `/api/flows/${flowId}`);
    expect(hasUnpublishedChanges).toBe(false);
    expect(payload.flows).toEqual([
      {
        ...flow,
        steps: flow.steps.map((s: object) => ({
          ...s,
          createdAt: flow.publishedAt,
          updatedAt: flow.publishedAt,
        })),
      },
    ]);
    expect(payload.flows[0]!.steps.map((s) => s.content.title)).toEqual(['One', 'Two']);
    const { hasUnpublishedChanges: _t, ...tip } = await dashboard(
      t,
      tenant,
      'GET',
      `/api/content/tooltips/${tipId}`,
    );
    const { hasUnpublishedChanges: _n, ...news } = await dashboard(
      t,
      tenant,
      'GET',
      `/api/content/announcements/${newsId}`,
    );
    const survey = await dashboard(t, tenant, 'GET', `/api/nps-surveys/${nps.id}`);
    expect(payload.content).toEqual([tip, news, { contentType: 'nps-surveys', ...survey }]);
    expect(payload.content[0]).toMatchObject({ contentType: 'tooltips' });
    expect(payload.content[1]).toMatchObject({ contentType: 'announcements', type: 'MODAL' });
  });

  it('orders flows, then content, each by priority, then most recently published, then id', async () => {
    let now = Date.now();
    const tick = () => {
      now += 1000;
      t.clock.set(now);
    };
    try {
      const { tenant, ids } = await setup();
      tick();
      const first = await publishedFlow(t, tenant, { name: 'A' });
      tick();
      const second = await publishedFlow(t, tenant, { name: 'B' });
      tick();
      const draft = (
        await dashboard(t, tenant, 'POST', '/api/flows', { name: 'C', siteId: SITE, template: 'CUSTOM' })
      ).id;
      const tipLater = (await dashboard(t, tenant, 'POST', '/api/content/tooltips', tooltip())).id;
      tick();
      const tipFirst = await publishedContent(t, tenant, 'tooltips', tooltip());
      tick();
      await dashboard(t, tenant, 'POST', `/api/flows/${draft}/publish`); // created before, published last
      await dashboard(t, tenant, 'POST', `/api/content/tooltips/${tipLater}/publish`);
      let served = await ids();
      expect(served.flows).toEqual([draft, second, first]);
      expect(served.content).toEqual([tipLater, tipFirst]);
      // priority first, negative last (issue 38)
      await dashboard(t, tenant, 'PATCH', `/api/flows/${first}`, { priority: 5 });
      await dashboard(t, tenant, 'PATCH', `/api/flows/${draft}`, { priority: -1 });
      await dashboard(t, tenant, 'PATCH', `/api/content/tooltips/${tipFirst}`, { priority: 1 });
      served = await ids();
      expect(served.flows).toEqual([first, second, draft]);
      expect(served.content).toEqual([tipFirst, tipLater]);
    } finally {
      t.clock.set(Date.now());
    }
  });

  it('matches audiences on userId, traits, role (traits.role) and device', async () => {
    const { tenant, sdk, ids } = await setup();
    const pro = await audience(t, tenant, { field: 'traits.plan', operator: 'eq', value: 'pro' });
    const admins = await audience(t, tenant, { field: 'role', operator: 'eq', value: 'admin' });
    const mobile = await audience(t, tenant, { field: 'device.type', operator: 'eq', value: 'mobile' });
    const named = await audience(t, tenant, {
      logicalOperator: 'AND',
      rules: [
        { field: 'userId', operator: 'starts_with', value: 'vip-' },
        { field: 'traits.seats', operator: 'gte', value: 10 },
      ],
    });
    const forAll = await publishedFlow(t, tenant, { name: 'All' });
    const forPro = await publishedFlow(t, tenant, { name: 'Pro', audienceId: pro });
    const forAdmins = await publishedContent(t, tenant, 'tooltips', tooltip({ audienceId: admins }));
    const forMobile = await publishedContent(t, tenant, 'tooltips', tooltip({ audienceId: mobile }));
    const forVip = await publishedFlow(t, tenant, { name: 'VIP', audienceId: named });

    expect(await ids({ userId: 'plain' })).toEqual({ flows: [forAll], content: [] });
    await sdk('POST', '/api/sdk/identify', {
      userId: 'vip-1',
      traits: { plan: 'pro', role: 'admin', seats: 12 },
    });
    expect(await ids({ userId: 'vip-1', device: { type: 'mobile' } })).toEqual({
      flows: [forAll, forPro, forVip],
      content: [forAdmins, forMobile],
    });
    expect(await ids({ userId: 'vip-1', device: { type: 'desktop' } })).toEqual({
      flows: [forAll, forPro, forVip],
      content: [forAdmins],
    });
    // anonymous: no traits, no userId
    expect(await ids({})).toEqual({ flows: [forAll], content: [] });
  });

  it('serves URL_MATCH flows where the url matches, MANUAL and trigger-less flows everywhere', async () => {
    const { tenant, ids } = await setup();
    const manual = await publishedFlow(t, tenant, {
      name: 'Manual',
      trigger: { type: 'MANUAL', config: {} },
    });
    const none = await publishedFlow(t, tenant, { name: 'None' });
    const contains = await publishedFlow(t, tenant, {
      name: 'Billing',
      trigger: { type: 'URL_MATCH', config: { matchType: 'contains', pattern: '/billing' } },
    });
    const exact = await publishedFlow(t, tenant, {
      name: 'Exact',
      trigger: { type: 'URL_MATCH', config: { matchType: 'equals', pattern: 'https://app.example.com/' } },
    });
    const regex = await publishedFlow(t, tenant, {
      name: 'Regex',
      trigger: { type: 'URL_MATCH', config: { matchType: 'regex', pattern: '/projects/\\d+$' } },
    });

    expect((await ids({ url: 'https://app.example.com/billing/plan' })).flows).toEqual([
      manual,
      none,
      contains,
    ]);
    expect((await ids({ url: 'https://app.example.com/' })).flows).toEqual([manual, none, exact]);
    expect((await ids({ url: 'https://app.example.com/projects/42' })).flows).toEqual([manual, none, regex]);
    expect((await ids({ url: 'https://app.example.com/projects/x' })).flows).toEqual([manual, none]);
    // without a url only items that are not bound to urls
    expect((await ids({})).flows).toEqual([manual, none]);
  });

  it('serves content by targetUrl, triggerConfig.url and url_match pattern', async () => {
    const { tenant, ids } = await setup();
    const free = await publishedContent(t, tenant, 'tooltips', tooltip());
    const target = await publishedContent(t, tenant, 'tooltips', tooltip({ targetUrl: '/settings' }));
    const onExit = await publishedContent(t, tenant, 'surveys', {
      name: 'Exit survey',
      siteId: SITE,
      questions: [{ type: 'TEXT', question: 'Why?' }],
      triggerConfig: { type: 'exit_intent', url: '/checkout' },
    });
    const matched = await publishedContent(t, tenant, 'beacons', {
      name: 'Beacon',
      siteId: SITE,
      targetSelector: '#x',
      content: { message: 'Hi' },
      triggerConfig: { type: 'url_match', pattern: 'https://app.example.com/dash*', matchType: 'glob' },
    });
    const both = await publishedContent(
      t,
      tenant,
      'tooltips',
      tooltip({
        targetUrl: '/settings',
        triggerConfig: { type: 'time_on_page', url: '/profile', delay: 1000 },
      }),
    );
    const manual = await publishedContent(
      t,
      tenant,
      'tooltips',
      tooltip({ triggerConfig: { type: 'manual' } }),
    );

    expect((await ids({ url: 'https://app.example.com/settings' })).content).toEqual([free, target, manual]);
    expect((await ids({ url: 'https://app.example.com/checkout?step=2' })).content).toEqual([
      free,
      onExit,
      manual,
    ]);
    expect((await ids({ url: 'https://app.example.com/dashboard' })).content).toEqual([
      free,
      matched,
      manual,
    ]);
    expect((await ids({ url: 'https://app.example.com/settings/profile' })).content).toEqual([
      free,
      target,
      both,
      manual,
    ]);
    expect((await ids({})).content).toEqual([free, manual]);
  });

  it('translates each item to the locale, falling back to the base language, the default locale, then the original', async () => {
    const { tenant, session } = await setup();
    await dashboard(t, tenant, 'POST', '/api/translations/locales', {
      code: 'en',
      name: 'English',
      isDefault: true,
      isRtl: false,
    });
    const locale = (code: string, name: string) => ({ code, name, isDefault: false, isRtl: false });
    await dashboard(t, tenant, 'POST', '/api/translations/locales', locale('fr', 'Français'));
    await dashboard(t, tenant, 'POST', '/api/translations/locales', locale('fr-CA', 'Français (CA)'));
    const flowId = await publishedFlow(t, tenant, {
      name: 'Tour',
      steps: [
        { type: 'MODAL', content: { title: 'Welcome' } },
        { type: 'MODAL', content: { title: 'Bye' } },
      ],
    });
    const flow = await dashboard(t, tenant, 'GET', `/api/flows/${flowId}`);
    const tipId = await publishedContent(t, tenant, 'tooltips', tooltip({ content: { text: 'Save here' } }));
    const tr = (
      contentType: string,
      contentId: string,
      fieldName: string,
      localeCode: string,
      value: string,
    ) =>
      dashboard(t, tenant, 'POST', '/api/translations', {
        contentType,
        contentId,
        fieldName,
        localeCode,
        value,
      });
    await tr('flow', flowId, 'name', 'en', 'Tour (en)');
    await tr('flow', flowId, 'name', 'fr', 'Visite');
    await tr('flow', flowId, 'steps.0.content.title', 'fr', 'Bienvenue');
    await tr('flow-step', flow.steps[1].id, 'content.title', 'fr-CA', 'Salut');
    await tr('tooltips', tipId, 'content.text', 'fr', 'Enregistrer ici');
    await tr('tooltip', tipId, 'name', 'en', 'Tip (en)');

    const fr = await session({ locale: 'fr' });
    expect(fr.flows[0]).toMatchObject({ name: 'Visite' });
    expect(fr.flows[0]!.steps.map((s) => s.content.title)).toEqual(['Bienvenue', 'Bye']);
    expect(fr.content[0]).toMatchObject({ name: 'Tip (en)', content: { text: 'Enregistrer ici' } });

    const ca = await session({ locale: 'fr-CA' });
    expect(ca.flows[0]!.steps.map((s) => s.content.title)).toEqual(['Bienvenue', 'Salut']);
    expect(ca.flows[0]).toMatchObject({ name: 'Visite' });

    // a regional variant the tenant lacks: its base language
    expect((await session({ locale: 'fr-BE' })).flows[0]).toMatchObject({ name: 'Visite' });
    // unknown locale or none: the default locale, then the original
    for (const locale of ['de', undefined]) {
      const p = await session(locale ? { locale } : {});
      expect(p.flows[0]).toMatchObject({ name: 'Tour (en)' });
      expect(p.flows[0]!.steps.map((s) => s.content.title)).toEqual(['Welcome', 'Bye']);
      expect(p.content[0]).toMatchObject({ name: 'Tip (en)', content: { text: 'Save here' } });
    }

    // a translation change is served at once
    await tr('flow', flowId, 'name', 'fr', 'Visite guidée');
    expect((await session({ locale: 'fr' })).flows[0]).toMatchObject({ name: 'Visite guidée' });
  });

  it('applies the frequency cap after completion and dismissal, unless the tenant allows repeats', async () => {
    const { tenant, sdk, ids } = await setup();
    const done = await publishedFlow(t, tenant, { name: 'Done' });
    const dismissed = await publishedFlow(t, tenant, { name: 'Dismissed' });
    const skipped = await publishedFlow(t, tenant, { name: 'Skipped' });
    const open = await publishedFlow(t, tenant, { name: 'Open' });
    const tip = await publishedContent(t, tenant, 'tooltips', tooltip());
    const survey = await publishedContent(t, tenant, 'surveys', {
      name: 'Survey',
      siteId: SITE,
      questions: [{ key: 'q', type: 'TEXT', question: 'Thoughts?' }],
    });
    const all = { flows: [done, dismissed, skipped, open], content: [tip, survey] };
    expect(await ids({ userId: 'u-9' })).toEqual(all);

    await sdk('POST', '/api/sdk/events', {
      events: [
        { type: 'FLOW_COMPLETED', userId: 'u-9', properties: { flowId: done } },
        { type: 'FLOW_DISMISSED', userId: 'u-9', properties: { flowId: dismissed } },
        { type: 'FLOW_SKIPPED', userId: 'u-9', properties: { flowId: skipped } },
        { type: 'FLOW_DISMISSED', userId: 'u-9', properties: { contentId: tip } },
        { type: 'SURVEY_RESPONSE', userId: 'u-9', properties: { surveyId: survey, answers: { q: 'ok' } } },
        // another user's events change nothing for u-9
        { type: 'FLOW_COMPLETED', userId: 'u-10', properties: { flowId: open } },
      ],
    });
    // not yet processed: still offered
    expect(await ids({ userId: 'u-9' })).toEqual(all);
    await process();
    expect(await ids({ userId: 'u-9' })).toEqual({ flows: [open], content: [] });
    expect(await ids({ userId: 'u-10' })).toEqual({
      flows: [done, dismissed, skipped],
      content: [tip, survey],
    });

    const [user] = await t.deps.database.db
      .select()
      .from(endUsers)
      .where(and(eq(endUsers.tenantId, tenant.tenantId), eq(endUsers.externalId, 'u-9')));
    const states = await t.deps.database.db
      .select()
      .from(endUserItemStates)
      .where(eq(endUserItemStates.endUserId, user!.id));
    expect(states).toHaveLength(5);
    expect(states.find((s) => s.itemId === done)).toMatchObject({
      completedAt: expect.any(Date),
      dismissedAt: null,
    });
    expect(states.find((s) => s.itemId === tip)).toMatchObject({
      completedAt: null,
      dismissedAt: expect.any(Date),
    });

    await dashboard(t, tenant, 'PATCH', '/api/tenants/current', {
      settings: { frequency: { repeatCompleted: true } },
    });
    expect(await ids({ userId: 'u-9' })).toEqual({ flows: [done, open], content: [survey] });
    await dashboard(t, tenant, 'PATCH', '/api/tenants/current', {
      settings: { frequency: { repeatCompleted: true, repeatDismissed: true } },
    });
    expect(await ids({ userId: 'u-9' })).toEqual(all);
    await dashboard(t, tenant, 'PATCH', '/api/tenants/current', {
      settings: { frequency: { repeatDismissed: true } },
    });
    expect(await ids({ userId: 'u-9' })).toEqual({ flows: [dismissed, skipped, open], content: [tip] });
  });

  it('caps anonymous visitors by anonymousId too', async () => {
    const { tenant, sdk, ids } = await setup();
    const flow = await publishedFlow(t, tenant);
    expect((await ids({ anonymousId: 'anon-7' })).flows).toEqual([flow]);
    await sdk('POST', '/api/sdk/events', {
      events: [{ type: 'FLOW_COMPLETED', anonymousId: 'anon-7', properties: { flowId: flow } }],
    });
    await process();
    expect((await ids({ anonymousId: 'anon-7' })).flows).toEqual([]);
    expect((await ids({ anonymousId: 'anon-8' })).flows).toEqual([flow]);
  });

  it('sees every committed change on the next session, on this and on another instance', async () => {
    const { tenant, key, ids } = await setup();
    const second = await createTestApp({ db: t.db });
    try {
      const onSecond = async () => {
        const res = await second.inject({
          method: 'POST',
          url: '/api/sdk/session',
          headers: { 'x-api-key': key },
          payload: { userId: 'u-1', url: 'https://app.example.com/' },
        });
        expect(res.statusCode).toBe(201);
        return res.json().data.flows.map((f: { id: string; name: string }) => f.name);
      };
      expect((await ids()).flows).toEqual([]);
      expect(await onSecond()).toEqual([]);

      // publish on the first instance: both serve it at once (no bus between them without Redis)
      const flowId = await publishedFlow(t, tenant, { name: 'Tour' });
      expect((await ids()).flows).toEqual([flowId]);
      expect(await onSecond()).toEqual(['Tour']);

      // update a step through the second instance, rename through the first
      const flow = await dashboard(t, tenant, 'GET', `/api/flows/${flowId}`);
      const res = await second.inject({
        method: 'PATCH',
        url: `/api/flows/${flowId}/steps/${flow.steps[0].id}`,
        headers: tenant.owner.headers,
        payload: { content: { title: 'Changed' } },
      });
      expect(res.statusCode).toBe(200);
      await dashboard(t, tenant, 'PATCH', `/api/flows/${flowId}`, { name: 'Renamed' });
      // Edits of a published flow are its working copy: served once published (docs/versions.md).
      expect(await onSecond()).toEqual(['Tour']);
      await dashboard(t, tenant, 'POST', `/api/flows/${flowId}/publish`);
      const firstView = await t.inject({
        method: 'POST',
        url: '/api/sdk/session',
        headers: { 'x-api-key': key },
        payload: { userId: 'u-1' },
      });
      expect(firstView.json().data.flows[0]).toMatchObject({
        name: 'Renamed',
        steps: [{ content: { title: 'Changed' } }],
      });
      expect(await onSecond()).toEqual(['Renamed']);

      // an audience change and an archive are seen at once too
      const aud = await audience(t, tenant, { field: 'traits.plan', operator: 'eq', value: 'pro' });
      await dashboard(t, tenant, 'PATCH', `/api/flows/${flowId}`, { audienceId: aud });
      await dashboard(t, tenant, 'POST', `/api/flows/${flowId}/publish`);
      expect(await onSecond()).toEqual([]);
      await dashboard(t, tenant, 'PATCH', `/api/audiences/${aud}`, {
        ruleTree: { field: 'traits.plan', operator: 'not_exists' },
      });
      expect(await onSecond()).toEqual(['Renamed']);
      await dashboard(t, tenant, 'POST', `/api/flows/${flowId}/archive`);
      expect(await onSecond()).toEqual([]);
      expect((await ids()).flows).toEqual([]);
    } finally {
      await second.close();
    }
  });

  it('re-chooses for a url and rule context once a trigger, an audience or the traits change', async () => {
    const { tenant, sdk, ids } = await setup();
    const pro = await audience(t, tenant, { field: 'traits.plan', operator: 'eq', value: 'pro' });
    const onA = await publishedFlow(t, tenant, {
      name: 'On /a',
      trigger: { type: 'URL_MATCH', config: { pattern: '/a' } },
    });
    const forPro = await publishedFlow(t, tenant, { name: 'Pro', audienceId: pro });
    const at = { userId: 'u-c', url: 'https://app.test/a' };
    // Twice: the second session is chosen from what the first left cached.
    expect(await ids(at)).toEqual({ flows: [onA], content: [] });
    expect(await ids(at)).toEqual({ flows: [onA], content: [] });

    await dashboard(t, tenant, 'PATCH', `/api/flows/${onA}`, {
      trigger: { type: 'URL_MATCH', config: { pattern: '/b' } },
    });
    expect(await ids(at)).toEqual({ flows: [onA], content: [] }); // not published yet
    await dashboard(t, tenant, 'POST', `/api/flows/${onA}/publish`);
    expect(await ids(at)).toEqual({ flows: [], content: [] });
    expect(await ids({ ...at, url: 'https://app.test/b' })).toEqual({ flows: [onA], content: [] });

    await sdk('POST', '/api/sdk/identify', { userId: 'u-c', traits: { plan: 'pro' } });
    expect(await ids(at)).toEqual({ flows: [forPro], content: [] });
    await dashboard(t, tenant, 'PATCH', `/api/audiences/${pro}`, {
      ruleTree: { field: 'traits.plan', operator: 'eq', value: 'enterprise' },
    });
    expect(await ids(at)).toEqual({ flows: [], content: [] });
    await dashboard(t, tenant, 'PATCH', `/api/flows/${forPro}`, { audienceId: null });
    await dashboard(t, tenant, 'POST', `/api/flows/${forPro}/publish`);
    expect(await ids(at)).toEqual({ flows: [forPro], content: [] });
  });

  it('validates the body with exact paths', async () => {
    const { sdk } = await setup();
    const cases: [unknown, string][] = [
      [{ userId: '' }, 'userId'],
      [{ userId: 'x'.repeat(256) }, 'userId'],
      [{ anonymousId: 5 }, 'anonymousId'],
      [{ url: 42 }, 'url'],
      [{ locale: '' }, 'locale'],
      [{ device: { type: 3 } }, 'device.type'],
      [{ device: 'mobile' }, 'device'],
    ];
    for (const [body, path] of cases) {
      const error = expectError(await sdk('POST', '/api/sdk/session', body), 400, 'VALIDATION_ERROR');
      expect(error.details, JSON.stringify(body)).toContainEqual({ path, message: expect.any(String) });
    }
  });

  it('needs a valid API key: missing, malformed, unknown, revoked and a JWT all answer 401', async () => {
    const { tenant, key, sdk } = await setup();
    const post = (headers: Record<string, string>) =>
      t.inject({ method: 'POST', url: '/api/sdk/session', headers, payload: { userId: 'u' } });
    expectError(await post({}), 401, 'AUTH_FAILED');
    expectError(await post({ 'x-api-key': 'nope' }), 401, 'AUTH_FAILED');
    expectError(await post({ 'x-api-key': `wfx_${'0'.repeat(64)}` }), 401, 'AUTH_FAILED');
    expectError(await post({ authorization: `Bearer ${tenant.owner.token}` }), 401, 'AUTH_FAILED');
    expect((await sdk('POST', '/api/sdk/session', {})).statusCode).toBe(201);
    const keys = await dashboard(t, tenant, 'GET', '/api/tenants/api-keys');
    await dashboard(t, tenant, 'DELETE', `/api/tenants/api-keys/${keys[0].id}`);
    expectError(await post({ 'x-api-key': key }), 401, 'AUTH_FAILED');
  });

  it('answers a burst of concurrent sessions of new and known users consistently', async () => {
    const { tenant, sdk } = await setup();
    await publishedFlow(t, tenant);
    const bodies = Array.from({ length: 40 }, (_, i) =>
      i % 4 === 0 ? {} : i % 4 === 1 ? { userId: `burst-${i % 8}` } : { anonymousId: `anon-${i % 6}` },
    );
    const results = await Promise.all(bodies.map((b) => sdk('POST', '/api/sdk/session', b)));
    const byKey = new Map<string, Set<string | null>>();
    results.forEach((res, i) => {
      expect(res.statusCode).toBe(201);
      const data = res.json().data;
      expect(data.flows).toHaveLength(1);
      const key = JSON.stringify(bodies[i]);
      byKey.set(key, (byKey.get(key) ?? new Set()).add(data.endUserId));
    });
    for (const [key, set] of byKey) {
      expect(set.size, key).toBe(1);
      if (key === '{}') expect([...set][0]).toBeNull();
    }
    const rows = await t.deps.database.db
      .select()
      .from(endUsers)
      .where(eq(endUsers.tenantId, tenant.tenantId));
    expect(rows).toHaveLength(byKey.size - 1);
  });

  it('adds what delivery contributors choose (experiments, journeys), from their snapshot part and user state', async () => {
    const facts: SessionFacts[] = [];
    const loads: string[] = [];
    const remembered: RememberEntry[][] = [];
    const contributor: DeliveryContributor<{ marker: string }, { ext: string | null }> = {
      name: 'test-contributor',
      async load(_tx, tenantId) {
        loads.push(tenantId);
        return { data: { marker: `data of ${tenantId}` } };
      },
      userState: {
        sql: (tenant, endUser) =>
          sql`(select jsonb_build_object('ext', ${endUsers.externalId}) from ${endUsers}
            where ${endUsers.tenantId} = ${tenant} and ${endUsers.id} = ${endUser})`,
        parse: (value) => ({ ext: ((value as { ext?: string } | null)?.ext ?? null) as string | null }),
      },
      choose(data, state, f) {
        facts.push(f);
        const ids = f.url?.split('#')[1]?.split(',') ?? [];
        const [flowId, variant] = ids as [string, string];
        if (!flowId) return {};
        return {
          // A first decision (no state yet) is remembered before the session answers.
          ...(state && state.ext === null ? { remember: [`first:${flowId}`] } : {}),
          experiments: [{ experimentId: flowId, variantId: data.marker, flowId: state?.ext ?? null }],
          journeys: [
            {
              journeyId: flowId,
              enrollmentId: flowId,
              nodeId: flowId,
              contentType: 'flow',
              contentId: flowId,
            },
          ],
          withhold: [variant],
        };
      },
      // Answers each session's choice as stored: here, its journey item under a stored id.
      async remember(_exec, entries) {
        remembered.push(entries);
        return entries.map(({ choice }) => ({
          ...choice,
          journeys: choice.journeys?.map((j) => ({ ...j, enrollmentId: `stored:${j.enrollmentId}` })),
        }));
      },
    };
    const app = await createTestApp({ modules: [...allModules, { name: 'test', delivery: [contributor] }] });
    try {
      const tenant = await createTenant(app);
      const sdk = sdkCall(app, await apiKeyOf(app, tenant));
      const flowId = await publishedFlow(app, tenant);
      const variant = await publishedFlow(app, tenant, { name: 'Variant B' });
      const url = `https://a.example.com/#${flowId},${variant}`;
      const res = await sdk('POST', '/api/sdk/session', { userId: 'u-x', url, locale: 'en' });
      expect(res.statusCode, res.body).toBe(201);
      const payload = res.json().data as Payload;
      // A new end user (created by this session) has the contributor's empty state.
      expect(payload.experiments).toEqual([
        { experimentId: flowId, variantId: `data of ${tenant.tenantId}`, flowId: null },
      ]);
      // The first session serves its choice as `remember` answered it.
      expect(payload.journeys).toEqual([
        {
          journeyId: flowId,
          enrollmentId: `stored:${flowId}`,
          nodeId: flowId,
          contentType: 'flow',
          contentId: flowId,
        },
      ]);
      expect(facts[0]).toMatchObject({
        tenantId: tenant.tenantId,
        sessionId: payload.sessionId,
        endUserId: payload.endUserId,
        userId: 'u-x',
        url,
        locale: 'en',
      });
      expect(payload.flows.map((f) => f.id)).toEqual([flowId]);
      expect(remembered).toEqual([
        [
          {
            tenantId: tenant.tenantId,
            endUserId: payload.endUserId,
            choice: expect.objectContaining({ remember: [`first:${flowId}`] }),
          },
        ],
      ]);
      // Known end user now: its state comes from the same statement; the snapshot was loaded once.
      const again = (await sdk('POST', '/api/sdk/session', { userId: 'u-x', url })).json().data as Payload;
      expect(again.experiments).toEqual([
        { experimentId: flowId, variantId: `data of ${tenant.tenantId}`, flowId: 'u-x' },
      ]);
      expect(again.journeys).toMatchObject([{ enrollmentId: flowId }]);
      expect(remembered).toHaveLength(1);
      // Concurrent first sessions of new users: their decisions are stored together, each before its answer.
      const firsts = await Promise.all(
        ['n1', 'n2', 'n3'].map((userId) => sdk('POST', '/api/sdk/session', { userId, url })),
      );
      const stored = remembered.slice(1).flat();
      expect(stored.map((e) => e.endUserId).sort()).toEqual(
        firsts.map((r) => r.json().data.endUserId).sort(),
      );
      expect(loads.filter((id) => id === tenant.tenantId)).toHaveLength(1);
      // Without an end user the contributor's state is null.
      const anonymous = (await sdk('POST', '/api/sdk/session', { url })).json().data as Payload;
      expect(anonymous.experiments).toEqual([
        { experimentId: flowId, variantId: `data of ${tenant.tenantId}`, flowId: null },
      ]);
    } finally {
      await app.close();
    }
  });

  it('documents the SDK routes with their schemas in the OpenAPI document', async () => {
    const res = await t.inject({ method: 'GET', url: '/docs/json' });
    expect(res.statusCode).toBe(200);
    const paths = res.json().paths as Record<string, Record<string, { responses: Record<string, unknown> }>>;
    expect(Object.keys(paths['/api/sdk/config']?.get?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '304', '401']),
    );
    expect(Object.keys(paths['/api/sdk/identify']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401']),
    );
    expect(Object.keys(paths['/api/sdk/session']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['201', '400', '401']),
    );
    expect(paths['/api/sdk/events']).toHaveProperty('post');
  });
});
