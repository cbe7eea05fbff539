import { describe, expect, it } from 'vitest';
import { testRedisUrl } from '../../test/helpers/database.js';
import { randomHex } from './crypto.js';
import { createInvalidationBus } from './redis.js';

const redisUrl = testRedisUrl();

describe.skipIf(!redisUrl)('createInvalidationBus (Redis)', () => {
  it('delivers a publish to the other instances, not back to its own', async () => {
    const prefix = `test:${randomHex(4)}:`;
    const a = createInvalidationBus(redisUrl, prefix);
    const b = createInvalidationBus(redisUrl, prefix);
    try {
      const seenByA: string[] = [];
      const seenByB: string[] = [];
      a.subscribe('ch', (key) => seenByA.push(key));
      b.subscribe('ch', (key) => seenByB.push(key));
      await new Promise((r) => setTimeout(r, 100));
      await a.publish('ch', 'k1');
      await new Promise((r) => setTimeout(r, 100));
      expect(seenByA).toEqual(['k1']);
      expect(seenByB).toEqual(['k1']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('closes right after subscribing without an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const warnings: string[] = [];
      const bus = createInvalidationBus(redisUrl, `test:${randomHex(4)}:`, {
        warn: (_obj, msg) => warnings.push(msg),
      });
      bus.subscribe('ch', () => {});
      await bus.close();
      await new Promise((r) => setTimeout(r, 100));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
