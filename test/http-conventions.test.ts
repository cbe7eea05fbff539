import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { publicRoute } from '../src/platform/auth/guard.js';
import { AppError } from '../src/platform/errors.js';
import { paginationQuery } from '../src/platform/pagination.js';
import { createTestApp, expectError, type TestApp } from './helpers/app.js';
import { createTenant } from './helpers/factories.js';

let t: TestApp;

beforeAll(async () => {
  t = await createTestApp({
    beforeReady(app) {
      app.get('/api/test/boom', { config: { auth: publicRoute('none') } }, async () => {
        throw new Error('select * from secret_table where password = 1');
      });
      app.get('/api/test/app-error', { config: { auth: publicRoute('none') } }, async () => {
        throw new AppError('CONTENT_NOT_FOUND');
      });
      app.post(
        '/api/test/echo',
        {
          config: { auth: publicRoute('none') },
          schema: {
            body: z.object({
              name: z.string().min(1),
              nested: z.object({ items: z.array(z.number()) }).optional(),
            }),
            querystring: paginationQuery(),
          },
        },
        async (request) => ({ data: { body: request.body, query: request.query } }),
      );
    },
  });
});
afterAll(() => t.close());

describe('GET /api/health', () => {
  it('answers ok with version, uptime and checks', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/health' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({
      status: 'ok',
      version: expect.any(String),
      uptimeSeconds: expect.any(Number),
      checks: { database: 'ok' },
    });
  });
});

describe('the error envelope', () => {
  it('answers unknown routes with 404 NOT_FOUND', async () => {
    expectError(await t.inject({ method: 'GET', url: '/api/does-not-exist' }), 404, 'NOT_FOUND');
    expectError(await t.inject({ method: 'DELETE', url: '/nowhere' }), 404, 'NOT_FOUND');
  });

  it('answers malformed JSON with 400 VALIDATION_ERROR', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    expectError(res, 400, 'VALIDATION_ERROR');
  });

  it('answers a body over 1 MiB with 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024 + 10) }),
    });
    const error = expectError(res, 413, 'PAYLOAD_TOO_LARGE');
    expect(error.category).toBe('VALIDATION');
  });

  it('hides the cause of a 500', async () => {
    const res = await t.inject({ method: 'GET', url: '/api/test/boom' });
    const error = expectError(res, 500, 'INTERNAL_ERROR');
    expect(res.body).not.toContain('secret_table');
    expect(res.body).not.toMatch(/at .*\.ts/);
    expect(error.category).toBe('INTERNAL');
  });

  it('passes AppErrors through with their code and category', async () => {
    const error = expectError(
      await t.inject({ method: 'GET', url: '/api/test/app-error' }),
      404,
      'CONTENT_NOT_FOUND',
    );
    expect(error.category).toBe('NOT_FOUND');
  });

  it('names validation failures by dotted path', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/test/echo',
      payload: { name: '', nested: { items: [1, 'x'] } },
    });
    const error = expectError(res, 400, 'VALIDATION_ERROR');
    const paths = (error.details as { path: string }[]).map((d) => d.path);
    expect(paths).toEqual(expect.arrayContaining(['name', 'nested.items.1']));
  });

  it('refuses NUL characters in bodies and URLs (PostgreSQL cannot store them)', async () => {
    const body = await t.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"a\\u0000b"}',
    });
    expect(expectError(body, 400, 'VALIDATION_ERROR').details).toEqual([
      { path: 'name', message: expect.stringContaining('NUL') },
    ]);
    expectError(await t.inject({ method: 'GET', url: '/api/health?x=%00' }), 400, 'VALIDATION_ERROR');
  });

  it('answers ids of any length, and paths that cannot be decoded, with 404 in the envelope', async () => {
    const owner = await createTenant(t);
    const long = await t.inject({
      method: 'GET',
      url: `/api/flows/${'a'.repeat(5_000)}`,
      headers: owner.owner.headers,
    });
    expectError(long, 404, 'CONTENT_NOT_FOUND');
    // beyond the router's own limit (longer than any request line Node accepts)
    expectError(await t.inject({ method: 'GET', url: `/api/flows/${'a'.repeat(20_000)}` }), 404, 'NOT_FOUND');
    for (const url of ['/api/flows/%ff', '/api/flows/%E0%A4%A', '/api/tenants/members/%zz'])
      expectError(await t.inject({ method: 'GET', url, headers: owner.owner.headers }), 404, 'NOT_FOUND');
  });

  it('treats an empty JSON body as {}', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '',
    });
    expectError(res, 400, 'VALIDATION_ERROR');
    expect(res.json().error.details[0].path).toBe('name');
  });
});

describe('page and limit (DECISIONS §2)', () => {
  const echo = (query: string) =>
    t.inject({ method: 'POST', url: `/api/test/echo?${query}`, payload: { name: 'a' } });

  it('defaults to page 1, limit 20', async () => {
    const res = await echo('');
    expect(res.json().data.query).toEqual({ page: 1, limit: 20 });
  });

  it.each(['page=0', 'page=-1', 'page=abc', 'limit=0', 'limit=101', 'limit=1.5', 'page=1e3'])(
    'refuses %s',
    async (q) => {
      const error = expectError(await echo(q), 400, 'VALIDATION_ERROR');
      const path = (error.details as { path: string }[])[0]!.path;
      expect(path).toMatch(/^query\.(page|limit)$/);
    },
  );

  it('accepts limit 100', async () => {
    expect((await echo('page=3&limit=100')).json().data.query).toEqual({ page: 3, limit: 100 });
  });
});

describe('OpenAPI', () => {
  it('serves the document at /docs/json and the UI at /docs', async () => {
    const json = await t.inject({ method: 'GET', url: '/docs/json' });
    expect(json.statusCode).toBe(200);
    expect(json.json().openapi).toBe('3.1.0');
    expect(json.json().paths['/api/health']).toBeDefined();
    const ui = await t.inject({ method: 'GET', url: '/docs' });
    expect([200, 302]).toContain(ui.statusCode);
  });
});
