import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import {
  auditLogs,
  CONTENT_TYPES,
  type ContentStatus,
  type ContentType,
  contentItems,
} from '../../db/schema/index.js';
import { sampleContentBody } from './samples.js';

let t: TestApp;
let acme: TenantFixture;
const SITE = '01900000-0000-7000-8000-0000000000a1';

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
});
afterAll(() => t.close());

type Item = Record<string, unknown> & { id: string; status: ContentStatus };
type Action = 'publish' | 'unpublish' | 'archive' | 'restore';

const STATES: ContentStatus[] = ['DRAFT', 'SCHEDULED', 'PUBLISHED', 'ARCHIVED'];
const ACTIONS: Action[] = ['publish', 'unpublish', 'archive', 'restore'];

/** The content lifecycle (spec + DECISIONS §6); null = 409 INVALID_STATE_TRANSITION. */
const EXPECTED: Record<ContentStatus, Record<Action, ContentStatus | null>> = {
  DRAFT: { publish: 'PUBLISHED', unpublish: null, archive: 'ARCHIVED', restore: null },
  SCHEDULED: { publish: 'PUBLISHED', unpublish: 'DRAFT', archive: 'ARCHIVED', restore: null },
  PUBLISHED: { publish: null, unpublish: 'DRAFT', archive: 'ARCHIVED', restore: null },
  ARCHIVED: { publish: null, unpublish: null, archive: 'ARCHIVED', restore: 'DRAFT' },
};

const h = () => acme.owner.headers;

async function create(type: ContentType, fields: Record<string, unknown> = {}): Promise<Item> {
  const res = await t.inject({
    method: 'POST',
    url: `/api/content/${type}`,
    headers: h(),
    payload: { ...sampleContentBody(type, SITE), ...fields },
  });
  expect(res.statusCode, res.body).toBe(201);
  return res.json().data;
}

function act(type: ContentType, id: string, action: Action) {
  return action === 'archive'
    ? t.inject({ method: 'DELETE', url: `/api/content/${type}/${id}`, headers: h() })
    : t.inject({ method: 'POST', url: `/api/content/${type}/${id}/${action}`, headers: h() });
}

async function actOk(type: ContentType, id: string, action: Action): Promise<Item> {
  const res = await act(type, id, action);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** An item of `type` in `state`, reached through the API (SCHEDULED: only announcements can be; others are set in the table). */
async function itemIn(type: ContentType, state: ContentStatus): Promise<Item> {
  if (type === 'announcements') {
    if (state === 'SCHEDULED') {
      return create(type, { scheduledAt: new Date(t.clock.now() + 86_400_000).toISOString() });
    }
    const item = await create(type); // PUBLISHED
    if (state === 'PUBLISHED') return item;
    if (state === 'DRAFT') return actOk(type, item.id, 'unpublish');
    return actOk(type, item.id, 'archive');
  }
  const item = await create(type); // DRAFT
  if (state === 'DRAFT') return item;
  if (state === 'PUBLISHED') return actOk(type, item.id, 'publish');
  if (state === 'ARCHIVED') return actOk(type, item.id, 'archive');
  await t.deps.database.db
    .update(contentItems)
    .set({ status: 'SCHEDULED' })
    .where(eq(contentItems.id, item.id));
  return { ...item, status: 'SCHEDULED' };
}

const cases = CONTENT_TYPES.flatMap((type) =>
  STATES.flatMap((state) => ACTIONS.map((action) => [type, state, action] as const)),
);

describe('content lifecycle: every type × state × action through HTTP', () => {
  it.each(cases)('%s: %s --%s-->', async (type, state, action) => {
    const item = await itemIn(type, state);
    expect(item.status).toBe(state);
    const res = await act(type, item.id, action);
    const expected = EXPECTED[state][action];
    const after = (
      await t.inject({ method: 'GET', url: `/api/content/${type}/${item.id}`, headers: h() })
    ).json().data;
    if (expected === null) {
      const err = expectError(res, 409, 'INVALID_STATE_TRANSITION');
      expect(err.category).toBe('CONFLICT');
      expect(err.details).toEqual({ from: state, action });
      expect(after.status).toBe(state);
    } else {
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data).toMatchObject({ id: item.id, status: expected, contentType: type });
      expect(after.status).toBe(expected);
    }
  });
});

describe('lifecycle details', () => {
  it('sets publishedAt on publish, archivedAt on archive and clears it on restore', async () => {
    t.clock.set(Date.parse('2031-03-01T10:00:00Z'));
    const item = await create('tooltips');
    expect(item).toMatchObject({ publishedAt: null, archivedAt: null });
    t.clock.set(Date.parse('2031-03-01T11:00:00Z'));
    const published = await actOk('tooltips', item.id, 'publish');
    expect(published).toMatchObject({
      publishedAt: '2031-03-01T11:00:00.000Z',
      updatedAt: '2031-03-01T11:00:00.000Z',
    });
    t.clock.set(Date.parse('2031-03-01T12:00:00Z'));
    const archived = await actOk('tooltips', item.id, 'archive');
    expect(archived).toMatchObject({ status: 'ARCHIVED', archivedAt: '2031-03-01T12:00:00.000Z' });
    t.clock.set(Date.parse('2031-03-01T13:00:00Z'));
    const restored = await actOk('tooltips', item.id, 'restore');
    expect(restored).toMatchObject({
      status: 'DRAFT',
      archivedAt: null,
      updatedAt: '2031-03-01T13:00:00.000Z',
    });
  });

  it('archiving an archived item is a no-op 200 (nothing written)', async () => {
    const item = await itemIn('beacons', 'ARCHIVED');
    t.clock.advance(60_000);
    const again = await actOk('beacons', item.id, 'archive');
    expect(again).toEqual(item);
    const rows = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.entityId, item.id), eq(auditLogs.action, 'CONTENT_ARCHIVED')));
    expect(rows).toHaveLength(1);
  });

  it('PATCH never changes the status', async () => {
    for (const state of STATES) {
      const item = await itemIn('announcements', state);
      const res = await t.inject({
        method: 'PATCH',
        url: `/api/content/announcements/${item.id}`,
        headers: h(),
        payload: { name: 'Renamed', status: 'DRAFT' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ name: 'Renamed', status: state });
    }
  });

  it('writes the transition to the audit trail', async () => {
    const item = await itemIn('task-lists', 'DRAFT');
    await actOk('task-lists', item.id, 'publish');
    await actOk('task-lists', item.id, 'unpublish');
    const rows = await t.deps.database.db
      .select()
      .from(auditLogs)
      .where(eq(auditLogs.entityId, item.id))
      .orderBy(auditLogs.createdAt, auditLogs.id);
    expect(rows.map((r) => [r.action, r.entityType, r.actorId, r.metadata])).toEqual([
      ['CONTENT_CREATED', 'task-lists', acme.owner.userId, { name: 'Sample task-lists', status: 'DRAFT' }],
      [
        'CONTENT_UPDATED',
        'task-lists',
        acme.owner.userId,
        { transition: { from: 'DRAFT', to: 'PUBLISHED', action: 'publish' }, version: 1 },
      ],
      [
        'CONTENT_UPDATED',
        'task-lists',
        acme.owner.userId,
        { transition: { from: 'PUBLISHED', to: 'DRAFT', action: 'unpublish' } },
      ],
    ]);
  });
});

describe('announcements: status on create by scheduledAt', () => {
  const T = Date.parse('2032-06-01T12:00:00Z');

  it('is SCHEDULED when scheduledAt is in the future', async () => {
    t.clock.set(T);
    const item = await create('announcements', { scheduledAt: '2032-06-01T12:00:01Z' });
    expect(item).toMatchObject({
      status: 'SCHEDULED',
      scheduledAt: '2032-06-01T12:00:01.000Z',
      publishedAt: null,
    });
  });

  it('is PUBLISHED when scheduledAt is now, in the past or absent', async () => {
    t.clock.set(T);
    for (const scheduledAt of ['2032-06-01T12:00:00Z', '2032-05-01T00:00:00Z', undefined]) {
      const item = await create('announcements', { scheduledAt });
      expect(item).toMatchObject({ status: 'PUBLISHED', publishedAt: '2032-06-01T12:00:00.000Z' });
    }
  });

  it('other types start DRAFT whatever they are sent', async () => {
    for (const type of CONTENT_TYPES.filter((x) => x !== 'announcements')) {
      expect((await create(type, { scheduledAt: '2000-01-01T00:00:00Z', status: 'PUBLISHED' })).status).toBe(
        'DRAFT',
      );
    }
  });

  it('publishing a SCHEDULED announcement publishes it now; unpublishing makes it a DRAFT', async () => {
    t.clock.set(T);
    const a = await create('announcements', { scheduledAt: '2032-07-01T00:00:00Z' });
    const b = await create('announcements', { scheduledAt: '2032-07-01T00:00:00Z' });
    t.clock.set(T + 1000);
    expect(await actOk('announcements', a.id, 'publish')).toMatchObject({
      status: 'PUBLISHED',
      publishedAt: new Date(T + 1000).toISOString(),
      scheduledAt: '2032-07-01T00:00:00.000Z',
    });
    expect(await actOk('announcements', b.id, 'unpublish')).toMatchObject({
      status: 'DRAFT',
      publishedAt: null,
    });
  });
});
