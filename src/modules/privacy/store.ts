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
  return { endUserIds: [...identified, ...anonymous].map((r) => r.id), anonymousIds };
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
 * The tables that keep rows per end user (`tenant_id`, `end_user_id`), by table name: erased and
 * exported alike. (The end users themselves, their analytics days and the webhook messages about
 * them are keyed otherwise: below.)
 */
const PER_END_USER = {
  end_user_item_states: endUserItemStates,
  end_user_serves: endUserServes,
  experiment_assignments: experimentAssignments,
  journey_enrollments: journeyEnrollments,
  survey_responses: surveyResponses,
  nps_responses: npsResponses,
} as const;
type PerEndUserTable = (typeof PER_END_USER)[keyof typeof PER_END_USER];

const ofEndUsers = (table: PerEndUserTable, tenantId: string, ids: string[]) =>
  and(eq(table.tenantId, tenantId), inArray(table.endUserId, ids));
const ofTenantUsers = (tenantId: string, ids: string[]) =>
  and(eq(endUsers.tenantId, tenantId), inArray(endUsers.id, ids));
const daysOf = (tenantId: string, who: { userId: string; anonymousIds: string[] }) =>
  and(
    eq(analyticsUserDays.tenantId, tenantId),
    inArray(analyticsUserDays.userKey, userKeysOf(who.userId, who.anonymousIds)),
  );

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
  const removed: Record<string, number> = {};
  for (const [name, table] of Object.entries(PER_END_USER)) {
    removed[name] =
      ids.length === 0
        ? 0
        : (
            await tx
              .delete(table)
              .where(ofEndUsers(table, tenantId, ids))
              .returning({ one: sql`1` })
          ).length;
  }
  removed.end_users =
    ids.length === 0
      ? 0
      : (await tx.delete(endUsers).where(ofTenantUsers(tenantId, ids)).returning({ id: endUsers.id })).length;
  removed.analytics_user_days = (
    await tx
      .update(analyticsUserDays)
      .set({ userKey: sql`'erased:' || gen_random_uuid()` })
      .where(daysOf(tenantId, who))
      .returning({ one: sql`1` })
  ).length;
  removed.webhook_deliveries = (
    await tx
      .delete(webhookDeliveries)
      .where(deliveriesAbout(tenantId, who.userId, who.anonymousIds))
      .returning({ one: sql`1` })
  ).length;
  return removed;
}

/** Everything stored about the end user outside the event log, table by table. */
export async function exportEndUserRows(
  exec: Executor,
  tenantId: string,
  who: { userId: string; endUserIds: string[]; anonymousIds: string[] },
) {
  const ids = who.endUserIds;
  const rowsOf = async (table: PerEndUserTable) =>
    ids.length === 0
      ? []
      : exec
          .select()
          .from(table)
          .where(ofEndUsers(table, tenantId, ids));
  const [users, itemStates, serves, assignments, enrollments, surveys, nps, days, deliveries] =
    await Promise.all([
      ids.length === 0 ? [] : exec.select().from(endUsers).where(ofTenantUsers(tenantId, ids)),
      rowsOf(endUserItemStates),
      rowsOf(endUserServes),
      rowsOf(experimentAssignments),
      rowsOf(journeyEnrollments),
      rowsOf(surveyResponses),
      rowsOf(npsResponses),
      exec
        .select({
          scope: analyticsUserDays.scope,
          origin: analyticsUserDays.origin,
          days: analyticsUserDays.days,
        })
        .from(analyticsUserDays)
        .where(daysOf(tenantId, who)),
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
