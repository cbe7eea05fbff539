import pino from 'pino';
import { expect } from 'vitest';
import type { Config } from '../../src/config.js';
import type { AiProviderName } from '../../src/db/schema/index.js';
import { createTestApp, type TestApp, type TestAppOptions } from './app.js';
import { testConfig } from './config.js';
import { callAs, type TenantFixture } from './factories.js';
import { FAKE_VALID_KEY, type FakeProvider, startFakeProvider } from './fake-ai-provider.js';

export interface AiTestApp {
  t: TestApp;
  fake: FakeProvider;
  /** Every line the app logged (JSON), to prove what never appears in them. */
  logLines: string[];
  close(): Promise<void>;
}

/**
 * The real app with its AI providers pointed at a fake provider on loopback, a short request
 * ceiling and quick backoff so failure paths stay fast.
 */
export async function createAiTestApp(
  ai: Partial<Config['ai']> = {},
  opts: Omit<TestAppOptions, 'log'> = {},
): Promise<AiTestApp> {
  const fake = await startFakeProvider();
  const logLines: string[] = [];
  const log = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
  const t = await createTestApp({
    ...opts,
    log,
    config: {
      ...opts.config,
      ai: { ...testConfig().ai, ...fake.urls, requestTimeoutMs: 2_000, retryBaseDelayMs: 5, ...ai },
    },
  });
  return {
    t,
    fake,
    logLines,
    async close() {
      await t.close();
      await fake.close();
    },
  };
}

/** Configures the tenant's AI provider through the API (the fake accepts FAKE_VALID_KEY). */
export async function configureAi(
  t: TestApp,
  tenant: TenantFixture,
  provider: AiProviderName = 'OPENAI',
  apiKey = FAKE_VALID_KEY,
) {
  const res = await callAs(t, tenant, 'POST', '/api/ai-config', { provider, apiKey });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json().data;
}
