import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { type ExportLine, parseCsv, parseNdjson } from '../../../test/helpers/export-bodies.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, sdkCall } from '../../../test/helpers/sdk.js';
import { EXPORT_PAGE_BATCHES } from './export.js';

let t: TestApp;
let acme: TenantFixture;
let other: TenantFixture;
let viewer: Record<string, string>;
let acmeKey: string;

const T0 = Date.UTC(2026, 10, 2, 9, 0, 0);
const BATCHES = EXPORT_PAGE_BATCHES * 2 + 5; // three pages
const PER_BATCH = 3;

/** Sends SDK events with the key; they are accepted (202). */
async function send(key: string, events: Record<string, unknown>[]) {
  const res = await sdkCall(t, key)('POST', '/api/sdk/events', { events });
  expect(res.statusCode, res.body).toBe(202);
}

const get = (url: string, headers: Record<string, string> = viewer) =>
  t.inject({ method: 'GET', url, headers });

type Line = ExportLine & { type: string };
const lines = (body: string) => parseNdjson<Line>(body);

async function exportAll(query = ''): Promise<Line[]> {
  const res = await get(`/api/events/export${query}`);
  expect(res.statusCode, res.body).toBe(200);
  return lines(res.body);
}

beforeAll(async () => {
  t = await createTestApp();
  acme = await createTenant(t);
  other = await createTenant(t);
  viewer = (await acme.as('VIEWER')).headers;
  acmeKey = await apiKeyOf(t, acme);
  const otherKey = await apiKeyOf(t, other);
  // Batches received at the same millisecond, in pairs: ties are broken by the batch id.
  for (let b = 0; b < BATCHES; b++) {
    t.clock.set(T0 + Math.floor(b / 2) * 1000);
    await send(
      acmeKey,
      Array.from({ length: PER_BATCH }, (_, i) => ({
        type: i === 0 ? 'PAGE_VIEW' : 'CUSTOM',
        name: i === 0 ? undefined : `evt ${b}.${i}`,
        userId: `user-${b}`,
        url: 'https://app.example.com/',
        timestamp: new Date(T0 - 60_000).toISOString(),
        properties: { batch: b, index: i },
      })),
    );
  }
  t.clock.set(T0 + 500);
  await send(otherKey, [{ type: 'PAGE_VIEW', userId: 'other-user', properties: { secret: true } }]);
  t.clock.set(T0 + 86_400_000);
});

afterAll(async () => {
  await t?.close();
});

describe('GET /api/events/export', () => {
  it('streams every event of the tenant as NDJSON, in received order, each line with its cursor', async () => {
    const res = await get('/api/events/export');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/x-ndjson; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="events-export.ndjson"');
    expect(res.headers['content-encoding']).toBeUndefined();
    const all = lines(res.body);
    expect(all).toHaveLength(BATCHES * PER_BATCH);
    expect(new Set(all.map((l) => l.id)).size).toBe(all.length);
    expect(new Set(all.map((l) => l.cursor)).size).toBe(all.length);
    // Received time never goes back; within a batch, events keep the order they were sent in.
    const received = all.map((l) => l.receivedAt as string);
    expect([...received].sort()).toEqual(received);
    for (let k = 0; k < all.length; k += PER_BATCH)
      expect(all.slice(k, k + PER_BATCH).map((l) => (l.properties as { index: number }).index)).toEqual([
        0, 1, 2,
      ]);
    expect(all[1]).toMatchObject({
      type: 'CUSTOM',
      name: expect.stringMatching(/^evt \d+\.1$/),
      timestamp: new Date(T0 - 60_000).toISOString(),
      url: 'https://app.example.com/',
    });
    expect(all.some((l) => l.userId === 'other-user')).toBe(false);
  });

  it("never shows another tenant's events, and shows that tenant only its own", async () => {
    const res = await get('/api/events/export', other.owner.headers);
    const theirs = lines(res.body);
    expect(theirs).toHaveLength(1);
    expect(theirs[0]).toMatchObject({ type: 'PAGE_VIEW', userId: 'other-user' });
    // A cursor taken from one tenant's export reads the other tenant's rows only.
    const acmeLines = await exportAll();
    const res2 = await get(`/api/events/export?cursor=${acmeLines[0]!.cursor}`, other.owner.headers);
    expect(res2.statusCode).toBe(200);
    expect(lines(res2.body).every((l) => l.userId === 'other-user')).toBe(true);
  });

  it('resumes after any row with exactly the rest: no duplicate, no gap, across equal received times and pages', async () => {
    const all = await exportAll();
    const cuts = [
      0,
      1,
      PER_BATCH - 1,
      PER_BATCH,
      7,
      EXPORT_PAGE_BATCHES * PER_BATCH - 1,
      all.length - 2,
      all.length - 1,
    ];
    for (const k of cuts) {
      const rest = await exportAll(`?cursor=${encodeURIComponent(all[k]!.cursor)}`);
      expect(
        rest.map((l) => l.id),
        `after row ${k}`,
      ).toEqual(all.slice(k + 1).map((l) => l.id));
    }
  });

  it('resumes a filtered export with the same filters', async () => {
    const customs = await exportAll('?types=CUSTOM&format=ndjson');
    const rest = await exportAll(`?types=CUSTOM&cursor=${encodeURIComponent(customs[4]!.cursor)}`);
    expect(rest.map((l) => l.id)).toEqual(customs.slice(5).map((l) => l.id));
  });

  it('filters by event types and by received time (from, to inclusive)', async () => {
    const all = await exportAll();
    const views = await exportAll('?types=PAGE_VIEW');
    expect(views.map((l) => l.id)).toEqual(all.filter((l) => l.type === 'PAGE_VIEW').map((l) => l.id));
    const both = await exportAll('?types=PAGE_VIEW, CUSTOM');
    expect(both).toHaveLength(all.length);
    const from = new Date(T0 + 2000).toISOString();
    const to = new Date(T0 + 4000).toISOString();
    const window = await exportAll(`?from=${from}&to=${to}`);
    // Seconds 2, 3 and 4 after T0: two batches each.
    expect(window).toHaveLength(3 * 2 * PER_BATCH);
    expect(window.every((l) => (l.receivedAt as string) >= from && (l.receivedAt as string) <= to)).toBe(
      true,
    );
    expect(await exportAll('?from=2026-11-02&to=2026-11-02')).toHaveLength(all.length);
    expect(await exportAll('?to=2026-11-01')).toHaveLength(0);
  });

  it('writes CSV with a header row, every column, and proper quoting', async () => {
    const res = await get('/api/events/export?format=csv');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="events-export.csv"');
    const [header, ...rows] = parseCsv(res.body);
    expect(header).toEqual([
      'id',
      'type',
      'name',
      'timestamp',
      'receivedAt',
      'userId',
      'anonymousId',
      'sessionId',
      'url',
      'properties',
      'metadata',
      'cursor',
    ]);
    const ndjson = await exportAll();
    expect(rows).toHaveLength(ndjson.length);
    expect(rows.map((r) => r[0])).toEqual(ndjson.map((l) => l.id));
    expect(rows.map((r) => r[11])).toEqual(ndjson.map((l) => l.cursor));
    // JSON objects as one quoted field; absent values empty.
    expect(JSON.parse(rows[0]![9]!)).toEqual(ndjson[0]!.properties);
    expect(rows[0]![6]).toBe('');
    expect(res.body).toContain('"{""batch"":0,""index"":0}"');
  });

  it('quotes commas, quotes and line breaks in CSV fields', async () => {
    const own = await createTenant(t);
    const key = await apiKeyOf(t, own);
    const name = 'a, "quoted"\nname';
    await send(key, [{ type: 'CUSTOM', name, userId: ' padded ' }]);
    const res = await get('/api/events/export?format=csv', own.owner.headers);
    const [, row] = parseCsv(res.body);
    expect(row![2]).toBe(name);
    expect(row![5]).toBe(' padded ');
    expect(res.body).toContain('"a, ""quoted""\nname"');
  });

  it('gzips when the client accepts it: the same bytes once decompressed', async () => {
    for (const format of ['ndjson', 'csv']) {
      const plain = await get(`/api/events/export?format=${format}`);
      const zipped = await get(`/api/events/export?format=${format}`, {
        ...viewer,
        'accept-encoding': 'br, gzip;q=0.8',
      });
      expect(zipped.headers['content-encoding']).toBe('gzip');
      expect(zipped.headers.vary).toContain('accept-encoding');
      expect(zipped.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
      expect(gunzipSync(zipped.rawPayload).toString()).toBe(plain.body);
    }
    const refused = await get('/api/events/export', { ...viewer, 'accept-encoding': 'gzip;q=0, identity' });
    expect(refused.headers['content-encoding']).toBeUndefined();
  });

  it.each([
    ['from=yesterday', 'from'],
    ['to=2026-13-01', 'to'],
    ['from=2026-11-03&to=2026-11-02', 'to'],
    ['format=xml', 'format'],
    ['types=PAGE_VIEW,NOPE', 'types'],
    ['types=', 'types'],
    ['cursor=garbage', 'cursor'],
  ])('400 VALIDATION_ERROR naming the field: %s', async (query, field) => {
    const err = expectError(await get(`/api/events/export?${query}`), 400, 'VALIDATION_ERROR');
    expect(err.details).toEqual([expect.objectContaining({ path: `query.${field}` })]);
  });

  it('400 for a forged or edited cursor', async () => {
    const [first] = await exportAll();
    const [payload, tag] = first!.cursor.split('.');
    const decoded = Buffer.from(payload!, 'base64url').toString();
    // Same shape, another position, the old signature.
    const edited = `${Buffer.from(decoded.replace(/\|\d+$/, '|2')).toString('base64url')}.${tag}`;
    const flipped = `${payload}.${tag!.slice(0, -2)}AA`;
    for (const cursor of [edited, flipped, payload!, `${payload}.`]) {
      const err = expectError(
        await get(`/api/events/export?cursor=${encodeURIComponent(cursor)}`),
        400,
        'VALIDATION_ERROR',
      );
      expect(err.details).toEqual([expect.objectContaining({ path: 'query.cursor' })]);
    }
  });

  it('401 without a session, and for an SDK key', async () => {
    expectError(await get('/api/events/export', {}), 401, 'AUTH_NO_TOKEN');
    const res = await get('/api/events/export', { 'x-api-key': acmeKey });
    expect(res.statusCode).toBe(401);
  });
});
