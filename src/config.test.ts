import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.js';
import { createTokenService } from './platform/auth/tokens.js';

/** loadConfig: the only reader of process.env (DECISIONS §11: every variable optional, no length rules). */

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-test-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const JWT = 'j'.repeat(32);
const ENC = 'e'.repeat(32);
const ADMIN = 'a'.repeat(16);
/** Secrets given, so nothing is written to disk unless a test wants it. */
const base = (env: Record<string, string | undefined> = {}) => ({
  JWT_SECRET: JWT,
  ENCRYPTION_KEY: ENC,
  DATA_DIR: tempDir(),
  ...env,
});

/** The ConfigError message of loading `env`. */
function configError(env: Record<string, string | undefined>): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the documented defaults to an empty environment', () => {
    const dataDir = tempDir();
    const config = loadConfig({ DATA_DIR: dataDir });
    expect(config).toMatchObject({
      port: 3000,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: undefined,
      redisUrl: undefined,
      appUrl: 'http://localhost:3000',
      defaultPlan: 'free',
      platformAdminToken: undefined,
      rateLimits: {
        global: 100,
        auth: 10,
        refresh: 20,
        sdk: 600,
        adminRead: 60,
        adminWrite: 20,
        adminCritical: 5,
      },
      ai: {
        openaiBaseUrl: 'https://api.openai.com/v1',
        anthropicBaseUrl: 'https://api.anthropic.com/v1',
        geminiBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
        requestTimeoutMs: 30_000,
        retryBaseDelayMs: 500,
      },
      mail: { smtpUrl: undefined, from: 'Guidance <no-reply@localhost>' },
      google: { clientId: undefined, jwksUrl: 'https://www.googleapis.com/oauth2/v3/certs' },
      logLevel: 'info',
      accessTokenTtlSeconds: 900,
      refreshTokenTtlSeconds: 2_592_000,
      cookieSecure: false,
      bodyLimitBytes: 1_048_576,
      role: 'all',
      redisPrefix: 'guidance:',
      apiKeyCacheTtlMs: 4000,
      trustProxy: false,
      corsOrigins: [],
      requestTimeoutMs: 30_000,
      headersTimeoutMs: 10_000,
      keepAliveTimeoutMs: 72_000,
      refreshGraceSeconds: 5,
      warnings: [],
      webhooks: { allowPrivate: false, retryBaseMs: 30_000, retryMaxMs: 259_200_000, timeoutMs: 10_000 },
    });
    // embedded mode: secrets generated once, kept in DATA_DIR, reused on the next start
    expect(config.jwtSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(config.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(readFileSync(join(dataDir, 'secrets.json'), 'utf8'))).toEqual({
      jwtSecret: config.jwtSecret,
      encryptionKey: config.encryptionKey,
    });
    const again = loadConfig({ DATA_DIR: dataDir });
    expect([again.jwtSecret, again.encryptionKey]).toEqual([config.jwtSecret, config.encryptionKey]);
  });

  it('treats empty strings as unset', () => {
    const config = loadConfig(base({ PORT: '', PLATFORM_ADMIN_TOKEN: '', DATABASE_URL: '', LOG_LEVEL: '' }));
    expect(config).toMatchObject({
      port: 3000,
      platformAdminToken: undefined,
      databaseUrl: undefined,
      logLevel: 'info',
    });
  });

  it('parses every variable', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '0.0.0.0',
      DATA_DIR: '/tmp/guidance-config-test-unused',
      DATABASE_URL: 'postgres://u:p@db.example.com:5432/guidance',
      REDIS_URL: 'redis://cache.example.com:6379',
      JWT_SECRET: JWT,
      ENCRYPTION_KEY: ENC,
      APP_URL: 'https://app.example.com//',
      DEFAULT_PLAN: 'starter',
      PLATFORM_ADMIN_TOKEN: ADMIN,
      RATE_LIMIT_GLOBAL: '1',
      RATE_LIMIT_AUTH: '2',
      RATE_LIMIT_REFRESH: '3',
      RATE_LIMIT_SDK: '4',
      RATE_LIMIT_ADMIN_READ: '5',
      RATE_LIMIT_ADMIN_WRITE: '6',
      RATE_LIMIT_ADMIN_CRITICAL: '0',
      OPENAI_BASE_URL: 'http://127.0.0.1:9001/v1',
      ANTHROPIC_BASE_URL: 'http://127.0.0.1:9002/v1',
      GEMINI_BASE_URL: 'http://127.0.0.1:9003/v1beta',
      AI_REQUEST_TIMEOUT_MS: '5000',
      AI_RETRY_BASE_DELAY_MS: '10',
      SMTP_URL: 'smtp://mail.example.com:587',
      MAIL_FROM: 'Team <team@example.com>',
      GOOGLE_CLIENT_ID: 'client-id.apps.googleusercontent.com',
      GOOGLE_JWKS_URL: 'http://127.0.0.1:9004/certs',
      LOG_LEVEL: 'debug',
      ACCESS_TOKEN_TTL_SECONDS: '60',
      REFRESH_TOKEN_TTL_SECONDS: '3600',
      COOKIE_SECURE: 'true',
      BODY_LIMIT_BYTES: '2048',
      ROLE: 'worker',
      REDIS_PREFIX: 'test:',
      API_KEY_CACHE_TTL_MS: '5000',
      TRUST_PROXY: 'true',
      CORS_ORIGINS: 'https://dashboard.example.com',
      REQUEST_TIMEOUT_MS: '20000',
      HEADERS_TIMEOUT_MS: '20000',
      KEEP_ALIVE_TIMEOUT_MS: '5000',
      REFRESH_GRACE_SECONDS: '0',
      WEBHOOK_ALLOW_PRIVATE: 'true',
      WEBHOOK_RETRY_BASE_MS: '1000',
      WEBHOOK_RETRY_MAX_HOURS: '2',
      WEBHOOK_TIMEOUT_MS: '500',
    });
    expect(config).toEqual({
      port: 8080,
      host: '0.0.0.0',
      dataDir: '/tmp/guidance-config-test-unused',
      databaseUrl: 'postgres://u:p@db.example.com:5432/guidance',
      redisUrl: 'redis://cache.example.com:6379',
      jwtSecret: JWT,
      encryptionKey: ENC,
      appUrl: 'https://app.example.com',
      defaultPlan: 'starter',
      platformAdminToken: ADMIN,
      rateLimits: { global: 1, auth: 2, refresh: 3, sdk: 4, adminRead: 5, adminWrite: 6, adminCritical: 0 },
      ai: {
        openaiBaseUrl: 'http://127.0.0.1:9001/v1',
        anthropicBaseUrl: 'http://127.0.0.1:9002/v1',
        geminiBaseUrl: 'http://127.0.0.1:9003/v1beta',
        requestTimeoutMs: 5000,
        retryBaseDelayMs: 10,
      },
      mail: { smtpUrl: 'smtp://mail.example.com:587', from: 'Team <team@example.com>' },
      google: { clientId: 'client-id.apps.googleusercontent.com', jwksUrl: 'http://127.0.0.1:9004/certs' },
      logLevel: 'debug',
      accessTokenTtlSeconds: 60,
      refreshTokenTtlSeconds: 3600,
      cookieSecure: true,
      bodyLimitBytes: 2048,
      role: 'worker',
      redisPrefix: 'test:',
      apiKeyCacheTtlMs: 5000,
      trustProxy: true,
      corsOrigins: ['https://dashboard.example.com'],
      requestTimeoutMs: 20_000,
      headersTimeoutMs: 20_000,
      keepAliveTimeoutMs: 5000,
      refreshGraceSeconds: 0,
      warnings: [],
      webhooks: { allowPrivate: true, retryBaseMs: 1000, retryMaxMs: 7_200_000, timeoutMs: 500 },
    });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '1.5'],
    ['DATABASE_URL', 'not a url'],
    ['REDIS_URL', 'not a url'],
    ['APP_URL', 'example.com'],
    ['RATE_LIMIT_GLOBAL', '-1'],
    ['RATE_LIMIT_AUTH', 'ten'],
    ['RATE_LIMIT_REFRESH', '2.5'],
    ['RATE_LIMIT_SDK', 'x'],
    ['RATE_LIMIT_ADMIN_READ', '-5'],
    ['RATE_LIMIT_ADMIN_WRITE', 'many'],
    ['RATE_LIMIT_ADMIN_CRITICAL', '-1'],
    ['OPENAI_BASE_URL', 'nowhere'],
    ['ANTHROPIC_BASE_URL', 'nowhere'],
    ['GEMINI_BASE_URL', 'nowhere'],
    ['GOOGLE_JWKS_URL', 'nowhere'],
    ['LOG_LEVEL', 'loud'],
    ['ACCESS_TOKEN_TTL_SECONDS', '0'],
    ['REFRESH_TOKEN_TTL_SECONDS', '-1'],
    ['COOKIE_SECURE', 'yes'],
    ['BODY_LIMIT_BYTES', '0'],
    ['ROLE', 'both'],
    ['API_KEY_CACHE_TTL_MS', '5001'],
    ['REQUEST_TIMEOUT_MS', '0'],
    ['HEADERS_TIMEOUT_MS', 'soon'],
    ['KEEP_ALIVE_TIMEOUT_MS', '-1'],
    ['REFRESH_GRACE_SECONDS', '61'],
  ])('refuses %s=%s with a ConfigError naming the variable', (name, value) => {
    const message = configError(base({ [name]: value }));
    expect(message).toContain(name);
    // only the bad variable is reported
    expect(message.split('\n').filter((l) => l.trim().match(/^[A-Z_]+:/))).toEqual([
      expect.stringContaining(`${name}:`),
    ]);
  });

  it('refuses a headers timeout longer than the request timeout', () => {
    expect(configError(base({ REQUEST_TIMEOUT_MS: '5000', HEADERS_TIMEOUT_MS: '5001' }))).toContain(
      'HEADERS_TIMEOUT_MS may not exceed REQUEST_TIMEOUT_MS',
    );
  });

  it('reports every invalid variable at once', () => {
    const message = configError(base({ PORT: 'x', ROLE: 'y', LOG_LEVEL: 'z' }));
    for (const name of ['PORT', 'ROLE', 'LOG_LEVEL']) expect(message).toContain(`${name}:`);
  });

  it('requires JWT_SECRET and ENCRYPTION_KEY with DATABASE_URL', () => {
    const url = 'postgres://postgres@127.0.0.1:5432/postgres';
    for (const missing of ['JWT_SECRET', 'ENCRYPTION_KEY']) {
      const message = configError(base({ DATABASE_URL: url, [missing]: undefined }));
      expect(message).toMatch(/JWT_SECRET and ENCRYPTION_KEY/);
    }
    expect(loadConfig(base({ DATABASE_URL: url })).databaseUrl).toBe(url);
  });
});

describe('secret lengths: accepted, with warnings', () => {
  it('accepts short secrets and a short admin token, one warning each naming the variable', () => {
    const config = loadConfig(
      base({ JWT_SECRET: 'j', ENCRYPTION_KEY: 'short-key', PLATFORM_ADMIN_TOKEN: 'admin' }),
    );
    expect(config).toMatchObject({ jwtSecret: 'j', encryptionKey: 'short-key', platformAdminToken: 'admin' });
    expect(config.warnings).toHaveLength(3);
    expect(config.warnings[0]).toMatch(/^JWT_SECRET .*32/);
    expect(config.warnings[1]).toMatch(/^ENCRYPTION_KEY .*32/);
    expect(config.warnings[2]).toMatch(/^PLATFORM_ADMIN_TOKEN .*16/);
    // warnings never carry the secret itself
    for (const w of config.warnings) expect(w).not.toMatch(/short-key|'admin'/);
  });

  it('warns below the recommended length and not at it', () => {
    const at = loadConfig(base({ JWT_SECRET: JWT, ENCRYPTION_KEY: ENC, PLATFORM_ADMIN_TOKEN: ADMIN }));
    expect(at.warnings).toEqual([]);
    const below = loadConfig(
      base({ JWT_SECRET: JWT.slice(1), ENCRYPTION_KEY: ENC, PLATFORM_ADMIN_TOKEN: ADMIN.slice(1) }),
    );
    expect(below.warnings).toEqual([
      expect.stringMatching(/^JWT_SECRET/),
      expect.stringMatching(/^PLATFORM_ADMIN_TOKEN/),
    ]);
    const encOnly = loadConfig(base({ ENCRYPTION_KEY: ENC.slice(1) }));
    expect(encOnly.warnings).toEqual([expect.stringMatching(/^ENCRYPTION_KEY/)]);
  });

  it('warns for a short JWT_SECRET given alongside a generated ENCRYPTION_KEY', () => {
    const dataDir = tempDir();
    const first = loadConfig({ DATA_DIR: dataDir, JWT_SECRET: 'tiny' });
    expect(first.warnings).toEqual([expect.stringMatching(/^JWT_SECRET/)]);
    expect(first.encryptionKey).toMatch(/^[0-9a-f]{64}$/);
  });

  it('signs and verifies access tokens with a short JWT_SECRET (the service still works)', async () => {
    const { jwtSecret } = loadConfig(base({ JWT_SECRET: 'x' }));
    const tokens = createTokenService(jwtSecret, 60);
    const claims = { userId: 'u', tenantId: 't', sessionId: 's' };
    expect(await tokens.verifyAccess(await tokens.signAccess(claims))).toEqual(claims);
  });
});

describe('TRUST_PROXY', () => {
  it('is off by default, trusts every hop with true, or names the proxies', () => {
    const base = {
      JWT_SECRET: 'x'.repeat(32),
      ENCRYPTION_KEY: 'y'.repeat(32),
      DATABASE_URL: 'postgres://h/db',
    };
    expect(loadConfig(base).trustProxy).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/8,127.0.0.1' }).trustProxy).toBe(
      '10.0.0.0/8,127.0.0.1',
    );
  });
});

describe('CORS_ORIGINS', () => {
  const base = {
    JWT_SECRET: 'x'.repeat(32),
    ENCRYPTION_KEY: 'y'.repeat(32),
    DATABASE_URL: 'postgres://h/db',
  };

  it('is empty by default (dashboard routes same-origin only) and lists exact origins', () => {
    expect(loadConfig(base).corsOrigins).toEqual([]);
    expect(
      loadConfig({
        ...base,
        CORS_ORIGINS: ' https://app.example.com/ , http://localhost:5173,https://app.example.com',
      }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173']);
  });

  it.each(['*', 'app.example.com', 'https://app.example.com/admin', 'ftp://files.example.com', 'null'])(
    'refuses %s, which is not an origin',
    (value) => {
      expect(() => loadConfig({ ...base, CORS_ORIGINS: value })).toThrow(ConfigError);
      expect(() => loadConfig({ ...base, CORS_ORIGINS: value })).toThrow(/CORS_ORIGINS/);
    },
  );
});
