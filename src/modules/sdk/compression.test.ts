import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant, type TenantFixture } from '../../../test/helpers/factories.js';
import { apiKeyOf, publishedFlow, sdkCall } from '../../../test/helpers/sdk.js';

let t: TestApp;
let sdk: ReturnType<typeof sdkCall>;
let emptySdk: ReturnType<typeof sdkCall>;
let key: string;

beforeAll(async () => {
  t = await createTestApp();
  const tenant: TenantFixture = await createTenant(t);
  key = await apiKeyOf(t, tenant);
  sdk = sdkCall(t, key);
  // Enough flows for an answer of several kB.
  for (let i = 0; i < 8; i++) {
    await publishedFlow(t, tenant, {
      name: `Tour ${i}`,
      steps: Array.from({ length: 3 }, (_, s) => ({
        type: 'MODAL',
        content: {
          title: `Welcome to step ${s} of tour ${i}`,
          body: 'Here is what this page does. '.repeat(4),
        },
      })),
    });
  }
  // A tenant with nothing published: its session answer is a few hundred bytes.
  emptySdk = sdkCall(t, await apiKeyOf(t, await createTenant(t)));
});
afterAll(() => t.close());

const session = (call: ReturnType<typeof sdkCall>, acceptEncoding?: string) =>
  call(
    'POST',
    '/api/sdk/session',
    { userId: 'u-1' },
    acceptEncoding ? { 'accept-encoding': acceptEncoding } : {},
  );

describe('SDK answer compression', () => {
  it('sends a large session answer as brotli when accepted, the same JSON once decompressed', async () => {
    const plain = await session(sdk);
    expect(plain.statusCode).toBe(201);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.rawPayload.length).toBeGreaterThan(4096);

    const br = await session(sdk, 'gzip, deflate, br');
    expect(br.statusCode).toBe(201);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers.vary).toMatch(/accept-encoding/i);
    expect(br.headers['content-type']).toMatch(/^application\/json/);
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3);
    const body = JSON.parse(brotliDecompressSync(br.rawPayload).toString('utf8'));
    // Each session has its own id; the rest is the same answer.
    const { sessionId: _a, ...rest } = body.data;
    const { sessionId: _b, ...plainRest } = plain.json().data;
    expect(rest).toEqual(plainRest);
  });

  it('falls back to gzip, and sends identity when nothing it offers is accepted', async () => {
    const gz = await session(sdk, 'gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(gunzipSync(gz.rawPayload).toString('utf8')).data.flows).toHaveLength(8);

    const identity = await session(sdk, 'identity');
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.json().data.flows).toHaveLength(8);
  });

  it('leaves small answers and other SDK endpoints uncompressed', async () => {
    const small = await session(emptySdk, 'br');
    expect(small.statusCode).toBe(201);
    expect(small.rawPayload.length).toBeLessThan(1024);
    expect(small.headers['content-encoding']).toBeUndefined();

    const config = await sdk('GET', '/api/sdk/config', undefined, { 'accept-encoding': 'br' });
    expect(config.statusCode).toBe(200);
    expect(config.headers['content-encoding']).toBeUndefined();
  });

  it('does not inflate compressed request bodies', async () => {
    const res = await t.inject({
      method: 'POST',
      url: '/api/sdk/session',
      headers: { 'x-api-key': key, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      payload: gzipSync(JSON.stringify({ userId: 'u-1' })),
    });
    // Read as the JSON it is not: a 400, never a session.
    expect(res.statusCode).toBe(400);
  });
});
