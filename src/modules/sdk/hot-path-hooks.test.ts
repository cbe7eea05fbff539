import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';

/**
 * Each hook Fastify runs costs the SDK config path about 1% of its CPU, and a response hook
 * more (bench/RESULTS.md): the hot path runs the request edge and the key check, nothing else.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** The hooks of one route, by kind, from Fastify's own route listing. */
function hooksOf(method: string, url: string): Record<string, string[]> {
  const lines = t.app.printRoutes({ includeHooks: true, commonPrefix: false }).split('\n');
  const at = lines.findIndex((l) => l.includes(`${url.slice(1)} (${method})`));
  expect(at, `${method} ${url} is listed`).toBeGreaterThan(-1);
  const hooks: Record<string, string[]> = {};
  for (const line of lines.slice(at + 1)) {
    const m = line.match(/• \((\w+)\) (\[.*\])$/);
    if (!m) break;
    hooks[m[1]!] = JSON.parse(m[2]!) as string[];
  }
  return hooks;
}

describe('hooks on the SDK hot path', () => {
  it.each([
    ['GET', '/api/sdk/config'],
    ['POST', '/api/sdk/events'],
    ['POST', '/api/sdk/identify'],
  ])('%s %s runs the request edge and the key check only: no response hook', (method, url) => {
    const hooks = hooksOf(method, url);
    expect(hooks).toEqual({ onRequest: ['anonymous()'], preValidation: ['authenticateApiKey()'] });
  });

  it('the session answer, compressed, adds compression hooks of its own', () => {
    const hooks = hooksOf('POST', '/api/sdk/session');
    expect(hooks.onRequest).toHaveLength(2);
    expect(hooks.onSend).toEqual(['onSend()']);
  });
});
