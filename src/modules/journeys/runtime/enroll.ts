import type { Executor } from '../../../db/client.js';
import type { RuleContext } from '../../../engine/rules.js';
import { newId } from '../../../platform/ids.js';
import type { CompiledJourney } from '../engine/graph.js';
import { initialEnrollmentState } from '../engine/machine.js';
import { journeySettingsSchema, type Reentry } from '../engine/schemas.js';
import type { PreviousEnrollment } from '../engine/triggers.js';
import { listEnrollmentsOf, lockEnrollmentDecisions } from '../store/enrollments.js';
import { feed, type Live } from './persist.js';

/** The audience-rule context of an end user: userId (external id), role (`traits.role`), traits. */
export function ruleContextFor(
  externalId: string | null,
  traits: Record<string, unknown> | null,
): RuleContext {
  const t = traits ?? {};
  const ctx: RuleContext = { traits: t };
  if (externalId) ctx.userId = externalId;
  if (typeof t.role === 'string') ctx.role = t.role;
  return ctx;
}

/** A stored journey's re-entry mode (`settings.reentry`, default never). */
export function reentryOf(settings: unknown): Reentry {
  const parsed = journeySettingsSchema.safeParse(settings ?? {});
  return parsed.success ? parsed.data.reentry : 'never';
}

/**
 * A new enrollment, entered (the machine's `enter`): not stored yet. It runs `journey`'s version
 * (runtime/graphs.ts) from now on.
 */
export function startEnrollment(
  journey: CompiledJourney & { version?: number },
  who: { tenantId: string; journeyId: string; endUserId: string },
  nowMs: number,
  context: RuleContext,
  id: string = newId(),
): Live {
  const live: Live = {
    ref: { id, ...who, version: journey.version ?? null, enrolledAt: nowMs, isNew: true },
    state: initialEnrollmentState(),
    stored: null,
    effects: [],
    changed: false,
  };
  feed(live, journey, { type: 'enter' }, { nowMs, context });
  return live;
}

export const pairKey = (journeyId: string, endUserId: string) => `${journeyId}:${endUserId}`;

/**
 * Serializes enrollment decisions per (journey, end user) across transactions and instances:
 * transaction-scoped advisory locks, taken in key order in one statement. Then reads every
 * earlier enrollment of those pairs (re-entry), committed before the locks were granted.
 */
export async function lockAndReadPrevious(
  tx: Executor,
  pairs: { journeyId: string; endUserId: string }[],
): Promise<Map<string, PreviousEnrollment[]>> {
  const out = new Map<string, PreviousEnrollment[]>();
  if (pairs.length === 0) return out;
  const unique = [...new Map(pairs.map((p) => [pairKey(p.journeyId, p.endUserId), p])).entries()].sort(
    ([a], [b]) => (a < b ? -1 : a > b ? 1 : 0),
  );
  await lockEnrollmentDecisions(
    tx,
    unique.map(([k]) => `journey:${k}`),
  );
  const rows = await listEnrollmentsOf(
    tx,
    unique.map(([, p]) => p),
  );
  for (const [k] of unique) out.set(k, []);
  for (const r of rows) {
    out.get(pairKey(r.journeyId, r.endUserId))?.push({
      status: r.status,
      enrolledAt: new Date(r.enrolledAt).getTime(),
      endedAt: r.endedAt === null ? null : new Date(r.endedAt).getTime(),
    });
  }
  return out;
}

/** What a new enrollment adds to the previous ones of its pair (re-entry within one transaction). */
export function asPrevious(live: Live): PreviousEnrollment {
  return { status: live.state.status, enrolledAt: live.ref.enrolledAt, endedAt: live.state.endedAt };
}
