import { describe, expect, it } from 'vitest';
import { databaseFreeSuites } from './suites.js';

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
