import { and, type Column, eq, gt, isNull, or, type SQL } from 'drizzle-orm';
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
