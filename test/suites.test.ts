import { describe, expect, it } from 'vitest';
import { databaseFreeSuites, isolatedSuites } from './suites.js';

describe('databaseFreeSuites (what a PostgreSQL run does not repeat)', () => {
  const unit = databaseFreeSuites();

  it('holds pure suites', () => {
    expect(unit).toContain('src/modules/delivery/engine/policy.test.ts');
    expect(unit).toContain('packages/sdk/src/queue.test.ts');
    expect(unit).toContain('test/suites.test.ts');
  });

  it('leaves out every suite that reaches a database, directly or through a helper', () => {
    for (const bound of [
      'src/modules/versions/versions.test.ts', // createTestApp
      'src/modules/ai/minimal-answers.test.ts', // createAiTestApp (test/helpers/ai.ts → app.ts)
      'test/helpers/database.test.ts', // a test database
      'test/journeys-instances.test.ts', // PostgreSQL only
    ])
      expect(unit).not.toContain(bound);
  });
});

describe('isolatedSuites (database-bound suites that keep a module graph of their own)', () => {
  it('holds the suites that mock a module, and no unit suite', () => {
    const isolated = isolatedSuites();
    expect(isolated).toContain('src/modules/auth/auth.test.ts'); // vi.mock of platform/crypto
    expect(isolated).not.toContain('src/modules/versions/versions.test.ts');
    const unit = new Set(databaseFreeSuites());
    expect(isolated.filter((f) => unit.has(f))).toEqual([]);
  });
});
