import { type Config, loadConfig } from '../../src/config.js';

/** A config for tests: embedded defaults, limits off, fixed secrets. Overrides win. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const base = loadConfig({
    JWT_SECRET: 'test-jwt-secret-0123456789abcdef0123456789',
    ENCRYPTION_KEY: 'test-encryption-key-0123456789abcdef012345',
    LOG_LEVEL: 'silent',
    // Tenants in tests are unlimited unless a test picks a plan: limits are the pricing tests' subject.
    DEFAULT_PLAN: 'enterprise',
    RATE_LIMIT_GLOBAL: '0',
    RATE_LIMIT_AUTH: '0',
    RATE_LIMIT_REFRESH: '0',
    RATE_LIMIT_SDK: '0',
    RATE_LIMIT_ADMIN_READ: '0',
    RATE_LIMIT_ADMIN_WRITE: '0',
    RATE_LIMIT_ADMIN_CRITICAL: '0',
  });
  return { ...base, ...overrides, rateLimits: { ...base.rateLimits, ...overrides.rateLimits } };
}
