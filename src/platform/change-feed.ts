import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Logger } from 'pino';
import type { DatabaseHandle } from '../db/client.js';

/**
 * Cache invalidation, one scheme: the database announces changes. Triggers (migrations 0014 and
 * 0020) detect every change that a cache depends on, whichever code made it:
 * - what a session serves bumps the tenant's delivery version (read by every session in its one
 *   statement, so sessions never need a notification);
 * - what is cached without a read per request (SDK config, API keys) is announced with
 *   `pg_notify('guidance_changes', '<topic>:<key>')`, delivered at commit to every instance
 *   listening (this one included), which drops its entries.
 *
 * No route publishes anything. A notification lost while the listening connection was down is
 * covered by `onReset` (caches drop everything after a reconnect) and by the caches' TTLs.
 * `sync()` is a barrier: once it resolves, this instance has heard of every change committed
 * before it was called (dashboard writes await it, so the next request here sees the change).
 */
export const CHANGES_CHANNEL = 'guidance_changes';

export interface ChangeFeed {
  /** `handler(key)` for every change of `topic` (key `*`: all keys of the topic). */
  subscribe(topic: string, handler: (key: string) => void): void;
  /** Runs when notifications may have been missed (after the listener reconnects). */
  onReset(handler: () => void): void;
  /** Resolves once listening (a change committed after it is heard). */
  ready: Promise<void>;
  /** Resolves once every change committed before the call has been heard here. */
  sync(): Promise<void>;
  close(): Promise<void>;
}

export function createChangeFeed(database: DatabaseHandle, log: Logger): ChangeFeed {
  const handlers = new Map<string, ((key: string) => void)[]>();
  const resets: (() => void)[] = [];
  const dispatch = (payload: string | undefined) => {
    if (!payload) return;
    const sep = payload.indexOf(':');
    const topic = payload.slice(0, sep);
    const key = payload.slice(sep + 1);
    for (const handler of handlers.get(topic) ?? []) {
      try {
        handler(key);
      } catch (err) {
        log.error({ err, topic }, 'change handler failed');
      }
    }
  };
  const reset = () => {
    for (const handler of resets) handler();
  };
  const listener =
    database.kind === 'pglite'
      ? pgliteListener(database.raw as PGlite, dispatch)
      : postgresListener(database.raw as pg.Pool, dispatch, reset, log);
  return {
    subscribe(topic, handler) {
      handlers.set(topic, [...(handlers.get(topic) ?? []), handler]);
    },
    onReset(handler) {
      resets.push(handler);
    },
    ready: listener.ready,
    sync: listener.sync,
    close: listener.close,
  };
}

interface Listener {
  ready: Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/** PGlite delivers a committed transaction's notifications with the result of its COMMIT. */
function pgliteListener(client: PGlite, dispatch: (payload: string) => void): Listener {
  const ready = client.listen(CHANGES_CHANNEL, dispatch);
  return {
    ready: ready.then(() => undefined),
    async sync() {
      await ready;
    },
    async close() {
      const unlisten = await ready.catch(() => null);
      await unlisten?.().catch(() => {});
    },
  };
}

/** A connection of its own LISTENs (a pooled one would be handed to queries); reconnects with backoff. */
function postgresListener(
  pool: pg.Pool,
  dispatch: (payload: string | undefined) => void,
  reset: () => void,
  log: Logger,
): Listener {
  let client: pg.Client | null = null;
  let closed = false;
  let connected: Promise<pg.Client>;
  let markReady!: () => void;
  const ready = new Promise<void>((resolve) => {
    markReady = resolve;
  });

  const connect = async (attempt: number): Promise<pg.Client> => {
    const c = new pg.Client({ ...pool.options, application_name: 'guidance-change-feed' });
    c.on('notification', (msg) => dispatch(msg.payload));
    c.on('error', (err) => log.warn({ err: err.message }, 'change feed connection failed; reconnecting'));
    c.on('end', () => {
      if (closed || client !== c) return;
      client = null;
      connected = reconnect(1);
    });
    try {
      await c.connect();
      await c.query(`listen ${CHANGES_CHANNEL}`);
    } catch (err) {
      await c.end().catch(() => {});
      if (closed) throw err;
      log.warn({ err: (err as Error).message, attempt }, 'change feed could not listen; retrying');
      await new Promise((r) => setTimeout(r, Math.min(5_000, 100 * 2 ** attempt)).unref());
      return connect(attempt + 1);
    }
    client = c;
    return c;
  };
  const reconnect = async (attempt: number) => {
    const c = await connect(attempt);
    // Changes committed while nobody listened were missed: every cache starts afresh.
    reset();
    return c;
  };
  connected = connect(0);
  connected.then(
    () => markReady(),
    () => {},
  );

  return {
    ready,
    async sync() {
      // A query on the listening connection returns after every notification committed before
      // it has been delivered on that connection (PostgreSQL sends them first).
      const c = await connected;
      await c.query('select 1');
    },
    async close() {
      closed = true;
      const c = client ?? (await connected.catch(() => null));
      await c?.end().catch(() => {});
    },
  };
}
