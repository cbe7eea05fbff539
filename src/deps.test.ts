import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../test/helpers/config.js';
import { createTestDatabase, type TestDatabase } from '../test/helpers/database.js';
import { createDeps, type ModuleManifest } from './deps.js';
import { allModules } from './modules/index.js';

describe('deps: per-app module state', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('makes each module’s state with the deps, one per app', async () => {
    const a = createDeps(testConfig(), db.handle, { modules: allModules });
    const b = createDeps(testConfig(), db.handle, { modules: allModules });
    try {
      expect(a.state.events).toBeDefined();
      expect(a.state.events).not.toBe(b.state.events);
      expect(a.state.events!.memos).not.toBe(b.state.events!.memos);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('refuses two modules that make the same state', () => {
    const events = allModules.find((m) => m.name === 'events')!;
    const copycat: ModuleManifest = { name: 'copycat', state: { events: events.state!.events! } };
    expect(() => createDeps(testConfig(), db.handle, { modules: [...allModules, copycat] })).toThrow(
      /module copycat makes state events, as another module does/,
    );
  });
});
