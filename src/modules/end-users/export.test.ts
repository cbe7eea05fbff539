import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { type ExportLine, parseCsv, parseNdjson } from '../../../test/helpers/export-bodies.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { endUsers } from '../../db/schema/index.js';
import { newId } from '../../platform/ids.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let admin: Record<string, string>;

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
/** More than two pages of 1,000, in groups of 300 created at the same microsecond. */
const USERS = 2_100;
const NOW_USERS = 3;
const TOTAL = USERS + NOW_USERS;

type Line = ExportLine;
const lines = (body: string) => parseNdjson(body);

const get = (url: string, headers: Record<string, string> = admin) =>
  t.inject({ method: 'GET', url, headers });

async function exportAll(query = '', headers = admin): Promise<Line[]> {
  const res = await get(`/api/end-users/export${query}`, headers);
  expect(res.statusCode, res.body).toBe(200);
  return lines(res.body);
}

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
  admin = (await acme.as('ADMIN')).headers;
  const rows = Array.from({ length: USERS }, (_, i) => ({
    id: newId(),
    tenantId: acme.tenantId,
    externalId: i % 2 === 0 ? `user-${i}` : null,
    anonymousId: i % 2 === 1 ? `anon-${i}` : null,
    traits: { i, note: i === 0 ? 'has, "commas"\nand lines' : 'x' },
    createdAt: new Date(T0 + Math.floor(i / 300) * 1000),
  }));
  for (let k = 0; k < rows.length; k += 500)
    await t.deps.database.db.insert(endUsers).values(rows.slice(k, k + 500));
  // A few created now, by the database: times to the microsecond.
  await t.deps.database.db.insert(endUsers).values(
    Array.from({ length: NOW_USERS }, (_, i) => ({
      id: newId(),
      tenantId: acme.tenantId,
      traits: { i: USERS + i },
    })),
  );
  await t.deps.database.db
    .insert(endUsers)
    .values({ id: newId(), tenantId: other.tenantId, externalId: 'other-user', createdAt: new Date(T0) });
});

afterAll(async () => {
  await t?.close();
});

describe('GET /api/end-users/export', () => {
  it("streams the tenant's end users in stored order, each with its cursor, never another tenant's", async () => {
    const res = await get('/api/end-users/export');
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    const all = lines(res.body);
    expect(all).toHaveLength(TOTAL);
    expect(all.map((l) => (l.traits as { i: number }).i).sort((a, b) => a - b)).toEqual(
      Array.from({ length: TOTAL }, (_, i) => i),
    );
    const created = all.map((l) => l.createdAt as string);
    expect([...created].sort()).toEqual(created);
    expect(all.some((l) => l.userId === 'other-user')).toBe(false);
    expect(all.find((l) => (l.traits as { i: number }).i === 0)).toMatchObject({
      userId: 'user-0',
      anonymousId: null,
      firstSeenAt: expect.any(String),
      lastSeenAt: expect.any(String),
    });
    const theirs = await exportAll('', other.owner.headers);
    expect(theirs.map((l) => l.userId)).toEqual(['other-user']);
  });

  it('resumes after any row with exactly the rest, across equal times and page boundaries', async () => {
    const all = await exportAll();
    for (const k of [0, 299, 300, 999, 1000, 1001, USERS - 1, USERS, TOTAL - 2, TOTAL - 1]) {
      const rest = await exportAll(`?cursor=${encodeURIComponent(all[k]!.cursor)}`);
      expect(
        rest.map((l) => l.id),
        `after row ${k}`,
      ).toEqual(all.slice(k + 1).map((l) => l.id));
    }
  });

  it('filters by creation time', async () => {
    const range = (from: number, to: number) =>
      exportAll(`?from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}`);
    // Groups of 300 created at T0, T0 + 1 s, …: `from` and `to` both included.
    expect(await range(T0 + 1000, T0 + 1999)).toHaveLength(300);
    expect(await range(T0 + 1000, T0 + 2000)).toHaveLength(600);
    expect(await range(T0 + 1001, T0 + 2000)).toHaveLength(300);
    expect(await exportAll('?to=2026-11-02')).toHaveLength(USERS);
  });

  it('writes CSV with a header row and quoting, the same rows as NDJSON; gzip decompresses to it', async () => {
    const res = await get('/api/end-users/export?format=csv');
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual([
      'id',
      'userId',
      'anonymousId',
      'traits',
      'firstSeenAt',
      'lastSeenAt',
      'createdAt',
      'cursor',
    ]);
    const ndjson = await exportAll();
    expect(rows.map((r) => r[0])).toEqual(ndjson.map((l) => l.id));
    const first = rows.find((r) => r[1] === 'user-0')!;
    expect(JSON.parse(first[3]!)).toEqual({ i: 0, note: 'has, "commas"\nand lines' });
    const zipped = await get('/api/end-users/export?format=csv', { ...admin, 'accept-encoding': 'gzip' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(zipped.rawPayload).toString()).toBe(res.body);
  });

  it('400 VALIDATION_ERROR naming the field', async () => {
    const [first] = await exportAll();
    const events = await get('/api/events/export');
    const eventCursor = lines(events.body)[0]?.cursor ?? first!.cursor.replace(/^./, 'x');
    for (const [query, field] of [
      ['from=2026-02-30', 'from'],
      ['from=2026-11-03&to=2026-11-02', 'to'],
      ['format=json', 'format'],
      ['cursor=abc.def', 'cursor'],
      [`cursor=${encodeURIComponent(eventCursor)}`, 'cursor'],
      [`cursor=${encodeURIComponent(`${first!.cursor}x`)}`, 'cursor'],
    ] as const) {
      const err = expectError(await get(`/api/end-users/export?${query}`), 400, 'VALIDATION_ERROR');
      expect(err.details, query).toEqual([expect.objectContaining({ path: `query.${field}` })]);
    }
  });

  it('takes an ADMIN: 403 for EDITOR and VIEWER, 401 without a session', async () => {
    for (const role of ['EDITOR', 'VIEWER'] as const) {
      const actor = await acme.as(role);
      expectError(await get('/api/end-users/export', actor.headers), 403, 'INSUFFICIENT_ROLE');
    }
    expectError(await get('/api/end-users/export', {}), 401, 'AUTH_NO_TOKEN');
    expect((await get('/api/end-users/export', acme.owner.headers)).statusCode).toBe(200);
  });
});
