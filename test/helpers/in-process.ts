import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { apiKeys, sessions, users } from '../../src/db/schema/index.js';
import { type AppDeps, createDeps } from '../../src/deps.js';
import type { EventEffect } from '../../src/modules/events/index.js';
import { type ProcessingOptions, processPendingEvents } from '../../src/modules/events/processor.js';
import { allModules } from '../../src/modules/index.js';
import { provisionTenant } from '../../src/modules/tenants/provision.js';
import { randomHex, sha256 } from '../../src/platform/crypto.js';
import { newId } from '../../src/platform/ids.js';
import { testConfig } from './config.js';
import type { TestDatabase } from './database.js';

/**
 * The real app in this process, without vitest (the in-process benchmarks run under tsx; tests use
 * `createTestApp`): built from the test config on the given database, with one tenant, its owner
 * signed in and an SDK key seeded straight in the database, driven through `inject`. No worker
 * runs: the caller runs the processing it measures.
 */
export interface InProcessApp {
  deps: AppDeps;
  tenantId: string;
  /** The tenant's SDK key (`x-api-key`). */
  apiKey: string;
  /** `Authorization` of the tenant's owner, for the dashboard routes. */
  ownerHeaders: Record<string, string>;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** POSTs `batches` SDK event batches of `body` (a `{ events }` JSON), 50 at a time; the events accepted. */
  postEvents(body: string, batches: number): Promise<number>;
  /**
   * Processes the pending events now, as the processing job does (its in-memory hand-over, then
   * the log), with these effects (default: every module's) and options (default: the job's
   * defaults, without its pauses and time budget).
   */
  processEvents(effects?: readonly EventEffect[], options?: ProcessingOptions): Promise<number>;
  /** Runs one of the app's jobs by name, once, as its schedule would. */
  runJob(name: string): Promise<void>;
  /** Closes the app (not the database, which the caller owns). */
  close(): Promise<void>;
}

export interface InProcessAppOptions {
  db: TestDatabase;
  config?: Partial<Config>;
  /** Another app's tenant (two instances of one deployment on one database): none is seeded. */
  tenant?: Pick<InProcessApp, 'tenantId' | 'apiKey' | 'ownerHeaders'>;
}

export async function startInProcessApp(opts: InProcessAppOptions): Promise<InProcessApp> {
  const deps = createDeps(testConfig({ databaseUrl: opts.db.url, ...opts.config }), opts.db.handle, {
    modules: allModules,
  });
  const app = await buildApp(deps);
  await app.ready();
  const tenant = opts.tenant ?? (await seedTenant(deps));
  const inject = (o: InjectOptions) => app.inject(o);
  return {
    deps,
    ...tenant,
    inject,
    async postEvents(body, batches) {
      let accepted = 0;
      for (let i = 0; i < batches; i += 50) {
        const answers = await Promise.all(
          Array.from({ length: Math.min(50, batches - i) }, () =>
            inject({
              method: 'POST',
              url: '/api/sdk/events',
              headers: { 'x-api-key': tenant.apiKey, 'content-type': 'application/json' },
              payload: body,
            }),
          ),
        );
        for (const a of answers) {
          if (a.statusCode !== 202)
            throw new Error(`POST /api/sdk/events answered ${a.statusCode}: ${a.body}`);
          accepted += a.json().data.accepted as number;
        }
      }
      return accepted;
    },
    processEvents: (effects = deps.modules.effects, options = {}) =>
      processPendingEvents(deps, effects, options),
    async runJob(name) {
      const job = deps.modules.jobs.find((j) => j.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      await job.run(deps);
    },
    async close() {
      await app.close();
      await deps.close();
    },
  };
}

/** A tenant on the enterprise plan, its owner signed in, and an SDK key. */
async function seedTenant(
  deps: AppDeps,
): Promise<Pick<InProcessApp, 'tenantId' | 'apiKey' | 'ownerHeaders'>> {
  const apiKey = `wfx_${randomHex(32)}`;
  const { tenantId, userId, sessionId } = await deps.database.db.transaction(async (tx) => {
    const userId = newId();
    const email = `owner-${randomHex(4)}@example.com`;
    await tx.insert(users).values({ id: userId, email, name: 'Owner' });
    const { tenant } = await provisionTenant(tx, {
      name: 'Bench',
      owner: { userId, email },
      plan: 'enterprise',
    });
    await tx.insert(apiKeys).values({
      id: newId(),
      tenantId: tenant.id,
      name: 'bench',
      keyHash: sha256(apiKey),
      keyPrefix: apiKey.slice(0, 12),
    });
    const sessionId = newId();
    await tx.insert(sessions).values({
      id: sessionId,
      userId,
      tenantId: tenant.id,
      refreshTokenHash: sha256(randomHex(16)),
      refreshExpiresAt: new Date(Date.now() + 86_400_000),
    });
    return { tenantId: tenant.id, userId, sessionId };
  });
  const token = await deps.tokens.signAccess({ userId, tenantId, sessionId });
  return { tenantId, apiKey, ownerHeaders: { authorization: `Bearer ${token}` } };
}

const EVENT_TYPES = ['STEP_VIEWED', 'CLICK', 'PAGE_VIEW', 'STEP_COMPLETED', 'CUSTOM'];
const FLOW_IDS = Array.from(
  { length: 10 },
  (_, i) => `0190f3a2-0000-7000-8000-${String(i).padStart(12, '0')}`,
);

/**
 * An SDK events body shaped like the side-by-side harness's (`bench/side-by-side/mkbody.js`):
 * `count` events (50) of the spec's types, a distinct userId each, flow ids in properties.
 */
export function harnessEventsBody(count = 50, now = Date.now()): string {
  const events = Array.from({ length: count }, (_, k) => ({
    type: EVENT_TYPES[k % EVENT_TYPES.length],
    name: `flow_step_seen_button_click_${k}`,
    userId: `user_8f3a2c1e-4b5d-4e6f-9a7b-1000000000${String(k).padStart(2, '0')}`,
    sessionId: 'sess_2b7c9d4e5f6a7b8c',
    timestamp: new Date(now - k * 1000).toISOString(),
    properties: {
      url: 'https://app.example.com/projects/42',
      flowId: FLOW_IDS[k % FLOW_IDS.length],
      stepIndex: k % 3,
      browser: 'Chrome 126',
    },
  }));
  return JSON.stringify({ events });
}
