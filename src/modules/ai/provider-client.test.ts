import pino from 'pino';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { testConfig } from '../../../test/helpers/config.js';
import {
  FAKE_VALID_KEY,
  type FakeProvider,
  type ProviderKind,
  startFakeProvider,
} from '../../../test/helpers/fake-ai-provider.js';
import type { AiProviderName } from '../../db/schema/index.js';
import { AppError } from '../../platform/errors.js';
import { createAiClient, verifyProviderKey } from './provider-client.js';

/**
 * The provider layer against a fake provider on loopback, in each of the three wire formats:
 * structured output, usage, retries (429 with Retry-After, 500s), the ceiling, refused keys,
 * malformed output with its one repair attempt, embeddings.
 */

let fake: FakeProvider;
const lines: string[] = [];
const log = pino({ level: 'debug' }, { write: (line: string) => lines.push(line) });

beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.requests.length = 0;
  lines.length = 0;
});

const ai = (overrides: Partial<ReturnType<typeof testConfig>['ai']> = {}) => ({
  ...testConfig().ai,
  ...fake.urls,
  requestTimeoutMs: 5_000,
  retryBaseDelayMs: 10,
  ...overrides,
});

const thing = z.object({ title: z.string().min(1), count: z.number().int().min(0) });
const thingJsonSchema = {
  type: 'object' as const,
  properties: { title: { type: 'string' as const }, count: { type: 'integer' as const } },
  required: ['title', 'count'],
};
const request = (prompt = 'Make a thing') => ({
  system: 'You make things.',
  messages: [{ role: 'user' as const, content: prompt }],
  schema: thing,
  modelSchema: thingJsonSchema,
  name: 'thing',
});

const PROVIDERS: [AiProviderName, ProviderKind][] = [
  ['OPENAI', 'openai'],
  ['CLAUDE', 'anthropic'],
  ['GEMINI', 'gemini'],
];

async function expectAppError(promise: Promise<unknown>, code: string): Promise<AppError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(AppError);
  expect((err as AppError).code).toBe(code);
  return err as AppError;
}

describe.each(PROVIDERS)('%s wire format', (provider, kind) => {
  const client = (overrides = {}, apiKey = FAKE_VALID_KEY) =>
    createAiClient({ provider, model: null, apiKey, ai: ai(overrides), log });

  it('returns the validated object and counts the tokens the provider reported', async () => {
    fake.enqueue('chat', { json: { title: 'Hello', count: 2 }, usage: { input: 30, output: 12 } });
    const c = client();
    await expect(c.generateObject(request())).resolves.toEqual({ title: 'Hello', count: 2 });
    expect(c.tokensUsed).toBe(42);
    const [call] = fake.callsOf('chat', kind);
    expect(call!.text).toContain('Make a thing');
    expect(call!.text).toContain('You make things.');
  });

  it('counts 0 tokens (never NaN) when the provider reports no usage', async () => {
    fake.enqueue('chat', { json: { title: 'x', count: 0 }, usage: null });
    const c = client();
    await c.generateObject(request());
    expect(c.tokensUsed).toBe(0);
  });

  it('retries a 429 after the Retry-After it was given, then succeeds', async () => {
    fake.enqueue(
      'chat',
      { status: 429, headers: { 'retry-after': '1' } },
      { json: { title: 'ok', count: 1 } },
    );
    const started = Date.now();
    await expect(client().generateObject(request())).resolves.toEqual({ title: 'ok', count: 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(fake.callsOf('chat')).toHaveLength(2);
  });

  it('retries 500s with backoff, then succeeds', async () => {
    fake.enqueue('chat', { status: 500 }, { status: 503 }, { json: { title: 'ok', count: 3 } });
    await expect(client().generateObject(request())).resolves.toEqual({ title: 'ok', count: 3 });
    expect(fake.callsOf('chat')).toHaveLength(3);
  });

  it('gives up with EXTERNAL_SERVICE_ERROR after the last attempt', async () => {
    fake.enqueue('chat', { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 }, { status: 500 });
    const err = await expectAppError(client().generateObject(request()), 'EXTERNAL_SERVICE_ERROR');
    expect(err.statusCode).toBe(500);
    expect(err.message).toMatch(/HTTP 500/);
    expect(fake.callsOf('chat')).toHaveLength(4);
  });

  it('does not wait for a Retry-After that ends past the ceiling: fails at once', async () => {
    fake.enqueue('chat', { status: 429, headers: { 'retry-after': '60' } });
    const started = Date.now();
    await expectAppError(client().generateObject(request()), 'EXTERNAL_SERVICE_ERROR');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops a call that hangs past the ceiling with EXTERNAL_SERVICE_ERROR', async () => {
    fake.enqueue('chat', { hang: true });
    const started = Date.now();
    const err = await expectAppError(
      client({ requestTimeoutMs: 300 }).generateObject(request()),
      'EXTERNAL_SERVICE_ERROR',
    );
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(250);
    expect(elapsed).toBeLessThan(3_000);
    expect(err.message).toMatch(/did not answer within 0.3 s/);
  });

  it('answers AI_KEY_INVALID when the provider refuses the key, without retrying', async () => {
    await expectAppError(client({}, 'sk-wrong-key-00000000000').generateObject(request()), 'AI_KEY_INVALID');
    expect(fake.callsOf('chat')).toHaveLength(1);
  });

  it('repairs malformed output once: the problems go back to the model, the second answer is used', async () => {
    fake.enqueue(
      'chat',
      { text: 'Sure! Here is your thing: {title:' },
      { json: { title: 'fixed', count: 1 } },
    );
    const c = client();
    await expect(c.generateObject(request())).resolves.toEqual({ title: 'fixed', count: 1 });
    const [, repair] = fake.callsOf('chat');
    expect(repair!.text).toContain('That answer is invalid');
    expect(c.tokensUsed).toBe(300);
  });

  it('repairs output that is JSON but breaks the schema, naming the field', async () => {
    fake.enqueue('chat', { json: { title: '', count: -1 } }, { json: { title: 'ok', count: 0 } });
    await expect(client().generateObject(request())).resolves.toEqual({ title: 'ok', count: 0 });
    const [, repair] = fake.callsOf('chat');
    expect(repair!.text).toMatch(/title: /);
    expect(repair!.text).toMatch(/count: /);
  });

  it('fails with EXTERNAL_SERVICE_ERROR when the repaired answer is still invalid', async () => {
    fake.enqueue('chat', { json: { nope: true } }, { text: 'still not it' });
    const c = client();
    const err = await expectAppError(c.generateObject(request()), 'EXTERNAL_SERVICE_ERROR');
    expect(err.message).toMatch(/repair attempt/);
    expect(fake.callsOf('chat')).toHaveLength(2);
    expect(c.tokensUsed).toBe(300);
  });

  it('verifies a good key with a cheap authenticated call, and refuses a bad one', async () => {
    await verifyProviderKey({ provider, apiKey: FAKE_VALID_KEY, ai: ai(), log });
    expect(fake.callsOf('models', kind)).toHaveLength(1);
    await expectAppError(
      verifyProviderKey({ provider, apiKey: 'sk-wrong-key-00000000000', ai: ai(), log }),
      'AI_KEY_INVALID',
    );
  });

  it('retries a failing key verification, then answers EXTERNAL_SERVICE_ERROR', async () => {
    fake.enqueue('models', { status: 502 }, { status: 502 }, { status: 502 }, { status: 502 });
    await expectAppError(
      verifyProviderKey({ provider, apiKey: FAKE_VALID_KEY, ai: ai(), log }),
      'EXTERNAL_SERVICE_ERROR',
    );
    expect(fake.callsOf('models')).toHaveLength(4);
  });

  it('never writes the key into a log line', async () => {
    fake.enqueue('chat', { status: 500 }, { status: 401 });
    await expectAppError(client().generateObject(request()), 'AI_KEY_INVALID');
    await verifyProviderKey({ provider, apiKey: 'sk-wrong-key-00000000000', ai: ai(), log }).catch(() => {});
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect(line).not.toContain(FAKE_VALID_KEY);
      expect(line).not.toContain('sk-wrong-key-00000000000');
    }
  });
});

describe('embeddings', () => {
  it.each([
    ['OPENAI', 'openai'],
    ['GEMINI', 'gemini'],
  ] as const)('%s embeds several texts in one call', async (provider, kind) => {
    const c = createAiClient({ provider, model: null, apiKey: FAKE_VALID_KEY, ai: ai(), log });
    const vectors = await c.embed(['reset your password', 'invite a teammate']);
    expect(vectors).toHaveLength(2);
    expect(vectors[0]).toHaveLength(32);
    expect(vectors[0]).not.toEqual(vectors[1]);
    expect(fake.callsOf('embed', kind)).toHaveLength(1);
  });

  it('retries an embedding call that got a 429', async () => {
    fake.enqueue('embed', { status: 429, headers: { 'retry-after-ms': '20' } });
    const c = createAiClient({ provider: 'OPENAI', model: null, apiKey: FAKE_VALID_KEY, ai: ai(), log });
    await expect(c.embed(['x'])).resolves.toHaveLength(1);
    expect(fake.callsOf('embed')).toHaveLength(2);
    expect(c.tokensUsed).toBe(5);
  });

  it('Anthropic offers none', () => {
    const c = createAiClient({ provider: 'CLAUDE', model: null, apiKey: FAKE_VALID_KEY, ai: ai(), log });
    expect(c.embeddingModel).toBeNull();
  });
});
