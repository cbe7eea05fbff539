import type { Executor } from '../../db/client.js';
import type { ServiceCtx } from '../../platform/context.js';
import { AppError, invalidTransition, notFound, validationError } from '../../platform/errors.js';
import { enrollRefusal } from './engine/triggers.js';
import { findJourney, journeyMissing } from './records.js';
import { lockAndReadPrevious, pairKey, ruleContextFor, startEnrollment } from './runtime/enroll.js';
import { graphsOf, versionKey } from './runtime/graphs.js';
import { persist } from './runtime/persist.js';
import type { EnrollInput, ListEnrollmentsQuery } from './schemas.js';
import { findEndUserOf } from './store/end-users.js';
import { type EnrollmentWithEndUser, findEnrollment, listEnrollmentsPage } from './store/enrollments.js';

const toEnrollment = (r: EnrollmentWithEndUser) => ({
  id: r.id,
  journeyId: r.journeyId,
  endUserId: r.endUserId,
  status: r.status as 'in_progress',
  currentNodeId: r.currentNodeId,
  enrolledAt: r.enrolledAt,
  endedAt: r.endedAt,
  goalReachedAt: r.goalReachedAt,
  endUser: {
    id: r.endUserId,
    userId: r.externalId,
    anonymousId: r.anonymousId,
    traits: r.traits ?? {},
  },
});

/** `GET /api/journeys/:id/enrollments`: newest first, each with its end user `{ id, userId, anonymousId, traits }`. */
export async function listEnrollments(ctx: ServiceCtx, journeyId: string, query: ListEnrollmentsQuery) {
  const journey = await findJourney(ctx.db, ctx.tenantId, journeyId);
  if (!journey) throw journeyMissing();
  const page = await listEnrollmentsPage(ctx.db, ctx.tenantId, journey.id, query.status, query);
  return { ...page, data: page.data.map(toEnrollment) };
}

async function enrollmentById(exec: Executor, tenantId: string, id: string) {
  return toEnrollment((await findEnrollment(exec, tenantId, id))!);
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
    if (journey.status !== 'PUBLISHED' || journey.liveVersion === null)
      throw invalidTransition(journey.status, 'enroll');
    // The live version decides, not the working copy.
    const graph = (
      await graphsOf(tx, [{ tenantId: ctx.tenantId, journeyId: journey.id, version: journey.liveVersion }])
    ).get(versionKey(journey.id, journey.liveVersion))!;
    if (input.anonymousId !== undefined && !graph.allowAnonymous) {
      throw validationError([
        { path: 'anonymousId', message: 'this journey does not allow anonymous enrollment (allowAnonymous)' },
      ]);
    }
    const user = await findEndUserOf(tx, ctx.tenantId, input.userId ?? null, input.anonymousId ?? null);
    if (!user) throw notFound('End user');
    if (user.externalId === null && !graph.allowAnonymous) {
      throw validationError([
        {
          path: 'userId',
          message: 'this end user is anonymous and the journey does not allow anonymous enrollment',
        },
      ]);
    }
    const previous = await lockAndReadPrevious(tx, [{ journeyId: journey.id, endUserId: user.id }]);
    const nowMs = ctx.now.getTime();
    const refusal = enrollRefusal(graph.reentry, previous.get(pairKey(journey.id, user.id)) ?? [], nowMs);
    if (refusal !== null) {
      const messages = {
        in_progress: 'The end user is already in progress in this journey',
        already_enrolled: 'The end user was enrolled before and the journey does not allow re-entry',
        cooldown: 'The end user left this journey too recently (re-entry cooldown)',
      };
      throw new AppError('ALREADY_ENROLLED', messages[refusal], { reason: refusal });
    }
    const live = startEnrollment(
      graph,
      { tenantId: ctx.tenantId, journeyId: journey.id, endUserId: user.id },
      nowMs,
      ruleContextFor(user.externalId, user.traits),
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
