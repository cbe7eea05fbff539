import { Redis } from 'ioredis';

export type { Redis };

/** Redis holds the shared rate-limit counters (cache invalidation goes through the database: change-feed.ts). */
export function connectRedis(url: string): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    // Commands issued in the same event-loop turn (rate-limit hits of concurrent requests) go in one write.
    enableAutoPipelining: true,
  });
  // Connection errors are retried by ioredis; without a listener they would crash the process.
  redis.on('error', () => {});
  return redis;
}
