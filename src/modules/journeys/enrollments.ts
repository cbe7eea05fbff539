import type { Executor } from '../../db/client.js';
import { jsonValue, rawQuery } from '../../db/raw.js';
import type { ServiceCtx } from '../../platform/context.js';
import { AppError, invalidTransition, notFound, validationError } from '../../platform/errors.js';
import { toList } from '../../platform/pagination.js';
import type { GoalConfig } from './engine/schemas.js';
import { enrollRefusal } from './engine/triggers.js';
import { findJourney, journeyMissing } from './records.js';
import {
  lockAndReadPrevious,
  pairKey,
  reentryOf,
  ruleContextFor,
  startEnrollment,
} from './runtime/enroll.js';
import { graphsOf } from './runtime/graphs.js';
import { persist } from './runtime/store.js';
import type { EnrollInput, ListEnrollmentsQuery } from './schemas.js';

interface EnrollmentRow {
  id: string;
  journey_id: string;
  end_user_id: string;
  status: string;
  current_node_id: string | null;
  enrolled_at: Date | string;
  ended_at: Date | string | null;
  goal_reached_at: Date | string | null;
  external_id: string | null;
  anonymous_id: string | null;
  traits: Record<string, unknown> | string | null;
}

const date = (v: Date | string | null) => (v === null ? null : new Date(v));

const toEnrollment = (r: EnrollmentRow) => ({
  id: r.id,
  journeyId: r.journey_id,
  endUserId: r.end_user_id,
  status: r.status as 'in_progress',
  currentNodeId: r.current_node_id,
  enrolledAt: new Date(r.enrolled_at),
  endedAt: date(r.ended_at),
  goalReachedAt: date(r.goal_reached_at),
  endUser: {
    id: r.end_user_id,
    userId: r.external_id,
    anonymousId: r.anonymous_id,
    traits: jsonValue<Record<string, unknown>>(r.traits) ?? {},
  },
});

const SELECT = `select e.id, e.journey_id, e.end_user_id, e.status, e.current_node_id, e.enrolled_at, e.ended_at,
    e.goal_reached_at, u.external_id, u.anonymous_id, u.traits
  from journey_enrollments e join end_users u on u.id = e.end_user_id`;

/** `GET /api/journeys/:id/enrollments`: newest first, each with its end user `{ id, userId, anonymousId, traits }`. */
export async function listEnrollments(ctx: ServiceCtx, journeyId: string, query: ListEnrollmentsQuery) {
  const journey = await findJourney(ctx.db, ctx.tenantId, journeyId);
  if (!journey) throw journeyMissing();
  const filter = query.status ? ' and e.status = $3' : '';
  const params: unknown[] = [ctx.tenantId, journey.id, ...(query.status ? [query.status] : [])];
  const offset = (query.page - 1) * query.limit;
  const rows = await rawQuery<EnrollmentRow>(
    ctx.db,
    `${SELECT} where e.tenant_id = $1 and e.journey_id = $2${filter}
     order by e.enrolled_at desc, e.id desc limit ${query.limit} offset ${offset}`,
    params,
  );
  const [total] = await rawQuery<{ n: string }>(
    ctx.db,
    `select count(*) as n from journey_enrollments e where e.tenant_id = $1 and e.journey_id = $2${filter}`,
    params,
  );
  return toList(rows.map(toEnrollment), query, Number(total?.n ?? 0));
}

async function enrollmentById(exec: Executor, tenantId: string, id: string) {
  const [row] = await rawQuery<EnrollmentRow>(exec, `${SELECT} where e.tenant_id = $1 and e.id = $2`, [
    tenantId,
    id,
  ]);
  return toEnrollment(row!);
}

/**
 * `POST /api/journeys/:id/enrollments { userId | anonymousId }`: enrolls an existing end user by
 * hand (the MANUAL trigger; any PUBLISHED journey may be entered this way). The audience is not
 * checked (an explicit choice); anonymous visitors only where the journey allows them; re-entry
 * as for every trigger (409 ALREADY_ENROLLED with the reason). The enrollment steps at once: it
 * answers waiting at its first waiting node, or already ended.
 */
export async function enrollByHand(ctx: ServiceCtx, journeyId: string, input: EnrollInput) {
  return ctx.db.transaction(async (tx) => {
    const journey = await findJourney(tx, ctx.tenantId, journeyId);
    if (!journey) throw journeyMissing();
    if (journey.status !== 'PUBLISHED') throw invalidTransition(journey.status, 'enroll');
    if (input.anonymousId !== undefined && !journey.allowAnonymous) {
      throw validationError([
        { path: 'anonymousId', message: 'this journey does not allow anonymous enrollment (allowAnonymous)' },
      ]);
    }
    const [user] = await rawQuery<{
      id: string;
      external_id: string | null;
      traits: Record<string, unknown>;
    }>(tx, 'select u.id, u.external_id, u.traits from end_user_of($1, $2, $3) u', [
      ctx.tenantId,
      input.userId ?? null,
      input.anonymousId ?? null,
    ]);
    if (!user) throw notFound('End user');
    if (user.external_id === null && !journey.allowAnonymous) {
      throw validationError([
        {
          path: 'userId',
          message: 'this end user is anonymous and the journey does not allow anonymous enrollment',
        },
      ]);
    }
    const previous = await lockAndReadPrevious(tx, [{ journeyId: journey.id, endUserId: user.id }]);
    const nowMs = ctx.now.getTime();
    const refusal = enrollRefusal(
      reentryOf(journey.settings),
      previous.get(pairKey(journey.id, user.id)) ?? [],
      nowMs,
    );
    if (refusal !== null) {
      const messages = {
        in_progress: 'The end user is already in progress in this journey',
        already_enrolled: 'The end user was enrolled before and the journey does not allow re-entry',
        cooldown: 'The end user left this journey too recently (re-entry cooldown)',
      };
      throw new AppError('ALREADY_ENROLLED', messages[refusal], { reason: refusal });
    }
    const graphs = await graphsOf(tx, [
      {
        id: journey.id,
        canvasVersion: journey.canvasVersion,
        goalConfig: journey.goalConfig as GoalConfig | null,
      },
    ]);
    const live = startEnrollment(
      graphs.get(journey.id)!,
      { tenantId: ctx.tenantId, journeyId: journey.id, endUserId: user.id },
      nowMs,
      ruleContextFor(user.external_id, user.traits),
    );
    const written = await persist(tx, [live]);
    if (written.length === 0) {
      throw new AppError('ALREADY_ENROLLED', 'The end user is already in progress in this journey', {
        reason: 'in_progress',
      });
    }
    return enrollmentById(tx, ctx.tenantId, live.ref.id);
  });
}
