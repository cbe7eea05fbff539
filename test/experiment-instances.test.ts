import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeys } from '../src/db/schema/index.js';
import { randomHex, sha256 } from '../src/platform/crypto.js';
import { newId } from '../src/platform/ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';
import { serverDatabaseUrl } from './helpers/database.js';
import { createTenant } from './helpers/factories.js';
import { type ServerProcess, startServer } from './helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from './helpers/standalone.js';

/**
 * Assignment needs no coordination between instances: two instances on one database assign
 * every user the same variant, whichever serves which session, and concurrent first sessions
 * spread over both store one row. On PostgreSQL the instances are two server processes
 * (src/main.ts); embedded, two apps in this process on one PGlite database (a PGlite directory
 * cannot be opened by two processes).
 */

type Call = (
  method: 'GET' | 'POST',
  url: string,
  auth: { token: string } | { key: string },
  body?: unknown,
) => Promise<{ status: number; json: () => Promise<{ data: Record<string, unknown> & { id?: string } }> }>;

let instances: Call[] = [];
let tokens: { token: string; key: string };
const cleanup: (() => Promise<unknown>)[] = [];

const headersOf = (auth: { token: string } | { key: string }): Record<string, string> =>
  'token' in auth ? { authorization: `Bearer ${auth.token}` } : { 'x-api-key': auth.key };

beforeAll(async () => {
  const serverUrl = serverDatabaseUrl();
  if (serverUrl) {
    const store: StandaloneStore = await createStandaloneStore({
      serverUrl,
      env: { LOG_LEVEL: 'warn', RATE_LIMIT_GLOBAL: '0', RATE_LIMIT_SDK: '0', REDIS_URL: '' },
    });
    cleanup.push(() => store.destroy());
    const servers: ServerProcess[] = await Promise.all([startServer(store.env), startServer(store.env)]);
    for (const s of servers) cleanup.unshift(() => s.stop());
    tokens = { token: store.ownerToken, key: store.apiKey };
    instances = servers.map(
      (s): Call =>
        async (method, url, auth, body) => {
          const res = await fetch(`${s.url}${url}`, {
            method,
            headers: {
              ...headersOf(auth),
              ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: res.status, json: () => res.json() as never };
        },
    );
  } else {
    const first: TestApp = await createTestApp();
    const second: TestApp = await createTestApp({ db: first.db });
    cleanup.push(
      () => second.close(),
      () => first.close(),
    );
    const tenant = await createTenant(first);
    const key = `wfx_${randomHex(32)}`;
    await first.deps.database.db.insert(apiKeys).values({
      id: newId(),
      tenantId: tenant.tenantId,
      name: 'instances',
      keyHash: sha256(key),
      keyPrefix: key.slice(0, 12),
    });
    tokens = { token: tenant.owner.token, key };
    instances = [first, second].map(
      (app): Call =>
        async (method, url, auth, body) => {
          const res = await app.inject({
            method,
            url,
            headers: headersOf(auth),
            ...(body === undefined ? {} : { payload: body as object }),
          });
          return { status: res.statusCode, json: async () => res.json() };
        },
    );
  }
}, 180_000);

afterAll(async () => {
  for (const c of cleanup) await c();
});

async function ok(call: ReturnType<Call>, status = 200) {
  const res = await call;
  const body = await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body.data;
}

describe('experiment assignment across two instances on one database', () => {
  it('every user gets one variant whichever instance serves each session, and concurrent first sessions store one row', async () => {
    const [a, b] = instances as [Call, Call];
    const owner = { token: tokens.token };
    const sdk = { key: tokens.key };
    const flowIds: string[] = [];
    for (const name of ['Control', 'Challenger']) {
      const flow = await ok(
        a('POST', '/api/flows', owner, {
          name,
          siteId: '0190a000-0000-7000-8000-000000000001',
          template: 'PRODUCT_TOUR',
          steps: [{ type: 'MODAL', content: { title: name } }],
        }),
        201,
      );
      await ok(a('POST', `/api/flows/${flow.id}/publish`, owner));
      flowIds.push(flow.id as string);
    }
    const exp = await ok(
      b('POST', '/api/experiments', owner, {
        name: `Across instances ${randomHex(3)}`,
        variants: [
          { name: 'Control', splitPercentage: 50, flowId: flowIds[0] },
          { name: 'Challenger', splitPercentage: 50, flowId: flowIds[1] },
        ],
      }),
      201,
    );
    await ok(a('POST', `/api/experiments/${exp.id}/start`, owner));

    type Session = {
      experiments: { experimentId: string; variantId: string; flowId: string }[];
      flows: { id: string }[];
    };
    const session = async (on: Call, userId: string) =>
      (await ok(on('POST', '/api/sdk/session', sdk, { userId }), 201)) as unknown as Session;
    const variantOf = new Map<string, string>();
    for (let u = 0; u < 10; u++) {
      const userId = `inst-${u}`;
      const seen = [
        await session(u % 2 ? a : b, userId),
        await session(u % 2 ? b : a, userId),
        await session(a, userId),
      ];
      for (const s of seen) {
        expect(s.experiments).toHaveLength(1);
        expect(s.experiments[0]!.variantId).toBe(seen[0]!.experiments[0]!.variantId);
        const ids = s.flows.map((f) => f.id);
        expect(ids).toEqual([s.experiments[0]!.flowId]);
      }
      variantOf.set(userId, seen[0]!.experiments[0]!.variantId);
    }
    expect(new Set(variantOf.values()).size).toBe(2);

    // 20 concurrent first sessions of one user, alternating instances
    const burst = await Promise.all(
      Array.from({ length: 20 }, (_, i) => session(i % 2 ? a : b, 'inst-burst')),
    );
    expect(new Set(burst.map((s) => s.experiments[0]?.variantId)).size).toBe(1);

    const results = await ok(b('POST', `/api/experiments/${exp.id}/compute-results`, owner));
    const variants = results.variants as { sampleSize: number }[];
    expect(variants.reduce((s, v) => s + v.sampleSize, 0)).toBe(11);
    const listed = await a('GET', '/api/experiments?status=running', owner);
    const list = (await listed.json()) as unknown as {
      data: { id: string; _count: { assignments: number } }[];
    };
    expect(list.data.find((e) => e.id === exp.id)?._count.assignments).toBe(11);
  }, 120_000);
});
