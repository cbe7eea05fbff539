/** PostgreSQL error inspection that works for both drivers and through drizzle's wrapping. */
interface PgLikeError {
  code?: string;
  constraint?: string;
  cause?: unknown;
}

function pgError(err: unknown): PgLikeError | null {
  let e = err as PgLikeError | undefined;
  for (let depth = 0; e && depth < 4; depth++) {
    if (typeof e.code === 'string' && /^[0-9A-Z]{5}$/.test(e.code)) return e;
    e = e.cause as PgLikeError | undefined;
  }
  return null;
}

/** True for a unique violation, optionally of the named constraint or index. */
export function isUniqueViolation(err: unknown, constraint?: string): boolean {
  const e = pgError(err);
  if (e?.code !== '23505') return false;
  return constraint === undefined || e.constraint === constraint;
}

export function isForeignKeyViolation(err: unknown): boolean {
  return pgError(err)?.code === '23503';
}

/** A prepared statement whose result columns changed under it (a migration altered them). */
export function isCachedPlanInvalid(err: unknown): boolean {
  const e = pgError(err) as (PgLikeError & { message?: string; routine?: string }) | null;
  if (e?.code !== '0A000') return false;
  // The routine names it whatever the server's message language; the message where it is absent.
  return (
    e.routine === 'RevalidateCachedQuery' || /cached plan must not change result type/.test(e.message ?? '')
  );
}
