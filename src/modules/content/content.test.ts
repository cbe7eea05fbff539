import { and, eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import {
  createTenant,
  insertAudience,
  insertFlow,
  type TenantFixture,
} from '../../../test/helpers/factories.js';
import { auditLogs, CONTENT_TYPES, type ContentType, plans, subscriptions } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';
import { sampleContentBody } from './samples.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
const SITE = '01900000-0000-7000-8000-0000000000a1';
const SITE_B = '01900000-0000-7000-8000-0000000000b2';
const UNKNOWN_ID = '01900000-0000-7000-8000-000000000000';

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t, { name: `Acme ${newId()}` });
  other = await createTenant(t);
});
afterAll(() => t.close());

type Body = Record<string, unknown>;
type Item = Record<string, unknown> & { id: string; status: string };

const post = (type: string, payload: Body, headers = acme.owner.headers) =>
  t.inject({ method: 'POST', url: `/api/content/${type}`, headers, payload });
const patch = (type: string, id: string, payload: Body, headers = acme.owner.headers) =>
  t.inject({ method: 'PATCH', url: `/api/content/${type}/${id}`, headers, payload });
const get = (url: string, headers = acme.owner.headers) => t.inject({ method: 'GET', url, headers });

async function create(type: ContentType, fields: Body = {}, tenant = acme): Promise<Item> {
  const res = await post(type, { ...sampleContentBody(type, SITE), ...fields }, tenant.owner.headers);
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

/** Asserts a 400 VALIDATION_ERROR whose details name `path`. */
function expectInvalid(res: LightMyRequestResponse, path: string) {
  const err = expectError(res, 400, 'VALIDATION_ERROR');
  expect((err.details as { path: string }[]).map((d) => d.path)).toContain(path);
}

describe('tooltips', () => {
  it('creates, reads and updates a tooltip with its own fields', async () => {
    const res = await post('tooltips', {
      name: 'Save button',
      siteId: SITE,
      targetSelector: '#save',
      content: { text: 'Saves your work', title: 'Tip' },
      position: 'BOTTOM',
      targetUrl: '/editor',
      triggerConfig: { type: 'time_on_page', delay: 3000, url: '/editor' },
    });
    expect(res.statusCode).toBe(201);
    const created = res.json().data;
    expect(created).toMatchObject({
      id: expect.any(String),
      name: 'Save button',
      siteId: SITE,
      status: 'DRAFT',
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      tenantId: acme.tenantId,
      contentType: 'tooltips',
      targetSelector: '#save',
      content: { text: 'Saves your work', title: 'Tip' },
      position: 'BOTTOM',
      targetUrl: '/editor',
      audienceId: null,
      triggerConfig: { type: 'time_on_page', delay: 3000, url: '/editor' },
    });
    const got = await get(`/api/content/tooltips/${created.id}`);
    expect(got.statusCode).toBe(200);
    expect(got.json().data).toEqual(created);

    const upd = await patch('tooltips', created.id, { position: 'LEFT', content: { text: 'New text' } });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data).toMatchObject({
      position: 'LEFT',
      content: { text: 'New text' },
      targetSelector: '#save',
      targetUrl: '/editor',
      name: 'Save button',
      status: 'DRAFT',
    });
    const cleared = await patch('tooltips', created.id, { targetUrl: null, triggerConfig: null });
    expect(cleared.json().data).toMatchObject({ targetUrl: null, triggerConfig: null, position: 'LEFT' });
  });

  it('defaults position to AUTO and accepts every position', async () => {
    expect((await create('tooltips')).position).toBe('AUTO');
    for (const position of ['AUTO', 'TOP', 'BOTTOM', 'LEFT', 'RIGHT']) {
      expect((await create('tooltips', { position })).position).toBe(position);
    }
    expectInvalid(
      await post('tooltips', { ...sampleContentBody('tooltips', SITE), position: 'CENTER' }),
      'position',
    );
  });

  it('requires targetSelector and content.text', async () => {
    const body = sampleContentBody('tooltips', SITE);
    expectInvalid(await post('tooltips', { ...body, targetSelector: undefined }), 'targetSelector');
    expectInvalid(await post('tooltips', { ...body, targetSelector: '' }), 'targetSelector');
    expectInvalid(await post('tooltips', { ...body, content: undefined }), 'content');
    expectInvalid(await post('tooltips', { ...body, content: {} }), 'content.text');
  });

  it('refuses an animation field on create and PATCH with 400 at `animation`', async () => {
    const res = await post('tooltips', { ...sampleContentBody('tooltips', SITE), animation: 'subtle' });
    const err = expectError(res, 400, 'VALIDATION_ERROR');
    expect(err.details).toEqual([{ path: 'animation', message: expect.any(String) }]);
    const item = await create('tooltips');
    expectInvalid(await patch('tooltips', item.id, { animation: 'none' }), 'animation');
    expectInvalid(await patch('tooltips', item.id, { animation: null }), 'animation');
  });
});

describe('beacons', () => {
  it('creates, reads and updates a beacon, animation included', async () => {
    const created = await create('beacons', {
      targetSelector: '.new',
      content: { message: 'Look here' },
      targetUrl: '/dashboard',
      animation: 'full',
    });
    expect(created).toMatchObject({
      contentType: 'beacons',
      targetSelector: '.new',
      content: { message: 'Look here' },
      targetUrl: '/dashboard',
      animation: 'full',
      status: 'DRAFT',
    });
    const upd = await patch('beacons', created.id, { animation: 'none' });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data.animation).toBe('none');
    expect((await get(`/api/content/beacons/${created.id}`)).json().data.animation).toBe('none');
  });

  it('accepts none, subtle and full (default subtle) and nothing else', async () => {
    expect((await create('beacons')).animation).toBe('subtle');
    for (const animation of ['none', 'subtle', 'full']) {
      expect((await create('beacons', { animation })).animation).toBe(animation);
    }
    expectInvalid(
      await post('beacons', { ...sampleContentBody('beacons', SITE), animation: 'wild' }),
      'animation',
    );
  });

  it('requires targetSelector and content.message', async () => {
    const body = sampleContentBody('beacons', SITE);
    expectInvalid(await post('beacons', { ...body, targetSelector: undefined }), 'targetSelector');
    expectInvalid(await post('beacons', { ...body, content: { text: 'wrong key' } }), 'content.message');
  });
});

describe('task lists', () => {
  it('creates a task list with every action type and keeps the items in order', async () => {
    const flowId = await insertFlow(t, acme.tenantId);
    const created = await create('task-lists', {
      description: 'Get started',
      items: [
        {
          title: 'Open docs',
          actionType: 'EXTERNAL_LINK',
          actionConfig: { url: 'https://docs.example.com' },
          order: 3,
        },
        { title: 'Take the tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId }, order: 1 },
        { title: 'Settings', actionType: 'NAVIGATE', actionConfig: { url: '/settings' }, order: 0 },
        { title: 'Profile', actionType: 'FILL_FORM', actionConfig: { formSelector: '#profile' }, order: 2 },
      ],
    });
    expect(created).toMatchObject({ contentType: 'task-lists', description: 'Get started', status: 'DRAFT' });
    expect(created.items).toEqual([
      { title: 'Settings', actionType: 'NAVIGATE', actionConfig: { url: '/settings' }, order: 0 },
      { title: 'Take the tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId }, order: 1 },
      { title: 'Profile', actionType: 'FILL_FORM', actionConfig: { formSelector: '#profile' }, order: 2 },
      {
        title: 'Open docs',
        actionType: 'EXTERNAL_LINK',
        actionConfig: { url: 'https://docs.example.com' },
        order: 3,
      },
    ]);
    expect((await get(`/api/content/task-lists/${created.id}`)).json().data.items).toEqual(created.items);
  });

  it('defaults order to the position and actionConfig to {} for FILL_FORM', async () => {
    const created = await create('task-lists', {
      items: [
        { title: 'a', actionType: 'FILL_FORM' },
        { title: 'b', actionType: 'NAVIGATE', actionConfig: { url: '/b' } },
      ],
    });
    expect(created.items).toEqual([
      { title: 'a', actionType: 'FILL_FORM', actionConfig: {}, order: 0 },
      { title: 'b', actionType: 'NAVIGATE', actionConfig: { url: '/b' }, order: 1 },
    ]);
    expect(created.description).toBeNull();
  });

  it('validates items with exact paths', async () => {
    const base = sampleContentBody('task-lists', SITE);
    const nav = { title: 'ok', actionType: 'NAVIGATE', actionConfig: { url: '/x' } };
    expectInvalid(await post('task-lists', { ...base, items: undefined }), 'items');
    expectInvalid(await post('task-lists', { ...base, items: [] }), 'items');
    expectInvalid(
      await post('task-lists', { ...base, items: [{ title: 'x', actionType: 'NAVIGATE' }] }),
      'items.0.actionConfig.url',
    );
    expectInvalid(
      await post('task-lists', {
        ...base,
        items: [nav, { title: 'x', actionType: 'NAVIGATE', actionConfig: {} }],
      }),
      'items.1.actionConfig.url',
    );
    expectInvalid(
      await post('task-lists', {
        ...base,
        items: [nav, { title: 'x', actionType: 'EXTERNAL_LINK', actionConfig: { url: 'not a url' } }],
      }),
      'items.1.actionConfig.url',
    );
    expectInvalid(
      await post('task-lists', {
        ...base,
        items: [{ title: 'x', actionType: 'COMPLETE_FLOW', actionConfig: {} }],
      }),
      'items.0.actionConfig.flowId',
    );
    expectInvalid(
      await post('task-lists', { ...base, items: [{ title: 'x', actionType: 'JUMP' }] }),
      'items.0.actionType',
    );
    expectInvalid(await post('task-lists', { ...base, items: [{ ...nav, title: '' }] }), 'items.0.title');
    expectInvalid(await post('task-lists', { ...base, items: [{ ...nav, order: -1 }] }), 'items.0.order');
    expectInvalid(await post('task-lists', { ...base, items: [{ ...nav, order: 1.5 }] }), 'items.0.order');
  });

  it('needs a COMPLETE_FLOW flowId of this tenant (400 at items.N.actionConfig.flowId)', async () => {
    const foreignFlow = await insertFlow(t, other.tenantId);
    const ownFlow = await insertFlow(t, acme.tenantId);
    const base = sampleContentBody('task-lists', SITE);
    const nav = { title: 'ok', actionType: 'NAVIGATE', actionConfig: { url: '/x' } };
    for (const flowId of [foreignFlow, UNKNOWN_ID, 'not-a-uuid']) {
      const res = await post('task-lists', {
        ...base,
        items: [nav, { title: 'Tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId } }],
      });
      const err = expectError(res, 400, 'VALIDATION_ERROR');
      expect(err.details).toEqual([{ path: 'items.1.actionConfig.flowId', message: expect.any(String) }]);
    }
    const item = await create('task-lists', {
      items: [{ title: 'Tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId: ownFlow } }],
    });
    // PATCH checks the same way.
    const bad = await patch('task-lists', item.id, {
      items: [{ title: 'Tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId: foreignFlow } }],
    });
    expectInvalid(bad, 'items.0.actionConfig.flowId');
    const ok = await patch('task-lists', item.id, { description: 'Updated' });
    expect(ok.json().data).toMatchObject({ description: 'Updated', items: item.items });
  });

  it('strips triggerConfig, which task lists do not have', async () => {
    const item = await create('task-lists', { triggerConfig: { type: 'manual' } });
    expect(item.triggerConfig).toBeNull();
  });
});

describe('surveys', () => {
  const allTypes = [
    { type: 'RATING', question: 'Rate us', options: { min: 1, max: 5 } },
    { type: 'TEXT', question: 'Tell us more', required: true },
    { type: 'MULTIPLE_CHOICE', question: 'Which?', options: { choices: ['a', 'b'] } },
    { type: 'SINGLE_CHOICE', question: 'One?', options: { choices: ['x', 'y'] } },
    { type: 'NPS', question: 'Recommend?' },
    { type: 'SCALE', question: 'Scale?', options: { min: 0, max: 10 } },
    { type: 'BOOLEAN', question: 'Yes?' },
    { type: 'DROPDOWN', question: 'Pick', options: { choices: ['p', 'q', 'r'] } },
  ];

  it('creates a survey with every question type and a stable key per question', async () => {
    const created = await create('surveys', { questions: allTypes, triggerConfig: { type: 'exit_intent' } });
    const questions = created.questions as Record<string, unknown>[];
    expect(questions.map((q) => q.type)).toEqual(allTypes.map((q) => q.type));
    expect(questions[1]).toMatchObject({ question: 'Tell us more', required: true, order: 1 });
    expect(questions[0]).toMatchObject({ required: false, options: { min: 1, max: 5 }, order: 0 });
    const keys = questions.map((q) => q.key as string);
    expect(new Set(keys).size).toBe(keys.length);
    for (const k of keys) expect(k).toMatch(/^.{1,64}$/);
    // Keys are stored: reads return the same ones.
    const again = (await get(`/api/content/surveys/${created.id}`)).json().data;
    expect(again.questions.map((q: { key: string }) => q.key)).toEqual(keys);
    expect(again.triggerConfig).toEqual({ type: 'exit_intent' });
  });

  it('keeps given keys and generates only the missing ones', async () => {
    const created = await create('surveys', {
      questions: [
        { key: 'q_1', type: 'TEXT', question: 'A' },
        { type: 'TEXT', question: 'B' },
      ],
    });
    const questions = created.questions as { key: string }[];
    expect(questions[0]!.key).toBe('q_1');
    expect(questions[1]!.key).not.toBe('q_1');
    const upd = await patch('surveys', created.id, {
      questions: [
        { key: questions[1]!.key, type: 'BOOLEAN', question: 'B?' },
        { key: 'q_1', type: 'TEXT', question: 'A!' },
      ],
    });
    expect(upd.statusCode).toBe(200);
    expect(upd.json().data.questions.map((q: { key: string }) => q.key)).toEqual([questions[1]!.key, 'q_1']);
  });

  it('validates questions with exact paths', async () => {
    const base = sampleContentBody('surveys', SITE);
    const text = { type: 'TEXT', question: 'ok' };
    expectInvalid(await post('surveys', { ...base, questions: undefined }), 'questions');
    expectInvalid(await post('surveys', { ...base, questions: [] }), 'questions');
    expectInvalid(
      await post('surveys', { ...base, questions: [text, { type: 'SINGLE_CHOICE', question: 'x' }] }),
      'questions.1.options.choices',
    );
    expectInvalid(
      await post('surveys', {
        ...base,
        questions: [text, { type: 'DROPDOWN', question: 'x', options: { choices: [] } }],
      }),
      'questions.1.options.choices',
    );
    expectInvalid(
      await post('surveys', {
        ...base,
        questions: [text, { type: 'MULTIPLE_CHOICE', question: 'x', options: { choices: ['a', 'a'] } }],
      }),
      'questions.1.options.choices',
    );
    expectInvalid(
      await post('surveys', { ...base, questions: [{ type: 'ESSAY', question: 'x' }] }),
      'questions.0.type',
    );
    expectInvalid(await post('surveys', { ...base, questions: [{ type: 'TEXT' }] }), 'questions.0.question');
    expectInvalid(
      await post('surveys', { ...base, questions: [{ ...text, required: 'yes' }] }),
      'questions.0.required',
    );
    expectInvalid(
      await post('surveys', { ...base, questions: [{ ...text, key: 'k'.repeat(65) }] }),
      'questions.0.key',
    );
    expectInvalid(
      await post('surveys', {
        ...base,
        questions: [
          { ...text, key: 'same' },
          { ...text, key: 'same' },
        ],
      }),
      'questions.1.key',
    );
    expectInvalid(
      await post('surveys', {
        ...base,
        questions: [{ type: 'RATING', question: 'r', options: { min: 5, max: 1 } }],
      }),
      'questions.0.options.max',
    );
  });
});

describe('announcements', () => {
  it('creates, reads and updates an announcement with its own fields', async () => {
    const scheduledAt = new Date(Date.now() + 86_400_000).toISOString();
    const expiresAt = new Date(Date.now() + 2 * 86_400_000).toISOString();
    const created = await create('announcements', {
      type: 'BANNER',
      content: { title: 'Hello', body: 'World' },
      scheduledAt,
      expiresAt,
      triggerConfig: { type: 'side_button', buttonPosition: 'left', buttonColor: '#f00' },
    });
    expect(created).toMatchObject({
      contentType: 'announcements',
      type: 'BANNER',
      content: { title: 'Hello', body: 'World' },
      scheduledAt,
      expiresAt,
      status: 'SCHEDULED',
      triggerConfig: { type: 'side_button', buttonPosition: 'left', buttonColor: '#f00' },
    });
    const upd = await patch('announcements', created.id, { type: 'TOAST', expiresAt: null });
    expect(upd.json().data).toMatchObject({
      type: 'TOAST',
      expiresAt: null,
      scheduledAt,
      status: 'SCHEDULED',
    });
    expect((await get(`/api/content/announcements/${created.id}`)).json().data.type).toBe('TOAST');
  });

  it('accepts MODAL, BANNER, SLIDEOUT and TOAST and requires type and content.title', async () => {
    for (const type of ['MODAL', 'BANNER', 'SLIDEOUT', 'TOAST']) {
      expect((await create('announcements', { type })).type).toBe(type);
    }
    const base = sampleContentBody('announcements', SITE);
    expectInvalid(await post('announcements', { ...base, type: 'POPUP' }), 'type');
    expectInvalid(await post('announcements', { ...base, type: undefined }), 'type');
    expectInvalid(await post('announcements', { ...base, content: undefined }), 'content');
    expectInvalid(await post('announcements', { ...base, content: { body: 'no title' } }), 'content.title');
    expectInvalid(await post('announcements', { ...base, scheduledAt: 'tomorrow' }), 'scheduledAt');
  });

  it('refuses an animation field on create and PATCH with 400 at `animation`', async () => {
    const res = await post('announcements', {
      ...sampleContentBody('announcements', SITE),
      animation: 'full',
    });
    expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
      { path: 'animation', message: expect.any(String) },
    ]);
    const item = await create('announcements');
    expectInvalid(await patch('announcements', item.id, { animation: 'subtle' }), 'animation');
  });

  it('needs expiresAt after scheduledAt, and scheduledAt while SCHEDULED', async () => {
    const at = Date.now() + 86_400_000;
    const res = await post('announcements', {
      ...sampleContentBody('announcements', SITE),
      scheduledAt: new Date(at).toISOString(),
      expiresAt: new Date(at - 1000).toISOString(),
    });
    expectInvalid(res, 'expiresAt');
    const item = await create('announcements', { scheduledAt: new Date(at).toISOString() });
    expect(item.status).toBe('SCHEDULED');
    expectInvalid(await patch('announcements', item.id, { scheduledAt: null }), 'scheduledAt');
    expectInvalid(
      await patch('announcements', item.id, { expiresAt: new Date(at - 1).toISOString() }),
      'expiresAt',
    );
  });
});

describe('self-help', () => {
  it('creates, reads and updates a self-help widget', async () => {
    const created = await create('self-help', {
      config: { position: 'bottom-left', color: 'blue' },
      items: { articles: ['a1', 'a2'] },
    });
    expect(created).toMatchObject({
      contentType: 'self-help',
      config: { position: 'bottom-left', color: 'blue' },
      items: { articles: ['a1', 'a2'] },
      triggerConfig: null,
    });
    const upd = await patch('self-help', created.id, { config: { position: 'top' } });
    expect(upd.json().data).toMatchObject({ config: { position: 'top' }, items: { articles: ['a1', 'a2'] } });
  });

  it('defaults config and items to {} and refuses non-objects', async () => {
    const created = await create('self-help', { config: undefined, items: undefined });
    expect(created).toMatchObject({ config: {}, items: {} });
    expectInvalid(await post('self-help', { name: 'x', siteId: SITE, items: ['a'] }), 'items');
    expectInvalid(await post('self-help', { name: 'x', siteId: SITE, config: 'left' }), 'config');
  });
});

describe('common fields', () => {
  it.each(CONTENT_TYPES)('%s: name and siteId are required and checked', async (type) => {
    const body = sampleContentBody(type, SITE);
    expectInvalid(await post(type, { ...body, name: undefined }), 'name');
    expectInvalid(await post(type, { ...body, name: '' }), 'name');
    expectInvalid(await post(type, { ...body, name: 'x'.repeat(256) }), 'name');
    expectInvalid(await post(type, { ...body, siteId: undefined }), 'siteId');
    expectInvalid(await post(type, { ...body, siteId: 'site-1' }), 'siteId');
    expect((await post(type, { ...body, name: 'x'.repeat(255) })).statusCode).toBe(201);
  });

  it('needs audienceId to be a live audience of the tenant', async () => {
    const own = await insertAudience(t, acme.tenantId);
    const deleted = await insertAudience(t, acme.tenantId, { deleted: true });
    const foreign = await insertAudience(t, other.tenantId);
    for (const audienceId of [foreign, deleted, UNKNOWN_ID, 'nope']) {
      const res = await post('beacons', { ...sampleContentBody('beacons', SITE), audienceId });
      expect(expectError(res, 400, 'VALIDATION_ERROR').details).toEqual([
        { path: 'audienceId', message: expect.any(String) },
      ]);
    }
    const item = await create('beacons', { audienceId: own });
    expect(item.audienceId).toBe(own);
    expectInvalid(await patch('beacons', item.id, { audienceId: foreign }), 'audienceId');
    const cleared = await patch('beacons', item.id, { audienceId: null });
    expect(cleared.json().data.audienceId).toBeNull();
  });

  it('strips unknown fields', async () => {
    const item = await create('tooltips', { color: 'red', status: 'PUBLISHED', tenantId: other.tenantId });
    expect(item.color).toBeUndefined();
    expect(item.status).toBe('DRAFT');
    expect(item.tenantId).toBe(acme.tenantId);
  });

  it('PATCH changes only what is sent and validates it like create', async () => {
    const item = await create('tooltips', { name: 'Before' });
    const res = await patch('tooltips', item.id, { name: 'After', siteId: SITE_B });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      name: 'After',
      siteId: SITE_B,
      targetSelector: item.targetSelector,
      content: item.content,
    });
    expect(new Date(res.json().data.updatedAt).getTime()).toBeGreaterThanOrEqual(
      new Date(item.updatedAt as string).getTime(),
    );
    expectInvalid(await patch('tooltips', item.id, { name: '' }), 'name');
    expectInvalid(await patch('tooltips', item.id, { content: {} }), 'content.text');
    expectInvalid(await patch('tooltips', item.id, { position: 'MIDDLE' }), 'position');
  });
});

describe('triggerConfig', () => {
  const valid = [
    { type: 'exit_intent' },
    { type: 'exit_intent', url: '/pricing' },
    { type: 'scroll_depth', percentage: 0 },
    { type: 'scroll_depth', percentage: 100, url: '/blog' },
    { type: 'time_on_page', delay: 0 },
    { type: 'time_on_page', delay: 15000, url: '/docs' },
    { type: 'side_button', buttonPosition: 'left' },
    { type: 'side_button', buttonPosition: 'right', buttonColor: '#336699' },
    { type: 'url_match', pattern: '/app' },
    { type: 'url_match', pattern: '^/app/[0-9]+$', matchType: 'regex' },
    { type: 'url_match', pattern: '/app/**', matchType: 'glob' },
    { type: 'manual' },
  ];

  it.each(['tooltips', 'beacons', 'surveys', 'announcements'] as const)(
    '%s accepts all six trigger types',
    async (type) => {
      for (const triggerConfig of valid) {
        const res = await post(type, { ...sampleContentBody(type, SITE), triggerConfig });
        expect(res.statusCode, JSON.stringify(triggerConfig)).toBe(201);
        expect(res.json().data.triggerConfig).toEqual(triggerConfig);
      }
    },
  );

  it('checks each type’s fields and bounds at triggerConfig.<field>', async () => {
    const cases: [Body, string][] = [
      [{ type: 'scroll_depth', percentage: -1 }, 'triggerConfig.percentage'],
      [{ type: 'scroll_depth', percentage: 101 }, 'triggerConfig.percentage'],
      [{ type: 'scroll_depth' }, 'triggerConfig.percentage'],
      [{ type: 'scroll_depth', percentage: '50' }, 'triggerConfig.percentage'],
      [{ type: 'time_on_page', delay: -1 }, 'triggerConfig.delay'],
      [{ type: 'time_on_page', delay: 1.5 }, 'triggerConfig.delay'],
      [{ type: 'time_on_page' }, 'triggerConfig.delay'],
      [{ type: 'side_button', buttonPosition: 'top' }, 'triggerConfig.buttonPosition'],
      [{ type: 'side_button' }, 'triggerConfig.buttonPosition'],
      [{ type: 'url_match' }, 'triggerConfig.pattern'],
      [{ type: 'url_match', pattern: '' }, 'triggerConfig.pattern'],
      [{ type: 'url_match', pattern: '/a', matchType: 'fuzzy' }, 'triggerConfig.matchType'],
      [{ type: 'url_match', pattern: '(a+)+$', matchType: 'regex' }, 'triggerConfig.pattern'],
      [{ type: 'url_match', pattern: '(?<=a)b', matchType: 'regex' }, 'triggerConfig.pattern'],
      [{ type: 'exit_intent', url: 5 }, 'triggerConfig.url'],
      [{ type: 'hover' }, 'triggerConfig.type'],
      [{}, 'triggerConfig.type'],
    ];
    for (const [triggerConfig, path] of cases) {
      expectInvalid(await post('tooltips', { ...sampleContentBody('tooltips', SITE), triggerConfig }), path);
    }
    expectInvalid(
      await post('tooltips', { ...sampleContentBody('tooltips', SITE), triggerConfig: 'manual' }),
      'triggerConfig',
    );
  });

  it('a catastrophic url_match regex is also refused on PATCH', async () => {
    const item = await create('surveys');
    expectInvalid(
      await patch('surveys', item.id, {
        triggerConfig: { type: 'url_match', pattern: '(a*)*b', matchType: 'regex' },
      }),
      'triggerConfig.pattern',
    );
    const ok = await patch('surveys', item.id, { triggerConfig: { type: 'scroll_depth', percentage: 40 } });
    expect(ok.json().data.triggerConfig).toEqual({ type: 'scroll_depth', percentage: 40 });
  });
});

describe('lists', () => {
  it('filters by status, search and siteId; hides ARCHIVED unless asked', async () => {
    const tenant = await createTenant(t);
    const h = tenant.owner.headers;
    const mk = async (name: string, siteId = SITE) => {
      const res = await post('tooltips', { ...sampleContentBody('tooltips', siteId), name }, h);
      return res.json().data as Item;
    };
    const alpha = await mk('Alpha tip');
    const beta = await mk('beta TIP', SITE_B);
    const gamma = await mk('Gamma 100%');
    await t.inject({ method: 'POST', url: `/api/content/tooltips/${beta.id}/publish`, headers: h });
    await t.inject({ method: 'DELETE', url: `/api/content/tooltips/${gamma.id}`, headers: h });
    await post('beacons', sampleContentBody('beacons', SITE), h); // another type: never listed here

    const ids = async (query: string) => {
      const res = await get(`/api/content/tooltips${query}`, h);
      expect(res.statusCode, res.body).toBe(200);
      return (res.json().data as Item[]).map((i) => i.id);
    };
    expect(await ids('')).toEqual([beta.id, alpha.id]);
    expect(await ids('?status=ARCHIVED')).toEqual([gamma.id]);
    expect(await ids('?status=PUBLISHED')).toEqual([beta.id]);
    expect(await ids('?status=DRAFT')).toEqual([alpha.id]);
    expect(await ids('?status=SCHEDULED')).toEqual([]);
    expect(await ids('?search=TIP')).toEqual([beta.id, alpha.id]);
    expect(await ids('?search=%25')).toEqual([]); // a literal % (gamma is archived)
    expect(await ids('?search=%25&status=ARCHIVED')).toEqual([gamma.id]);
    expect(await ids(`?siteId=${SITE_B}`)).toEqual([beta.id]);
    expect(await ids(`?siteId=${SITE}&search=alpha`)).toEqual([alpha.id]);

    const list = await get('/api/content/tooltips', h);
    expect(list.json().meta).toEqual({ page: 1, limit: 20, total: 2, totalPages: 1 });
    expect(list.json().data[0]).toEqual({
      id: beta.id,
      tenantId: tenant.tenantId,
      contentType: 'tooltips',
      name: 'beta TIP',
      siteId: SITE_B,
      status: 'PUBLISHED',
      audienceId: null,
      priority: 0,
      bypassCaps: false,
      createdAt: beta.createdAt,
      updatedAt: expect.any(String),
    });
  });

  it('sorts by name, status, createdAt and updatedAt in both directions, ties by id', async () => {
    const tenant = await createTenant(t);
    const h = tenant.owner.headers;
    // Each step a second apart, so createdAt/updatedAt order is certain.
    t.clock.set(Date.now());
    const made: Item[] = [];
    for (const name of ['charlie', 'alpha', 'bravo', 'alpha']) {
      made.push((await post('surveys', { ...sampleContentBody('surveys', SITE), name }, h)).json().data);
      t.clock.advance(1000);
    }
    const [c, a1, b, a2] = made as [Item, Item, Item, Item];
    await t.inject({ method: 'POST', url: `/api/content/surveys/${b.id}/publish`, headers: h });
    t.clock.advance(1000);
    await patch('surveys', c.id, { siteId: SITE_B }, h); // c updated last (a PATCH that changes something)

    const ids = async (query: string) =>
      ((await get(`/api/content/surveys${query}`, h)).json().data as Item[]).map((i) => i.id);
    expect(await ids('')).toEqual([a2.id, b.id, a1.id, c.id]);
    expect(await ids('?sortDirection=asc')).toEqual([c.id, a1.id, b.id, a2.id]);
    expect(await ids('?sortBy=createdAt&sortDirection=desc')).toEqual([a2.id, b.id, a1.id, c.id]);
    expect(await ids('?sortBy=name&sortDirection=asc')).toEqual([a1.id, a2.id, b.id, c.id]);
    expect(await ids('?sortBy=name&sortDirection=desc')).toEqual([c.id, b.id, a2.id, a1.id]);
    expect(await ids('?sortBy=name')).toEqual([c.id, b.id, a2.id, a1.id]);
    // DRAFT < PUBLISHED; equal statuses by id (creation order) in the same direction.
    expect(await ids('?sortBy=status&sortDirection=asc')).toEqual([c.id, a1.id, a2.id, b.id]);
    expect(await ids('?sortBy=status&sortDirection=desc')).toEqual([b.id, a2.id, a1.id, c.id]);
    expect(await ids('?sortBy=updatedAt&sortDirection=desc')).toEqual([c.id, b.id, a2.id, a1.id]);
    expect(await ids('?sortBy=updatedAt&sortDirection=asc')).toEqual([a1.id, a2.id, b.id, c.id]);
  });

  it('paginates with page and limit and checks the query', async () => {
    const tenant = await createTenant(t);
    const h = tenant.owner.headers;
    const made: string[] = [];
    for (let i = 0; i < 5; i++) {
      made.push((await post('self-help', sampleContentBody('self-help', SITE, `w${i}`), h)).json().data.id);
    }
    const page = async (q: string) => (await get(`/api/content/self-help${q}`, h)).json();
    const p1 = await page('?limit=2');
    expect(p1.meta).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 });
    expect(p1.data.map((i: Item) => i.id)).toEqual([made[4], made[3]]);
    const p3 = await page('?limit=2&page=3');
    expect(p3.data.map((i: Item) => i.id)).toEqual([made[0]]);
    expect((await page('?page=9')).data).toEqual([]);
    expect((await page('?status=ARCHIVED')).meta).toEqual({ page: 1, limit: 20, total: 0, totalPages: 0 });

    for (const [q, path] of [
      ['?limit=101', 'query.limit'],
      ['?limit=0', 'query.limit'],
      ['?page=0', 'query.page'],
      ['?page=x', 'query.page'],
      ['?status=LIVE', 'query.status'],
      ['?sortBy=type', 'query.sortBy'],
      ['?sortDirection=up', 'query.sortDirection'],
      ['?siteId=abc', 'query.siteId'],
    ] as const) {
      expectInvalid(await get(`/api/content/self-help${q}`, h), path);
    }
  });
});

describe('access', () => {
  it('lets VIEWER read, and only EDITOR or higher write', async () => {
    const viewer = await acme.as('VIEWER');
    const editor = await acme.as('EDITOR');
    const item = await create('tooltips');
    expect((await get('/api/content/tooltips', viewer.headers)).statusCode).toBe(200);
    expect((await get(`/api/content/tooltips/${item.id}`, viewer.headers)).statusCode).toBe(200);
    const survey = await create('surveys');
    expect((await get(`/api/content/surveys/${survey.id}/responses`, viewer.headers)).statusCode).toBe(200);

    const writes = [
      { method: 'POST' as const, url: '/api/content/tooltips', payload: sampleContentBody('tooltips', SITE) },
      { method: 'PATCH' as const, url: `/api/content/tooltips/${item.id}`, payload: { name: 'x' } },
      { method: 'POST' as const, url: `/api/content/tooltips/${item.id}/publish` },
      { method: 'POST' as const, url: `/api/content/tooltips/${item.id}/unpublish` },
      { method: 'DELETE' as const, url: `/api/content/tooltips/${item.id}` },
      { method: 'POST' as const, url: `/api/content/tooltips/${item.id}/restore` },
    ];
    for (const w of writes) {
      expectError(await t.inject({ ...w, headers: viewer.headers }), 403, 'INSUFFICIENT_ROLE');
    }
    for (const w of writes) {
      expect((await t.inject({ ...w, headers: editor.headers })).statusCode, w.url).toBeLessThan(300);
    }
    expectError(await t.inject({ method: 'GET', url: '/api/content/tooltips' }), 401, 'AUTH_NO_TOKEN');
    expectError(
      await t.inject({ method: 'POST', url: `/api/content/tooltips/${item.id}/publish` }),
      401,
      'AUTH_NO_TOKEN',
    );
  });

  it("answers 404 CONTENT_NOT_FOUND to another tenant, for unknown and malformed ids, and for another type's id", async () => {
    const item = await create('beacons');
    const survey = await create('surveys');
    const h = other.owner.headers;
    const routes = (type: string, id: string) => [
      { method: 'GET' as const, url: `/api/content/${type}/${id}` },
      { method: 'PATCH' as const, url: `/api/content/${type}/${id}`, payload: { name: 'stolen' } },
      { method: 'DELETE' as const, url: `/api/content/${type}/${id}` },
      { method: 'POST' as const, url: `/api/content/${type}/${id}/publish` },
      { method: 'POST' as const, url: `/api/content/${type}/${id}/unpublish` },
      { method: 'POST' as const, url: `/api/content/${type}/${id}/restore` },
    ];
    const cases = [
      ...routes('beacons', item.id).map((r) => ({ ...r, headers: h })),
      ...routes('surveys', survey.id).map((r) => ({ ...r, headers: h })),
      { method: 'GET' as const, url: `/api/content/surveys/${survey.id}/responses`, headers: h },
      ...routes('beacons', UNKNOWN_ID).map((r) => ({ ...r, headers: acme.owner.headers })),
      ...routes('beacons', 'not-a-uuid').map((r) => ({ ...r, headers: acme.owner.headers })),
      ...routes('tooltips', item.id).map((r) => ({ ...r, headers: acme.owner.headers })),
      {
        method: 'GET' as const,
        url: `/api/content/surveys/${item.id}/responses`,
        headers: acme.owner.headers,
      },
      { method: 'GET' as const, url: '/api/content/surveys/nope/responses', headers: acme.owner.headers },
    ];
    for (const c of cases) {
      expectError(await t.inject(c), 404, 'CONTENT_NOT_FOUND');
    }
    // Untouched.
    const still = (await get(`/api/content/beacons/${item.id}`)).json().data;
    expect(still).toMatchObject({ name: item.name, status: 'DRAFT' });
    expect((await get('/api/content/beacons', h)).json().data).toEqual([]);
  });

  it('answers 404 NOT_FOUND for a type that does not exist', async () => {
    const item = await create('tooltips');
    for (const c of [
      { method: 'GET' as const, url: '/api/content/widgets' },
      { method: 'POST' as const, url: '/api/content/widgets', payload: { name: 'x', siteId: SITE } },
      { method: 'GET' as const, url: `/api/content/tooltip/${item.id}` },
      { method: 'POST' as const, url: `/api/content/nps/${item.id}/publish` },
    ]) {
      expectError(await t.inject({ ...c, headers: acme.owner.headers }), 404, 'NOT_FOUND');
    }
  });
});

describe('audit', () => {
  it('writes CONTENT_CREATED, CONTENT_UPDATED (with changes and transitions) and CONTENT_ARCHIVED', async () => {
    const editor = await acme.as('EDITOR');
    const created = await post('announcements', sampleContentBody('announcements', SITE), editor.headers);
    const id = created.json().data.id as string;
    await patch('announcements', id, { name: 'Renamed', type: 'TOAST' }, editor.headers);
    await t.inject({
      method: 'POST',
      url: `/api/content/announcements/${id}/unpublish`,
      headers: editor.headers,
    });
    await t.inject({ method: 'DELETE', url: `/api/content/announcements/${id}`, headers: editor.headers });
    await t.inject({
      method: 'POST',
      url: `/api/content/announcements/${id}/restore`,
      headers: editor.headers,
    });
    const rows = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, acme.tenantId), eq(auditLogs.entityId, id)))
      .orderBy(auditLogs.createdAt, auditLogs.id);
    expect(rows.map((r) => [r.action, r.metadata])).toEqual([
      ['CONTENT_CREATED', { name: 'Sample announcements', status: 'PUBLISHED', version: 1 }],
      ['CONTENT_UPDATED', { changes: ['name', 'type'] }],
      ['CONTENT_UPDATED', { transition: { from: 'PUBLISHED', to: 'DRAFT', action: 'unpublish' } }],
      ['CONTENT_ARCHIVED', { transition: { from: 'DRAFT', to: 'ARCHIVED', action: 'archive' } }],
      ['CONTENT_UPDATED', { transition: { from: 'ARCHIVED', to: 'DRAFT', action: 'restore' } }],
    ]);
    for (const r of rows) expect(r).toMatchObject({ entityType: 'announcements', actorId: editor.userId });
  });

  it.each(CONTENT_TYPES)(
    '%s: a PATCH that changes nothing answers the record as it is, writing nothing',
    async (type) => {
      const tenant = await createTenant(t);
      const h = tenant.owner.headers;
      const extra: Body =
        type === 'announcements'
          ? { scheduledAt: '2099-01-01T00:00:00.000Z', expiresAt: '2099-02-01T00:00:00.000Z' }
          : type === 'task-lists' || type === 'self-help'
            ? {}
            : { triggerConfig: { type: 'url_match', pattern: '/app' } };
      const created = await post(type, { ...sampleContentBody(type, SITE), ...extra }, h);
      expect(created.statusCode, created.body).toBe(201);
      const item = created.json().data as Item;
      const at = Date.parse(item.updatedAt as string) + 3_600_000;
      t.clock.set(at);
      try {
        const {
          id,
          tenantId,
          contentType,
          status,
          publishedAt,
          archivedAt,
          createdAt,
          updatedAt,
          ...fields
        } = item;
        // every field sent back as it is; objects with their keys in another order; a date-time
        // with an offset naming the same instant
        const reordered = Object.fromEntries(
          Object.entries(fields)
            .reverse()
            .map(([k, v]) => [
              k,
              v && typeof v === 'object' && !Array.isArray(v)
                ? Object.fromEntries(Object.entries(v).reverse())
                : v,
            ]),
        );
        if (type === 'announcements') reordered.scheduledAt = '2099-01-01T01:00:00+01:00';
        for (const payload of [{}, fields, reordered, { name: item.name }]) {
          const res = await patch(type, item.id, payload, h);
          expect(res.statusCode, res.body).toBe(200);
          expect(res.json().data, JSON.stringify(payload)).toEqual(item);
        }
        const rows = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.entityId, item.id));
        expect(rows.map((r) => r.action)).toEqual(['CONTENT_CREATED']);
        expect((await get(`/api/content/${type}/${item.id}`, h)).json().data).toEqual(item);

        // one field changed among unchanged ones: written and audited with that field only
        const changed = await patch(type, item.id, { ...fields, name: 'Renamed' }, h);
        expect(changed.statusCode, changed.body).toBe(200);
        expect(changed.json().data).toEqual({
          ...item,
          name: 'Renamed',
          updatedAt: new Date(at).toISOString(),
        });
        const after = await t.deps.database.db
          .select()
          .from(auditLogs)
          .where(eq(auditLogs.entityId, item.id));
        expect(after.map((r) => [r.action, r.metadata]).sort()).toEqual([
          ['CONTENT_CREATED', expect.anything()],
          ['CONTENT_UPDATED', { changes: ['name'] }],
        ]);
      } finally {
        t.clock.set(Date.now());
      }
    },
  );

  it('writes nothing for a refused request', async () => {
    const item = await create('tooltips');
    await patch('tooltips', item.id, { animation: 'x' });
    await t.inject({
      method: 'POST',
      url: `/api/content/tooltips/${item.id}/unpublish`,
      headers: acme.owner.headers,
    });
    const rows = await t.deps.database.db.select().from(auditLogs).where(eq(auditLogs.entityId, item.id));
    expect(rows.map((r) => r.action)).toEqual(['CONTENT_CREATED']);
  });
});

describe('plan feature surveys', () => {
  it('refuses to create surveys and NPS surveys on a plan without surveys, writing nothing', async () => {
    const tenant = await createTenant(t);
    const h = tenant.owner.headers;
    const before = await post('surveys', sampleContentBody('surveys', SITE), h);
    expect(before.statusCode, before.body).toBe(201);
    const planId = newId();
    await t.deps.database.db.insert(plans).values({
      id: planId,
      name: 'test-nosurveys',
      features: {
        flows: true,
        surveys: false,
        experiments: false,
        ai: false,
        journeys: false,
        translations: false,
      },
      limits: {
        flows: 5,
        activeUsers: 1000,
        apiKeys: 2,
        members: 3,
        aiTokens: 0,
        journeys: 0,
        experiments: 0,
      },
    });
    await t.deps.database.db
      .update(subscriptions)
      .set({ planId })
      .where(eq(subscriptions.tenantId, tenant.tenantId));

    const survey = expectError(
      await post('surveys', sampleContentBody('surveys', SITE), h),
      403,
      'PLAN_FEATURE_UNAVAILABLE',
    );
    expect(survey.details).toEqual({ feature: 'surveys', plan: 'test-nosurveys' });
    const nps = expectError(
      await t.inject({
        method: 'POST',
        url: '/api/nps-surveys',
        headers: h,
        payload: { name: 'NPS', siteId: SITE, question: 'Recommend us?' },
      }),
      403,
      'PLAN_FEATURE_UNAVAILABLE',
    );
    expect(nps.details).toEqual({ feature: 'surveys', plan: 'test-nosurveys' });
    // nothing was stored or audited
    expect((await get('/api/content/surveys', h)).json().meta.total).toBe(1);
    expect((await get('/api/nps-surveys', h)).json().meta.total).toBe(0);
    const created = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.tenantId, tenant.tenantId), eq(auditLogs.action, 'CONTENT_CREATED')));
    expect(created).toHaveLength(1);
    // other content types are not surveys
    expect((await post('tooltips', sampleContentBody('tooltips', SITE), h)).statusCode).toBe(201);

    // back on a plan with surveys: allowed again
    const [free] = await t.deps.database.db.select().from(plans).where(eq(plans.name, 'free'));
    await t.deps.database.db
      .update(subscriptions)
      .set({ planId: free!.id })
      .where(eq(subscriptions.tenantId, tenant.tenantId));
    expect((await post('surveys', sampleContentBody('surveys', SITE), h)).statusCode).toBe(201);
  });
});

describe('OpenAPI', () => {
  it('documents a route set per content type', async () => {
    const doc = (await t.inject({ method: 'GET', url: '/docs/json' })).json();
    for (const type of CONTENT_TYPES) {
      expect(doc.paths[`/api/content/${type}`]).toBeDefined();
      expect(doc.paths[`/api/content/${type}/{id}/publish`]).toBeDefined();
    }
    expect(doc.paths['/api/content/surveys/{id}/responses']).toBeDefined();
    expect(doc.paths['/api/nps-surveys/{id}/results']).toBeDefined();
  });
});
