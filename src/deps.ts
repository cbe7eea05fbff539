import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { DatabaseHandle } from './db/client.js';
import { type ApiKeyVerifier, createApiKeyVerifier } from './platform/auth/api-key-auth.js';
import { createTokenService, type TokenService } from './platform/auth/tokens.js';
import { createEncryptor, type Encryptor } from './platform/crypto.js';
import { createMailer, type Mailer } from './platform/mail.js';
import {
  createRateLimiter,
  memoryRateLimitStore,
  type RateLimiter,
  type RateLimitStore,
  redisRateLimitStore,
} from './platform/rate-limit.js';
import { connectRedis, createInvalidationBus, type InvalidationBus, type Redis } from './platform/redis.js';
import { createReferenceRegistry, type ReferenceRegistry } from './platform/references.js';

/**
 * Everything a request or a worker needs, built once per process (or per test app) and handed
 * to `buildApp` and the workers. Nothing here knows a domain.
 */
export interface AppDeps {
  config: Config;
  database: DatabaseHandle;
  log: Logger;
  /** Milliseconds since the epoch; injectable so tests can move time. */
  clock: () => number;
  redis: Redis | null;
  bus: InvalidationBus;
  rateLimiter: RateLimiter;
  tokens: TokenService;
  apiKeys: ApiKeyVerifier;
  mailer: Mailer;
  encryptor: Encryptor;
  /** "Who refers to this record" finders (AUDIENCE_IN_USE and similar), filled by modules. */
  references: ReferenceRegistry;
  /** Asks a background worker to run now (a no-op where workers do not run in this process). */
  wakeWorker: (name: string) => void;
  /** When this process last committed SDK work (ms since the epoch); background work yields while it is recent. */
  hotPathActiveAt: number;
  close(): Promise<void>;
}

export interface DepsOptions {
  log?: Logger;
  clock?: () => number;
}

export function createDeps(config: Config, database: DatabaseHandle, opts: DepsOptions = {}): AppDeps {
  const log = opts.log ?? pino({ level: config.logLevel });
  const clock = opts.clock ?? Date.now;
  const redis = config.redisUrl ? connectRedis(config.redisUrl) : null;
  const bus = createInvalidationBus(config.redisUrl, config.redisPrefix, log);
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
    bus,
    rateLimiter: createRateLimiter(config.rateLimits, store, clock),
    tokens: createTokenService(config.jwtSecret, config.accessTokenTtlSeconds),
    apiKeys: createApiKeyVerifier({ db: database.db, bus, cacheTtlMs: config.apiKeyCacheTtlMs, now: clock }),
    mailer,
    encryptor: createEncryptor(config.encryptionKey),
    references: createReferenceRegistry(),
    wakeWorker: () => {},
    hotPathActiveAt: 0,
    async close() {
      mailer.close();
      await store.close();
      await bus.close();
      redis?.disconnect();
    },
  };
}
