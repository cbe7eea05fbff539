import { and, type Column, eq, gt, isNull, or, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { DatabaseHandle, Executor } from '../db/client.js';
import { validationError } from './errors.js';

/**
 * Rules shared by the records that have a publication window (flows, announcements):
 * `scheduledAt` (published then) and `expiresAt` (archived then).
 */

/** 400 at `expiresAt` unless the window is open-ended or ends after it starts. */
export function assertScheduleWindow(scheduledAt: Date | null, expiresAt: Date | null): void {
  if (scheduledAt && expiresAt && expiresAt.getTime() <= scheduledAt.getTime()) {
    throw validationError([{ path: 'expiresAt', message: 'expiresAt must be after scheduledAt' }]);
  }
}

/** WHERE condition: PUBLISHED and not expired at `now` (what the SDK may serve). */
export function liveAt(table: { status: Column; expiresAt: Column }, now: Date): SQL {
  return and(eq(table.status, 'PUBLISHED'), or(isNull(table.expiresAt), gt(table.expiresAt, now)))!;
}

/** A time-driven move: changes every record due at `now`, on the transaction given; returns how many. */
export type ScheduledMove = (tx: Executor, now: Date) => Promise<number>;

/**
 * A background job of time-driven moves (DECISIONS §6: publish at `scheduledAt`, archive past
 * `expiresAt`). Each move runs in its own transaction, so a move and its audit rows commit
 * together; in the order given (expiry first, so a record past both dates is archived, never
 * published). Each move is one conditional UPDATE, so any number of instances may run the job:
 * every row changes once.
 */
export function scheduledMovesJob(name: string, moves: Record<string, ScheduledMove>) {
  return {
    name,
    intervalMs: 15_000,
    async run(deps: { database: DatabaseHandle; clock: () => number; log: Logger }): Promise<void> {
      const now = new Date(deps.clock());
      const changed: Record<string, number> = {};
      let total = 0;
      for (const [label, move] of Object.entries(moves)) {
        changed[label] = await deps.database.db.transaction((tx) => move(tx, now));
        total += changed[label]!;
      }
      if (total > 0) deps.log.info({ job: name, ...changed }, 'scheduled changes applied');
    },
  };
}
