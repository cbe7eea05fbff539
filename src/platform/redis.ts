import { EventEmitter } from 'node:events';
import { Redis } from 'ioredis';

export type { Redis };

export function connectRedis(url: string, opts: { subscriber?: boolean } = {}): Redis {
  const redis = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    // Commands issued in the same event-loop turn (rate-limit hits of concurrent requests) go in one write.
    enableAutoPipelining: !opts.subscriber,
    // A subscriber connection may not run the INFO ready check once it has subscribed.
    enableReadyCheck: !opts.subscriber,
  });
  // Connection errors are retried by ioredis; without a listener they would crash the process.
  redis.on('error', () => {});
  return redis;
}

/**
 * Cache invalidation across instances. Local subscribers always hear a publish at once; with
 * Redis, every other instance hears it through pub/sub too.
 */
export interface InvalidationBus {
  /** Never rejects: callers publish after their change committed, so a Redis outage is logged, not answered. */
  publish(channel: string, key: string): Promise<void>;
  subscribe(channel: string, handler: (key: string) => void): void;
  close(): Promise<void>;
}

export function createInvalidationBus(
  redisUrl?: string,
  keyPrefix = 'guidance:',
  log?: { warn(obj: object, msg: string): void },
): InvalidationBus {
  const PREFIX = `${keyPrefix}invalidate:`;
  const local = new EventEmitter();
  local.setMaxListeners(0);
  if (!redisUrl) {
    return {
      async publish(channel, key) {
        local.emit(channel, key);
      },
      subscribe(channel, handler) {
        local.on(channel, handler);
      },
      async close() {
        local.removeAllListeners();
      },
    };
  }
  const pub = connectRedis(redisUrl);
  const sub = connectRedis(redisUrl, { subscriber: true });
  const origin = Math.random().toString(36).slice(2);
  const subscribed = new Set<string>();
  sub.on('message', (fullChannel: string, message: string) => {
    const sep = message.indexOf(':');
    if (message.slice(0, sep) === origin) return; // our own publish was delivered locally already
    local.emit(fullChannel.slice(PREFIX.length), message.slice(sep + 1));
  });
  return {
    async publish(channel, key) {
      local.emit(channel, key);
      // Other instances still drop the entry when its TTL ends.
      await pub.publish(PREFIX + channel, `${origin}:${key}`).catch((err: Error) => {
        log?.warn({ err: err.message, channel, key }, 'invalidation not published to other instances');
      });
    },
    subscribe(channel, handler) {
      local.on(channel, handler);
      if (!subscribed.has(channel)) {
        subscribed.add(channel);
        // ioredis subscribes again by itself after a reconnect; this only fails when the
        // connection is closed meanwhile (shutdown), which must not become an unhandled rejection.
        sub.subscribe(PREFIX + channel).catch((err: Error) => {
          log?.warn({ err: err.message, channel }, 'invalidation channel not subscribed');
        });
      }
    },
    async close() {
      local.removeAllListeners();
      sub.disconnect();
      pub.disconnect();
    },
  };
}
