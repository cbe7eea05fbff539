import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { Logger } from 'pino';
import { expect } from 'vitest';
import { buildApp } from '../../src/app.js';
import type { Config } from '../../src/config.js';
import { type AppDeps, createDeps, type Job, type ModuleManifest } from '../../src/deps.js';
import type { EventEffect } from '../../src/modules/events/index.js';
import { type ProcessingOptions, processPendingEvents } from '../../src/modules/events/processor.js';
import { allModules } from '../../src/modules/index.js';
import { randomHex } from '../../src/platform/crypto.js';
import { startWorkers, type WorkerHandle } from '../../src/workers/runner.js';
import { testConfig } from './config.js';
import { createTestDatabase, type TestDatabase, testRedisUrl } from './database.js';

export interface TestClock {
  now: () => number;
  set(ms: number | Date): void;
  advance(ms: number): void;
  /** Unpins: follows real time again. */
  reset(): void;
}

/** A clock tests can move; it follows real time until `set` pins it. */
export function testClock(): TestClock {
  let pinned: number | null = null;
  return {
    now: () => pinned ?? Date.now(),
    set(ms) {
      pinned = typeof ms === 'number' ? ms : ms.getTime();
    },
    advance(ms) {
      pinned = (pinned ?? Date.now()) + ms;
    },
    reset() {
      pinned = null;
    },
  };
}

export interface TestApp {
  app: FastifyInstance;
  deps: AppDeps;
  db: TestDatabase;
  clock: TestClock;
  config: Config;
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  /** Starts the given (default: every module's) background jobs against this app's deps. */
  startWorkers(jobs?: readonly Job[]): WorkerHandle;
  /** Runs one job of the app's modules, by name, once. */
  runJob(name: string): Promise<void>;
  /** Processes the stored event batches now, with the given (default: the app's) effects. */
  processEvents(effects?: readonly EventEffect[], options?: ProcessingOptions): Promise<number>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  config?: Partial<Config>;
  /** Share a database with another test app (two instances of one deployment). */
  db?: TestDatabase;
  /** Share a Redis namespace with another test app; defaults to a fresh one. */
  redisPrefix?: string;
  /** The app's modules (default: every module); tests add their own contributions this way. */
  modules?: readonly ModuleManifest[];
  /** Adds routes or hooks before the app is sealed (tests of the HTTP conventions). */
  beforeReady?: (app: FastifyInstance) => void | Promise<void>;
  /** The app's logger (tests that read the log lines). */
  log?: Logger;
}

/**
 * The real app on a real database, through `inject`. Rate limits are off unless a test sets
 * them; with `REDIS_URL` set, Redis-backed parts use it under a namespace of their own.
 */
export async function createTestApp(opts: TestAppOptions = {}): Promise<TestApp> {
  const db = opts.db ?? (await createTestDatabase());
  const ownsDb = !opts.db;
  const clock = testClock();
  const config = testConfig({
    databaseUrl: db.url,
    redisUrl: testRedisUrl(),
    redisPrefix: opts.redisPrefix ?? `test:${randomHex(6)}:`,
    ...opts.config,
  });
  const deps = createDeps(config, db.handle, {
    clock: clock.now,
    modules: opts.modules ?? allModules,
    ...(opts.log ? { log: opts.log } : {}),
  });
  const app = await buildApp(deps);
  await opts.beforeReady?.(app);
  await app.ready();
  const handles: WorkerHandle[] = [];
  return {
    app,
    deps,
    db,
    clock,
    config,
    inject: (o) => app.inject(o),
    async runJob(name) {
      const job = deps.modules.jobs.find((j) => j.name === name);
      if (!job) throw new Error(`no job named ${name}`);
      await job.run(deps);
    },
    processEvents: (effects = deps.modules.effects, options = {}) =>
      processPendingEvents(deps, effects, options),
    startWorkers(jobs = deps.modules.jobs) {
      const handle = startWorkers(deps, jobs);
      deps.wakeWorker = handle.wake;
      handles.push(handle);
      return handle;
    },
    async close() {
      for (const h of handles) await h.stop();
      await app.close();
      await deps.close();
      if (ownsDb) await db.close();
    },
  };
}

/** Asserts the spec's error envelope with the given status and code; returns the error body. */
export function expectError(res: LightMyRequestResponse, status: number, code: string) {
  const body = res.json();
  expect({ status: res.statusCode, code: body?.error?.code }).toEqual({ status, code });
  expect(body.error).toMatchObject({
    statusCode: status,
    code,
    message: expect.any(String),
    category: expect.any(String),
  });
  return body.error as {
    message: string;
    statusCode: number;
    code: string;
    category: string;
    details?: unknown;
  };
}
