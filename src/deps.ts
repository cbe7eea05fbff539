import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { type ApiKeyVerifier, createApiKeyVerifier } from './platform/auth/api-key-auth.js';
import { createTokenService, type TokenService } from './platform/auth/tokens.js';
import { type ChangeFeed, createChangeFeed } from './platform/change-feed.js';
import { createEncryptor, type Encryptor } from './platform/crypto.js';
import { createMailer, type Mailer } from './platform/mail.js';
import {
  createRateLimiter,
  memoryRateLimitStore,
  type RateLimiter,
  type RateLimitStore,
  redisRateLimitStore,
} from './platform/rate-limit.js';
import { connectRedis, type Redis } from './platform/redis.js';
import {
  createReferenceRegistry,
  type DependentDisablerEntry,
  type ReferenceFinderEntry,
  type ReferenceRegistry,
} from './platform/references.js';

/**
 * A background job run on an interval, never overlapping itself. Jobs coordinate across
 * instances through the database (row locks, SKIP LOCKED, conditional updates), never memory.
 * `workers/` only schedules them; the work lives in the module that contributes the job.
 */
export interface Job {
  name: string;
  intervalMs: number;
  run(deps: AppDeps): Promise<void>;
  /** Run once more while stopping (flushes buffered state). */
  runOnStop?: boolean;
}

/**
 * The contracts of the seams, each declared by the module that owns it, through declaration
 * merging (as modules augment Fastify's types): `modules/events` declares `eventEffect`,
 * `modules/delivery` `deliveryContributor`, `modules/end-users` `endUserMerger`. This file only
 * names the slots, so it knows no domain.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules that own the contracts
export interface SeamContracts {}
type Contract<K extends string> = K extends keyof SeamContracts ? SeamContracts[K] : never;

/**
 * What a module keeps per app between requests and job runs (the events module's hand-over
 * queue, its effects' memos), one slot per module, declared by the module through declaration
 * merging as the seam contracts are. The module's manifest makes it (`state`) when the deps are
 * built, so it lives on the deps, explicitly, and never in a module-level map keyed by them.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by the modules that keep per-app state
export interface ModuleStates {}

/**
 * What a module contributes (`modules/<domain>/index.ts` exports one). The app assembles the
 * manifests of `modules/index.ts`, in that order, into the registries on its deps.
 */
export interface ModuleManifest {
  name: string;
  routes?: FastifyPluginAsyncZod;
  /** The OpenAPI tags its routes use (the documentation lists them in manifest order). */
  tags?: readonly { name: string; description: string }[];
  /** What processing accepted events does, in order; effects of all modules run in manifest order. */
  effects?: readonly Contract<'eventEffect'>[];
  jobs?: readonly Job[];
  /** What this module adds to the cached delivery snapshot and chooses per session. */
  delivery?: readonly Contract<'deliveryContributor'>[];
  /** Moves this module's rows from an anonymous end user to the identified one it merges into. */
  endUserMergers?: readonly Contract<'endUserMerger'>[];
  referenceFinders?: readonly ReferenceFinderEntry[];
  dependentDisablers?: readonly DependentDisablerEntry[];
  /** Makes this module's per-app state (its slot of `deps.state`), once per app. */
  state?: { [K in keyof ModuleStates]?: (config: Config) => ModuleStates[K] };
}

/** The manifests' contributions, per slot, in manifest order. */
export interface Registries {
  manifests: readonly ModuleManifest[];
  effects: readonly Contract<'eventEffect'>[];
  jobs: readonly Job[];
  delivery: readonly Contract<'deliveryContributor'>[];
  endUserMergers: readonly Contract<'endUserMerger'>[];
}

export function assembleRegistries(manifests: readonly ModuleManifest[]): Registries {
  const names = new Set<string>();
  for (const m of manifests) {
    if (names.has(m.name)) throw new Error(`module ${m.name} is listed twice`);
    names.add(m.name);
  }
  return {
    manifests,
    effects: manifests.flatMap((m) => m.effects ?? []),
    jobs: manifests.flatMap((m) => m.jobs ?? []),
    delivery: manifests.flatMap((m) => m.delivery ?? []),
    endUserMergers: manifests.flatMap((m) => m.endUserMergers ?? []),
  };
}

/**
 * Everything a request or a worker needs, built once per process (or per test app) and handed
 * to `buildApp` and the workers: the shared services, and the registries of the modules.
 */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  log: Logger;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  clock: () => number;
  redis: Redis | null;
  /** Changes the database announces (cache invalidation across instances). */
  changes: ChangeFeed;
  rateLimiter: RateLimiter;
  tokens: TokenService;
  apiKeys: ApiKeyVerifier;
  mailer: Mailer;
  encryptor: Encryptor;
  /** What the modules contribute (effects, jobs, delivery contributors, end-user mergers). */
  modules: Registries;
  /** "Who refers to this record" finders and dependent disablers (AUDIENCE_IN_USE and similar). */
  references: ReferenceRegistry;
  /** The modules' per-app state (`ModuleStates`): a slot for each listed module that keeps some. */
  state: Partial<ModuleStates>;
  /** Asks a background job to run now (a no-op where workers do not run in this process). */
  wakeWorker: (name: string) => void;
  close(): Promise<void>;
}

export interface DepsOptions {
  /** The modules of this app (`modules/index.ts`; tests may add their own). */
  modules: readonly ModuleManifest[];
  log?: Logger;
  clock?: () => number;
}

export function createDeps(config: Config, database: DatabaseHandle, opts: DepsOptions): AppDeps {
  // What the manifests make first: a module list refused leaves no connection open.
  const modules = assembleRegistries(opts.modules);
  const state = createModuleStates(opts.modules, config);
  const log = opts.log ?? pino({ level: config.logLevel });
  const clock = opts.clock ?? Date.now;
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  const changes = createChangeFeed(database, log);
  const store: RateLimitStore = redis
    ? redisRateLimitStore(redis, config.redisPrefix)
    : memoryRateLimitStore();
  const mailer = createMailer({ smtpUrl: config.mail.smtpUrl, from: config.mail.from, db: database.db, log });
  return {
    config,
    database,
    log,
    clock,
    redis,
    changes,
    rateLimiter: createRateLimiter(config.rateLimits, store, clock),
    tokens: createTokenService(config.jwtSecret, config.accessTokenTtlSeconds),
    apiKeys: createApiKeyVerifier({
      db: database.db,
      changes,
      cacheTtlMs: config.apiKeyCacheTtlMs,
      now: clock,
    }),
    mailer,
    encryptor: createEncryptor(config.encryptionKey),
    modules,
    references: createReferenceRegistry(
      opts.modules.flatMap((m) => m.referenceFinders ?? []),
      opts.modules.flatMap((m) => m.dependentDisablers ?? []),
    ),
    state,
    wakeWorker: () => {},
    async close() {
      mailer.close();
      await store.close();
      await changes.close();
      redis?.disconnect();
    },
  };
}

/** Each manifest's per-app state, in its slot; a slot two modules claim refuses to boot. */
function createModuleStates(manifests: readonly ModuleManifest[], config: Config): Partial<ModuleStates> {
  const states: Record<string, unknown> = {};
  for (const m of manifests) {
    for (const [slot, create] of Object.entries(m.state ?? {})) {
      if (Object.hasOwn(states, slot))
        throw new Error(`module ${m.name} makes state ${slot}, as another module does`);
      states[slot] = (create as (config: Config) => unknown)(config);
    }
  }
  return states as Partial<ModuleStates>;
}
