import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * The only reader of process.env. Every variable is optional (DECISIONS §11), and secrets have
 * no length rules: short ones are accepted with a startup warning (`Config.warnings`).
 */

const limit = (fallback: number) => z.coerce.number().int().min(0).default(fallback);

const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./data'),
  DATABASE_URL: z.string().url().optional(),
  REDIS_URL: z.string().url().optional(),
  JWT_SECRET: z.string().min(1).optional(),
  ENCRYPTION_KEY: z.string().min(1).optional(),
  APP_URL: z.string().url().default('http://localhost:3000'),
  DEFAULT_PLAN: z.string().default('free'),
  PLATFORM_ADMIN_TOKEN: z.string().min(1).optional(),
  RATE_LIMIT_GLOBAL: limit(100),
  RATE_LIMIT_AUTH: limit(10),
  RATE_LIMIT_REFRESH: limit(20),
  RATE_LIMIT_SDK: limit(600),
  RATE_LIMIT_ADMIN_READ: limit(60),
  RATE_LIMIT_ADMIN_WRITE: limit(20),
  RATE_LIMIT_ADMIN_CRITICAL: limit(5),
  OPENAI_BASE_URL: z.string().url().default('https://api.openai.com/v1'),
  ANTHROPIC_BASE_URL: z.string().url().default('https://api.anthropic.com/v1'),
  GEMINI_BASE_URL: z.string().url().default('https://generativelanguage.googleapis.com/v1beta'),
  AI_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(30_000),
  AI_RETRY_BASE_DELAY_MS: z.coerce.number().int().min(0).max(60_000).default(500),
  SMTP_URL: z.string().optional(),
  MAIL_FROM: z.string().default('Guidance <no-reply@localhost>'),
  GOOGLE_CLIENT_ID: z.string().optional(),
  GOOGLE_JWKS_URL: z.string().url().default('https://www.googleapis.com/oauth2/v3/certs'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  ACCESS_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(15 * 60),
  REFRESH_TOKEN_TTL_SECONDS: z.coerce
    .number()
    .int()
    .positive()
    .default(30 * 24 * 3600),
  COOKIE_SECURE: z.enum(['true', 'false']).default('false'),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .positive()
    .default(1024 * 1024),
  ROLE: z.enum(['all', 'web', 'worker']).default('all'),
  REDIS_PREFIX: z.string().default('guidance:'),
  API_KEY_CACHE_TTL_MS: z.coerce.number().int().min(0).max(5000).default(4000),
  TRUST_PROXY: z.string().default('false'),
  CORS_ORIGINS: z.string().default(''),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
  HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).default(10_000),
  KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).max(3_600_000).default(72_000),
  REFRESH_GRACE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false']).default('false'),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).max(86_400_000).default(30_000),
  WEBHOOK_RETRY_MAX_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 365)
    .default(72),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
});

export interface RateLimits {
  global: number;
  auth: number;
  refresh: number;
  sdk: number;
  adminRead: number;
  adminWrite: number;
  adminCritical: number;
}

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  jwtSecret: string;
  encryptionKey: string;
  appUrl: string;
  defaultPlan: string;
  platformAdminToken: string | undefined;
  rateLimits: RateLimits;
  ai: {
    openaiBaseUrl: string;
    anthropicBaseUrl: string;
    geminiBaseUrl: string;
    /** Ceiling of one AI request, retries and backoff included (then 500 EXTERNAL_SERVICE_ERROR). */
    requestTimeoutMs: number;
    /** First backoff delay between retries of a failed provider call; doubles each time. */
    retryBaseDelayMs: number;
  };
  mail: { smtpUrl: string | undefined; from: string };
  google: { clientId: string | undefined; jwksUrl: string };
  logLevel: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  cookieSecure: boolean;
  bodyLimitBytes: number;
  /** `all` serves HTTP and runs workers; `web` only HTTP; `worker` only background work. */
  role: 'all' | 'web' | 'worker';
  /** Namespace of every Redis key and channel, so several deployments (or test runs) share one Redis. */
  redisPrefix: string;
  /** How long a verified API key is trusted without a database read; revocation elsewhere is seen within it. */
  apiKeyCacheTtlMs: number;
  /** Take the client IP from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: boolean | string;
  /** Origins whose pages may call the dashboard routes with credentials (CORS); SDK routes allow any. */
  corsOrigins: string[];
  /** The whole request must arrive within this (else 408); at least headersTimeoutMs. */
  requestTimeoutMs: number;
  /** The request headers must arrive within this (else 408). */
  headersTimeoutMs: number;
  /** An idle keep-alive connection is closed after this. */
  keepAliveTimeoutMs: number;
  /** A refresh token presented again this soon after its rotation gets the same new tokens. */
  refreshGraceSeconds: number;
  /** Outgoing webhooks (docs/webhooks.md). */
  webhooks: {
    /** Allows http and loopback/private receivers (on-premise, tests); link-local and metadata stay refused. */
    allowPrivate: boolean;
    /** First retry delay; doubles with each failed attempt (with jitter). */
    retryBaseMs: number;
    /** How long a delivery is retried before it fails and its endpoint is disabled. */
    retryMaxMs: number;
    /** Ceiling of one delivery attempt (connect, send, answer). */
    timeoutMs: number;
  };
  /** Accepted but unwise settings (short secrets), logged at warn level at startup. */
  warnings: string[];
}

/** Recommended minimum lengths: shorter values are accepted with a warning. */
export const RECOMMENDED_SECRET_LENGTH = {
  JWT_SECRET: 32,
  ENCRYPTION_KEY: 32,
  PLATFORM_ADMIN_TOKEN: 16,
} as const;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = envSchema.safeParse(stripEmpty(env));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.HEADERS_TIMEOUT_MS > e.REQUEST_TIMEOUT_MS) {
    throw new ConfigError('Invalid configuration:\n  HEADERS_TIMEOUT_MS may not exceed REQUEST_TIMEOUT_MS');
  }
  const dataDir = resolve(e.DATA_DIR);
  const secrets = resolveSecrets(e.DATABASE_URL, dataDir, e.JWT_SECRET, e.ENCRYPTION_KEY);
  const warnings = secretWarnings({
    JWT_SECRET: secrets.jwtSecret,
    ENCRYPTION_KEY: secrets.encryptionKey,
    PLATFORM_ADMIN_TOKEN: e.PLATFORM_ADMIN_TOKEN,
  });
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    ...secrets,
    appUrl: e.APP_URL.replace(/\/+$/, ''),
    defaultPlan: e.DEFAULT_PLAN,
    platformAdminToken: e.PLATFORM_ADMIN_TOKEN,
    rateLimits: {
      global: e.RATE_LIMIT_GLOBAL,
      auth: e.RATE_LIMIT_AUTH,
      refresh: e.RATE_LIMIT_REFRESH,
      sdk: e.RATE_LIMIT_SDK,
      adminRead: e.RATE_LIMIT_ADMIN_READ,
      adminWrite: e.RATE_LIMIT_ADMIN_WRITE,
      adminCritical: e.RATE_LIMIT_ADMIN_CRITICAL,
    },
    ai: {
      openaiBaseUrl: e.OPENAI_BASE_URL,
      anthropicBaseUrl: e.ANTHROPIC_BASE_URL,
      geminiBaseUrl: e.GEMINI_BASE_URL,
      requestTimeoutMs: e.AI_REQUEST_TIMEOUT_MS,
      retryBaseDelayMs: e.AI_RETRY_BASE_DELAY_MS,
    },
    mail: { smtpUrl: e.SMTP_URL, from: e.MAIL_FROM },
    google: { clientId: e.GOOGLE_CLIENT_ID, jwksUrl: e.GOOGLE_JWKS_URL },
    logLevel: e.LOG_LEVEL,
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    refreshTokenTtlSeconds: e.REFRESH_TOKEN_TTL_SECONDS,
    cookieSecure: e.COOKIE_SECURE === 'true',
    bodyLimitBytes: e.BODY_LIMIT_BYTES,
    role: e.ROLE,
    redisPrefix: e.REDIS_PREFIX,
    apiKeyCacheTtlMs: e.API_KEY_CACHE_TTL_MS,
    trustProxy: parseTrustProxy(e.TRUST_PROXY),
    corsOrigins: parseCorsOrigins(e.CORS_ORIGINS),
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    refreshGraceSeconds: e.REFRESH_GRACE_SECONDS,
    webhooks: {
      allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === 'true',
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: Math.round(e.WEBHOOK_RETRY_MAX_HOURS * 3_600_000),
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
    },
    warnings,
  };
}

function secretWarnings(
  values: Record<keyof typeof RECOMMENDED_SECRET_LENGTH, string | undefined>,
): string[] {
  const warnings: string[] = [];
  for (const [name, min] of Object.entries(RECOMMENDED_SECRET_LENGTH)) {
    const value = values[name as keyof typeof RECOMMENDED_SECRET_LENGTH];
    if (value !== undefined && value.length < min) {
      warnings.push(`${name} is ${value.length} characters; ${min} or more are recommended`);
    }
  }
  return warnings;
}

/**
 * `false` (default), or the proxies' addresses/CIDRs, comma-separated (`10.0.0.0/8,127.0.0.1`):
 * X-Forwarded-For is then read only through those hops. `true` trusts every hop, which lets
 * any client choose its own IP: use it only when the proxy overwrites that header.
 */
function parseTrustProxy(value: string): boolean | string {
  if (value === 'false') return false;
  if (value === 'true') return true;
  return value;
}

/**
 * `https://app.example.com,http://localhost:5173`: exact origins (scheme, host, optional port; a
 * trailing slash is dropped). `*` is refused: these origins get credentialed access.
 */
export function parseCorsOrigins(value: string): string[] {
  const origins: string[] = [];
  for (const raw of value.split(',')) {
    const item = raw.trim().replace(/\/+$/, '');
    if (!item) continue;
    let origin: string | null = null;
    try {
      const url = new URL(item);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && url.origin === item) origin = url.origin;
    } catch {
      // not a URL: reported below
    }
    if (!origin) {
      throw new ConfigError(
        `Invalid configuration:\n  CORS_ORIGINS: "${raw.trim()}" is not an origin (scheme://host[:port], no path, no *)`,
      );
    }
    if (!origins.includes(origin)) origins.push(origin);
  }
  return origins;
}

function stripEmpty(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') out[k] = v;
  return out;
}

/**
 * In embedded mode the signing and encryption keys are generated once and kept in DATA_DIR,
 * so a restart keeps sessions and encrypted values valid. With DATABASE_URL several instances
 * must agree on them, so they are required.
 */
function resolveSecrets(
  databaseUrl: string | undefined,
  dataDir: string,
  jwtSecret: string | undefined,
  encryptionKey: string | undefined,
): { jwtSecret: string; encryptionKey: string } {
  if (jwtSecret && encryptionKey) return { jwtSecret, encryptionKey };
  if (databaseUrl) {
    throw new ConfigError(
      'JWT_SECRET and ENCRYPTION_KEY are required with DATABASE_URL (32+ characters each recommended)',
    );
  }
  mkdirSync(dataDir, { recursive: true });
  const file = join(dataDir, 'secrets.json');
  let stored: { jwtSecret?: string; encryptionKey?: string } = {};
  try {
    stored = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    // first start: nothing stored yet
  }
  const next = {
    jwtSecret: jwtSecret ?? stored.jwtSecret ?? randomBytes(32).toString('hex'),
    encryptionKey: encryptionKey ?? stored.encryptionKey ?? randomBytes(32).toString('hex'),
  };
  if (next.jwtSecret !== stored.jwtSecret || next.encryptionKey !== stored.encryptionKey) {
    writeFileSync(file, JSON.stringify(next), { mode: 0o600 });
  }
  return next;
}
