import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, expectError, type TestApp } from '../../../test/helpers/app.js';
import { loadSdkAssets, SDK_DIST_DIR } from './assets.js';
import { browserSdkRoutes } from './routes.js';

/** The built bundle (test/global-setup.ts builds it before the tests). */
const bundle = readFileSync(join(SDK_DIST_DIR, 'guidance.js'));
const chunkPath = /chunks\/widgets-[A-Z0-9]+\.js/.exec(bundle.toString())![0];

let t: TestApp;
let emptyDir: string;
beforeAll(async () => {
  emptyDir = mkdtempSync(join(tmpdir(), 'sdk-dist-'));
  t = await createTestApp({
    beforeReady: async (app) => {
      // The same routes on a build that does not exist yet (prefix keeps them apart).
      await app.register(browserSdkRoutes, { dir: emptyDir, reloadAfterMs: 0, prefix: '/unbuilt' });
    },
  });
});
afterAll(async () => {
  await t.close();
  rmSync(emptyDir, { recursive: true, force: true });
});

describe('GET /sdk/guidance.js', () => {
  it('serves the built IIFE as JavaScript with an ETag, a short public cache and CORS *', async () => {
    const res = await t.inject({
      method: 'GET',
      url: '/sdk/guidance.js',
      headers: { origin: 'https://shop.example' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.headers['cache-control']).toBe('public, max-age=300');
    expect(res.headers.etag).toMatch(/^"[\w-]{27}"$/);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    // script tags from customers' origins are no-cors loads: a same-origin CORP would block them
    expect([undefined, 'cross-origin']).toContain(res.headers['cross-origin-resource-policy']);
    expect(res.rawPayload.equals(bundle)).toBe(true);
    // an IIFE that defines window.Guidance
    expect(res.body).toMatch(/^"use strict";\(\(\)=>\{/);
    expect(res.body).toContain('window.Guidance');
  });

  it('answers 304 with no body to a matching If-None-Match (strong, weak or in a list)', async () => {
    const { etag } = (await t.inject({ method: 'GET', url: '/sdk/guidance.js' })).headers;
    for (const header of [etag as string, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await t.inject({
        method: 'GET',
        url: '/sdk/guidance.js',
        headers: { 'if-none-match': header },
      });
      expect(res.statusCode, header).toBe(304);
      expect(res.body).toBe('');
      expect(res.headers.etag).toBe(etag);
    }
    const stale = await t.inject({
      method: 'GET',
      url: '/sdk/guidance.js',
      headers: { 'if-none-match': '"old"' },
    });
    expect(stale.statusCode).toBe(200);
  });

  it('answers HEAD with the headers and no body', async () => {
    const res = await t.inject({ method: 'HEAD', url: '/sdk/guidance.js' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/javascript; charset=utf-8');
    expect(res.body).toBe('');
  });

  it('serves the lazy chunks the bundle names, and the source maps', async () => {
    const chunk = await t.inject({
      method: 'GET',
      url: `/sdk/${chunkPath}`,
      headers: { origin: 'https://shop.example' },
    });
    expect(chunk.statusCode).toBe(200);
    expect(chunk.headers['content-type']).toBe('application/javascript; charset=utf-8');
    // module scripts from another origin need CORS
    expect(chunk.headers['access-control-allow-origin']).toBe('*');
    expect(chunk.body).toContain('export');
    const map = await t.inject({ method: 'GET', url: '/sdk/guidance.js.map' });
    expect(map.statusCode).toBe(200);
    expect(map.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(map.json().version).toBe(3);
  });

  it.each([
    '/sdk/nope.js',
    '/sdk/esm/index.js',
    '/sdk/types/index.d.ts',
    '/sdk/../package.json',
    '/sdk/%2e%2e/%2e%2e/package.json',
    '/sdk/chunks/../../package.json',
    '/sdk/',
  ])(
    'answers 404 NOT_FOUND in the envelope for %s (only the built browser files are served)',
    async (url) => {
      expectError(await t.inject({ method: 'GET', url }), 404, 'NOT_FOUND');
    },
  );

  it('answers 503 until the SDK is built, then serves the build without a restart', async () => {
    const before = await t.inject({ method: 'GET', url: '/unbuilt/sdk/guidance.js' });
    const error = expectError(before, 503, 'SERVICE_UNAVAILABLE');
    expect(error.message).toContain('npm run build:sdk');
    cpSync(SDK_DIST_DIR, emptyDir, { recursive: true });
    const after = await t.inject({ method: 'GET', url: '/unbuilt/sdk/guidance.js' });
    expect(after.statusCode).toBe(200);
    expect(after.rawPayload.equals(bundle)).toBe(true);
  });

  it('is not rate limited and needs no key (public asset, outside /api)', async () => {
    const limited = await createTestApp({ config: { rateLimits: { global: 1 } as never } });
    try {
      for (let i = 0; i < 5; i++) {
        expect((await limited.inject({ method: 'GET', url: '/sdk/guidance.js' })).statusCode).toBe(200);
      }
    } finally {
      await limited.close();
    }
  });
});

describe('loadSdkAssets', () => {
  it('keeps only servable files (JavaScript and source maps), never the npm build', () => {
    const names = [...loadSdkAssets().keys()].sort();
    expect(names).toContain('guidance.js');
    expect(names).toContain(chunkPath);
    expect(
      names.every((n) => /\.(js|map)$/.test(n) && !n.startsWith('esm/') && !n.startsWith('types/')),
    ).toBe(true);
  });

  it('is empty for a directory that does not exist', () => {
    expect(loadSdkAssets(join(emptyDir, 'missing')).size).toBe(0);
  });
});
