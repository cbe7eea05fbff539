import { and, count, desc, eq, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import {
  analyticsUserDays,
  endUserItemStates,
  endUserServes,
  endUsers,
  experimentAssignments,
  journeyEnrollments,
  npsResponses,
  type PrivacyDeletionStatus,
  privacyDeletions,
  surveyResponses,
  webhookDeliveries,
} from '../../db/schema/index.js';
import { listPage, type PageRequest } from '../../platform/pagination.js';

/**
 * The privacy module's queries: its deletion requests, and the end user's rows in the tables of
 * the modules that keep some. Erasing reaches those tables from here (as pricing's usage counts
 * do), in the one transaction of the job, so the whole erasure commits or nothing does; the
 * catalog test (privacy.test.ts) fails when a table with an end-user column is not erased here.
 * The event log's bodies are the events module's (`eraseEventsOf`).
 */

const d = privacyDeletions;

const publicColumns = {
  id: d.id,
  userId: d.externalUserId,
  status: d.status,
  attempts: d.attempts,
  removed: d.removed,
  lastError: d.lastError,
  completedAt: d.completedAt,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
};

export async function insertDeletion(
  exec: Executor,
  row: { id: string; tenantId: string; userId: string; requestedBy: string | null; now: Date },
) {
  const [created] = await exec
    .insert(d)
    .values({
      id: row.id,
      tenantId: row.tenantId,
      externalUserId: row.userId,
      requestedBy: row.requestedBy,
      createdAt: row.now,
      updatedAt: row.now,
    })
    .returning(publicColumns);
  return created!;
}

export async function findDeletion(exec: Executor, tenantId: string, id: string) {
  const [row] = await exec
    .select(publicColumns)
    .from(d)
    .where(and(eq(d.tenantId, tenantId), eq(d.id, id)))
    .limit(1);
  return row;
}

export function listDeletionsPage(exec: Executor, tenantId: string, page: PageRequest) {
  const where = eq(d.tenantId, tenantId);
  return listPage(
    exec.select(publicColumns).from(d).where(where).orderBy(desc(d.createdAt), desc(d.id)),
    exec.select({ n: count() }).from(d).where(where),
    page,
  );
}

export interface ClaimedDeletion {
  id: string;
  tenantId: string;
  userId: string;
  attempts: number;
  leaseUntil: Date;
}

/**
 * Claims the oldest due request: pending, or running with its lease run out (its worker died).
 * The attempt is counted at the claim; another worker skips a row being claimed.
 */
export async function claimDueDeletion(
  exec: Executor,
  now: Date,
  leaseUntil: Date,
): Promise<ClaimedDeletion | undefined> {
  const due = exec
    .select({ id: d.id })
    .from(d)
    .where(and(inArray(d.status, ['pending', 'running']), or(isNull(d.leaseUntil), lt(d.leaseUntil, now))))
    .orderBy(d.createdAt, d.id)
    .limit(1)
    .for('update', { skipLocked: true });
  const [row] = await exec
    .update(d)
    .set({ status: 'running', attempts: sql`${d.attempts} + 1`, leaseUntil, updatedAt: now })
    .where(inArray(d.id, due))
    .returning({
      id: d.id,
      tenantId: d.tenantId,
      userId: d.externalUserId,
      attempts: d.attempts,
      leaseUntil: d.leaseUntil,
    });
  return row as ClaimedDeletion | undefined;
}

/** Ends the claim `c` (only while it is still that claim's); false when another took it over. */
export async function finishDeletion(
  exec: Executor,
  c: ClaimedDeletion,
  outcome: {
    status: PrivacyDeletionStatus;
    removed?: Record<string, number>;
    lastError: string | null;
    now: Date;
  },
): Promise<boolean> {
  const rows = await exec
    .update(d)
    .set({
      status: outcome.status,
      removed: outcome.removed,
      lastError: outcome.lastError,
      leaseUntil: null,
      completedAt: outcome.status === 'completed' ? outcome.now : null,
      updatedAt: outcome.now,
    })
    .where(and(eq(d.id, c.id), eq(d.status, 'running'), eq(d.leaseUntil, c.leaseUntil)))
    .returning({ id: d.id });
  return rows.length > 0;
}

/** The end user rows of a userId: the identified one, and anonymous-only rows of its anonymous id. */
export async function findEndUsersOf(exec: Executor, tenantId: string, userId: string) {
  const identified = await exec
    .select({ id: endUsers.id, anonymousId: endUsers.anonymousId })
    .from(endUsers)
    .where(and(eq(endUsers.tenantId, tenantId), eq(endUsers.externalId, userId)));
  const anonymousIds = identified.flatMap((r) => (r.anonymousId ? [r.anonymousId] : []));
  const anonymous =
    anonymousIds.length === 0
      ? []
      : await exec
          .select({ id: endUsers.id })
          .from(endUsers)
          .where(
            and(
              eq(endUsers.tenantId, tenantId),
              isNull(endUsers.externalId),
              inArray(endUsers.anonymousId, anonymousIds),
            ),
          );
  return { ids: [...identified, ...anonymous].map((r) => r.id), anonymousIds };
}

/** The analytics keys of the user (analytics `keys.ts`: `u:` a userId, `a:` an anonymous id). */
const userKeysOf = (userId: string, anonymousIds: readonly string[]) => [
  `u:${userId}`,
  ...anonymousIds.map((a) => `a:${a}`),
];

/** Webhook messages about the user (their `data.userId`, or its anonymous id with no userId). */
const deliveriesAbout = (tenantId: string, userId: string, anonymousIds: readonly string[]) => {
  const data = sql`(${webhookDeliveries.payload}::jsonb -> 'data')`;
  return sql`${webhookDeliveries.tenantId} = ${tenantId} and ${webhookDeliveries.eventType} <> 'end_user.deleted'
    and (${data} ->> 'userId' = ${userId}
      or (${data} ->> 'userId' is null and ${data} ->> 'anonymousId' = any(${sql.param([...anonymousIds])}::text[])))`;
};

/**
 * Erases the end user's rows on `tx`, table by table; returns the rows removed per table. The
 * analytics activity days are kept, re-keyed under a random key: they are anonymous counts
 * (docs/privacy.md, "What is kept").
 */
export async function eraseEndUserRows(
  tx: Executor,
  tenantId: string,
  who: { userId: string; endUserIds: string[]; anonymousIds: string[] },
): Promise<Record<string, number>> {
  const ids = who.endUserIds;
  const n = async (rows: Promise<unknown[]>) => (await rows).length;
  const none = Promise.resolve([]);
  const removed: Record<string, number> = {};
  removed.end_user_item_states = await n(
    ids.length === 0
      ? none
      : tx
          .delete(endUserItemStates)
          .where(and(eq(endUserItemStates.tenantId, tenantId), inArray(endUserItemStates.endUserId, ids)))
          .returning({ id: endUserItemStates.itemId }),
  );
  removed.end_user_serves = await n(
    ids.length === 0
      ? none
      : tx
          .delete(endUserServes)
          .where(and(eq(endUserServes.tenantId, tenantId), inArray(endUserServes.endUserId, ids)))
          .returning({ id: endUserServes.itemId }),
  );
  removed.experiment_assignments = await n(
    ids.length === 0
      ? none
      : tx
          .delete(experimentAssignments)
          .where(
            and(eq(experimentAssignments.tenantId, tenantId), inArray(experimentAssignments.endUserId, ids)),
          )
          .returning({ id: experimentAssignments.experimentId }),
  );
  removed.journey_enrollments = await n(
    ids.length === 0
      ? none
      : tx
          .delete(journeyEnrollments)
          .where(and(eq(journeyEnrollments.tenantId, tenantId), inArray(journeyEnrollments.endUserId, ids)))
          .returning({ id: journeyEnrollments.id }),
  );
  removed.survey_responses = await n(
    ids.length === 0
      ? none
      : tx
          .delete(surveyResponses)
          .where(and(eq(surveyResponses.tenantId, tenantId), inArray(surveyResponses.endUserId, ids)))
          .returning({ id: surveyResponses.id }),
  );
  removed.nps_responses = await n(
    ids.length === 0
      ? none
      : tx
          .delete(npsResponses)
          .where(and(eq(npsResponses.tenantId, tenantId), inArray(npsResponses.endUserId, ids)))
          .returning({ id: npsResponses.id }),
  );
  removed.end_users = await n(
    ids.length === 0
      ? none
      : tx
          .delete(endUsers)
          .where(and(eq(endUsers.tenantId, tenantId), inArray(endUsers.id, ids)))
          .returning({ id: endUsers.id }),
  );
  removed.analytics_user_days = await n(
    tx
      .update(analyticsUserDays)
      .set({ userKey: sql`'erased:' || gen_random_uuid()` })
      .where(
        and(
          eq(analyticsUserDays.tenantId, tenantId),
          inArray(analyticsUserDays.userKey, userKeysOf(who.userId, who.anonymousIds)),
        ),
      )
      .returning({ id: analyticsUserDays.scope }),
  );
  removed.webhook_deliveries = await n(
    tx
      .delete(webhookDeliveries)
      .where(deliveriesAbout(tenantId, who.userId, who.anonymousIds))
      .returning({ id: webhookDeliveries.id }),
  );
  return removed;
}

/** Everything stored about the end user outside the event log, table by table. */
export async function exportEndUserRows(
  exec: Executor,
  tenantId: string,
  who: { userId: string; endUserIds: string[]; anonymousIds: string[] },
) {
  const ids = who.endUserIds.length === 0 ? ['00000000-0000-0000-0000-000000000000'] : who.endUserIds;
  const [users, itemStates, serves, assignments, enrollments, surveys, nps, days, deliveries] =
    await Promise.all([
      exec
        .select()
        .from(endUsers)
        .where(and(eq(endUsers.tenantId, tenantId), inArray(endUsers.id, ids))),
      exec
        .select()
        .from(endUserItemStates)
        .where(and(eq(endUserItemStates.tenantId, tenantId), inArray(endUserItemStates.endUserId, ids))),
      exec
        .select()
        .from(endUserServes)
        .where(and(eq(endUserServes.tenantId, tenantId), inArray(endUserServes.endUserId, ids))),
      exec
        .select()
        .from(experimentAssignments)
        .where(
          and(eq(experimentAssignments.tenantId, tenantId), inArray(experimentAssignments.endUserId, ids)),
        ),
      exec
        .select()
        .from(journeyEnrollments)
        .where(and(eq(journeyEnrollments.tenantId, tenantId), inArray(journeyEnrollments.endUserId, ids))),
      exec
        .select()
        .from(surveyResponses)
        .where(and(eq(surveyResponses.tenantId, tenantId), inArray(surveyResponses.endUserId, ids))),
      exec
        .select()
        .from(npsResponses)
        .where(and(eq(npsResponses.tenantId, tenantId), inArray(npsResponses.endUserId, ids))),
      exec
        .select({
          scope: analyticsUserDays.scope,
          origin: analyticsUserDays.origin,
          days: analyticsUserDays.days,
        })
        .from(analyticsUserDays)
        .where(
          and(
            eq(analyticsUserDays.tenantId, tenantId),
            inArray(analyticsUserDays.userKey, userKeysOf(who.userId, who.anonymousIds)),
          ),
        ),
      exec
        .select({
          id: webhookDeliveries.id,
          eventType: webhookDeliveries.eventType,
          payload: webhookDeliveries.payload,
          createdAt: webhookDeliveries.createdAt,
        })
        .from(webhookDeliveries)
        .where(deliveriesAbout(tenantId, who.userId, who.anonymousIds)),
    ]);
  return {
    endUsers: users,
    itemStates,
    serves,
    experimentAssignments: assignments,
    journeyEnrollments: enrollments,
    surveyResponses: surveys,
    npsResponses: nps,
    activityDays: days,
    webhookMessages: deliveries,
  };
}
