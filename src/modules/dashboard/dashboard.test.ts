import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { allModules } from '../index.js';
import { DASHBOARD_DIST_DIR, loadDashboardAssets } from './assets.js';
import { dashboardRoutes, IMMUTABLE, isReservedPath, REVALIDATE } from './routes.js';

/** The dashboard at `/`: hashed assets immutable, the shell no-cache, the SPA fallback, and what it never shadows. */

const INDEX =
  '<!doctype html><html><head><script type="module" src="/assets/index-AbC123.js"></script></head><body><div id="root"></div></body></html>';
let dir: string;
let unbuilt: string;
let t: TestApp;

const withDir =
  (d: string, reloadAfterMs?: number): FastifyPluginAsync =>
  async (app) =>
    dashboardRoutes(app, { dir: d, reloadAfterMs });

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'dashboard-dist-'));
  unbuilt = mkdtempSync(join(tmpdir(), 'dashboard-unbuilt-'));
  mkdirSync(join(dir, 'assets'));
  writeFileSync(join(dir, 'index.html'), INDEX);
  writeFileSync(join(dir, 'assets', 'index-AbC123.js'), 'console.log("app")');
  writeFileSync(join(dir, 'assets', 'index-AbC123.css'), 'body{}');
  writeFileSync(join(dir, 'preview.html'), '<!doctype html><p>preview</p>');
  t = await createTestApp({
    modules: allModules.map((m) => (m.name === 'dashboard' ? { ...m, routes: withDir(dir) } : m)),
    beforeReady: async (app) => {
      await app.register(withDir(unbuilt, 0), { prefix: '/unbuilt' });
    },
  });
});
afterAll(async () => {
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
  rmSync(unbuilt, { recursive: true, force: true });
});

const get = (url: string, headers: Record<string, string> = {}) => t.inject({ method: 'GET', url, headers });

describe('the dashboard shell', () => {
  it('serves index.html at / with no-cache, an ETag and the dashboard CSP', async () => {
    const res = await get('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe(REVALIDATE);
    expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
    expect(res.body).toBe(INDEX);
    const csp = String(res.headers['content-security-policy']);
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).toContain("frame-ancestors 'self'");
    expect(csp).not.toContain("'unsafe-eval'");
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it.each([
    '/flows',
    '/flows/0190a000-0000-7000-8000-000000000001',
    '/settings/api-keys?x=1',
    '/signin',
    '/invite/tok-123',
    '/apis',
    '/docsx',
    '/sdkish',
  ])('answers the SPA route %s with index.html', async (url) => {
    const res = await get(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe(REVALIDATE);
    expect(res.body).toBe(INDEX);
  });

  it('answers 304 to a matching If-None-Match, on any SPA route', async () => {
    const { etag } = (await get('/')).headers;
    const res = await get('/audiences', { 'if-none-match': etag as string });
    expect(res.statusCode).toBe(304);
    expect(res.body).toBe('');
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await t.inject({ method: 'HEAD', url: '/flows' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toBe('');
  });
});

describe('hashed assets', () => {
  it('are served immutable with their content type', async () => {
    const js = await get('/assets/index-AbC123.js');
    expect(js.statusCode).toBe(200);
    expect(js.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(js.headers['cache-control']).toBe(IMMUTABLE);
    expect(js.body).toBe('console.log("app")');
    const css = await get('/assets/index-AbC123.css');
    expect(css.headers['content-type']).toBe('text/css; charset=utf-8');
    expect(css.headers['cache-control']).toBe(IMMUTABLE);
  });

  it.each([
    '/assets/index-Old999.js',
    '/assets/',
    '/assets/../index.html',
    '/assets/%2e%2e/%2e%2e/package.json',
    '/nope.js',
    '/favicon.ico',
  ])('answers 404 in the envelope for a missing file %s, never the shell', async (url) => {
    const res = await get(url);
    expectError(res, 404, 'NOT_FOUND');
    expect(res.headers['content-type']).toContain('application/json');
  });

  it('serves unhashed files of the build (the preview page) with no-cache', async () => {
    const res = await get('/preview.html');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe(REVALIDATE);
    expect(res.body).toContain('preview');
  });
});

describe('what the fallback never shadows', () => {
  it.each(['/api/nowhere', '/api', '/api/', '/api/flows/x/y/z', '/sdk/nope.js', '/sdk', '/docs/nope'])(
    'GET %s keeps its JSON 404 envelope',
    async (url) => {
      const res = await get(url);
      expectError(res, 404, 'NOT_FOUND');
      expect(res.headers['content-type']).toContain('application/json');
    },
  );

  it('leaves the API, its docs and the SDK answering as before', async () => {
    expect((await get('/api/health')).statusCode).toBe(200);
    expect((await get('/docs/json')).json().openapi).toMatch(/^3\./);
    expect((await get('/sdk/guidance.js')).headers['content-type']).toBe(
      'application/javascript; charset=utf-8',
    );
    expectError(await get('/api/flows'), 401, 'AUTH_NO_TOKEN');
    const acme = await createTenant(t);
    expect((await get('/api/flows', acme.owner.headers)).statusCode).toBe(200);
  });

  it('answers methods other than GET/HEAD on app paths with the 404 envelope', async () => {
    expectError(await t.inject({ method: 'POST', url: '/flows' }), 404, 'NOT_FOUND');
    expectError(await t.inject({ method: 'DELETE', url: '/' }), 404, 'NOT_FOUND');
  });

  it('keeps dashboard paths out of the OpenAPI document', async () => {
    const doc = (await get('/docs/json')).json() as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/'))).toBe(true);
  });

  it('classifies reserved paths', () => {
    for (const p of [
      '/api',
      '/api/',
      '/api/x',
      '//api//health',
      '/docs',
      '/docs/json',
      '/sdk',
      '/sdk//guidance.js',
    ])
      expect(isReservedPath(p)).toBe(true);
    for (const p of ['/', '/apis', '/flows', '/docsx', '/sdkish', '/assets/api.js'])
      expect(isReservedPath(p)).toBe(false);
  });
});

describe('before the dashboard is built', () => {
  it('answers 503 naming the build command, then serves the build without a restart', async () => {
    const before = await get('/unbuilt/');
    const error = expectError(before, 503, 'SERVICE_UNAVAILABLE');
    expect(error.message).toContain('npm run build:dashboard');
    writeFileSync(join(unbuilt, 'index.html'), INDEX);
    const after = await get('/unbuilt/flows');
    expect(after.statusCode).toBe(200);
    expect(after.body).toBe(INDEX);
  });
});

describe('the real build', () => {
  it('has an index.html whose scripts and styles are hashed files of the build', () => {
    const assets = loadDashboardAssets(DASHBOARD_DIST_DIR);
    const index = readFileSync(join(DASHBOARD_DIST_DIR, 'index.html'), 'utf8');
    const refs = [...index.matchAll(/(?:src|href)="\/(assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThanOrEqual(2);
    for (const ref of refs) {
      expect(assets.has(ref), ref).toBe(true);
      expect(ref).toMatch(/-[\w-]{8}\.(js|css)$/);
    }
    // no inline script: the CSP (script-src 'self') would block it
    expect(index).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
  });
});
