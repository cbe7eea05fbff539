import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/helpers/config.js';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.js';
import { buildApp } from '../../app.js';
import { assembleRegistries, createDeps } from '../../deps.js';
import { allModules } from '../index.js';
import { checkEffectOrder, type EventEffect } from './effect.js';

const effect = (name: string, runsAfter?: string[]): EventEffect => ({
  name,
  ...(runsAfter ? { runsAfter } : {}),
  apply: async () => {},
});

describe('event effects: order is data', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(() => db.close());

  it('runs the modules’ effects in the order of modules/index.ts', () => {
    const { effects } = assembleRegistries(allModules);
    expect(effects.map((e) => e.name)).toEqual([
      'end-user-activity',
      'delivery-exposures',
      'analytics-rollups',
      'webhooks',
      'survey-responses',
      'target-lookups',
      'experiment-conversions',
      'journeys',
    ]);
    expect(() => checkEffectOrder(effects)).not.toThrow();
  });

  it('refuses an effect listed before one it runs after, naming both', () => {
    expect(() =>
      checkEffectOrder([effect('survey-responses', ['end-user-activity']), effect('end-user-activity')]),
    ).toThrow(/survey-responses must run after end-user-activity/);
  });

  it('refuses an effect that runs after one nobody contributes, and a name used twice', () => {
    expect(() => checkEffectOrder([effect('a', ['missing'])])).toThrow(
      /runs after missing, which no module contributes/,
    );
    expect(() => checkEffectOrder([effect('a'), effect('a')])).toThrow(/registered twice/);
  });

  it('refuses to build an app whose effects are misordered', async () => {
    const endUsersLast = [
      ...allModules.filter((m) => m.name !== 'end-users'),
      allModules.find((m) => m.name === 'end-users')!,
    ];
    const deps = createDeps(testConfig(), db.handle, { modules: endUsersLast });
    try {
      await expect(buildApp(deps)).rejects.toThrow(/delivery-exposures must run after end-user-activity/);
    } finally {
      await deps.close();
    }
  });
});
