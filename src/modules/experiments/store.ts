import { and, asc, count, desc, eq, ilike, inArray, ne, type SQL, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import { jsonValue, sortedByKey, sqlRows } from '../../db/raw.js';
import {
  EXPERIMENT_STATUSES,
  EXPERIMENT_TYPES,
  type ExperimentStatus,
  experimentAssignments,
  experiments,
  experimentVariants,
} from '../../db/schema/index.js';
import { bare, columnList, fixedStatement, runStatement } from '../../db/statements.js';
import { isUuid } from '../../platform/ids.js';
import { containsPattern, listPage, type PageRequest } from '../../platform/pagination.js';
import { audienceReferrers } from '../audiences/index.js';
import type { UserStateQuery } from '../delivery/index.js';

/** Every query of the experiments module: experiments, their variants and assignments. */

export { EXPERIMENT_STATUSES, EXPERIMENT_TYPES, type ExperimentStatus };
export type ExperimentRow = typeof experiments.$inferSelect;
export type VariantRow = typeof experimentVariants.$inferSelect;
type AssignmentRow = typeof experimentAssignments.$inferSelect;

const assignments = experimentAssignments;

// ---- experiments and variants -------------------------------------------------------------------

/** The tenant's experiment, or undefined (a malformed id matches nothing); `lock` holds it FOR UPDATE. */
export async function findExperiment(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<ExperimentRow | undefined> {
  if (!isUuid(id)) return undefined;
  const query = exec
    .select()
    .from(experiments)
    .where(and(eq(experiments.tenantId, tenantId), eq(experiments.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

/** Variants of several experiments in one query, grouped and in position order. */
export async function listVariantsOf(
  exec: Executor,
  tenantId: string,
  experimentIds: string[],
): Promise<Map<string, VariantRow[]>> {
  const byExperiment = new Map<string, VariantRow[]>(experimentIds.map((id) => [id, []]));
  if (experimentIds.length === 0) return byExperiment;
  const rows = await exec
    .select()
    .from(experimentVariants)
    .where(
      and(eq(experimentVariants.tenantId, tenantId), inArray(experimentVariants.experimentId, experimentIds)),
    )
    .orderBy(asc(experimentVariants.experimentId), asc(experimentVariants.position));
  for (const row of rows) byExperiment.get(row.experimentId)?.push(row);
  return byExperiment;
}

// Tenant first: the results index (tenant, experiment, …) answers it with an index-only scan.
// The outer experiment is named by hand: drizzle prints the outer table's columns bare inside a
// subquery of a select list.
const assignmentCount = sql<number>`(select count(*) from ${assignments}
  where ${assignments.tenantId} = "experiments"."tenant_id" and ${assignments.experimentId} = "experiments"."id")`;

/** A page of the tenant's experiments, newest first, each with its number of assignments. */
export async function listExperimentsPage(
  exec: Executor,
  tenantId: string,
  query: PageRequest & { status?: ExperimentStatus | undefined; search?: string | undefined },
) {
  const where: SQL[] = [eq(experiments.tenantId, tenantId)];
  // Archived experiments are soft-deleted: hidden unless asked for by status.
  where.push(query.status ? eq(experiments.status, query.status) : ne(experiments.status, 'archived'));
  if (query.search) where.push(ilike(experiments.name, containsPattern(query.search)));
  return listPage(
    exec
      .select({ row: experiments, assignments: assignmentCount.mapWith(Number) })
      .from(experiments)
      .where(and(...where))
      .orderBy(desc(experiments.createdAt), desc(experiments.id)),
    exec
      .select({ n: count() })
      .from(experiments)
      .where(and(...where)),
    query,
  );
}

export async function insertExperiment(
  exec: Executor,
  row: typeof experiments.$inferInsert,
): Promise<ExperimentRow> {
  const [inserted] = await exec.insert(experiments).values(row).returning();
  return inserted!;
}

export async function insertVariants(exec: Executor, rows: (typeof experimentVariants.$inferInsert)[]) {
  if (rows.length > 0) await exec.insert(experimentVariants).values(rows);
}

export async function deleteVariants(exec: Executor, tenantId: string, experimentId: string) {
  await exec
    .delete(experimentVariants)
    .where(and(eq(experimentVariants.tenantId, tenantId), eq(experimentVariants.experimentId, experimentId)));
}

export async function updateExperiment(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<typeof experiments.$inferInsert>,
): Promise<ExperimentRow> {
  const [row] = await exec
    .update(experiments)
    .set(set)
    .where(and(eq(experiments.tenantId, tenantId), eq(experiments.id, id)))
    .returning();
  return row!;
}

/** Running experiments with a variant serving `flowId` → stopped; answers them. */
export async function stopRunningExperimentsServing(
  exec: Executor,
  tenantId: string,
  flowId: string,
  now: Date,
): Promise<{ id: string; name: string }[]> {
  return exec
    .update(experiments)
    .set({ status: 'stopped', updatedAt: now })
    .where(
      and(
        eq(experiments.tenantId, tenantId),
        eq(experiments.status, 'running'),
        sql`exists (select 1 from ${experimentVariants} where ${experimentVariants.experimentId} = ${experiments.id}
                    and ${experimentVariants.tenantId} = ${tenantId} and ${experimentVariants.flowId} = ${flowId})`,
      ),
    )
    .returning({ id: experiments.id, name: experiments.name });
}

/**
 * Running or stopped experiments whose `endDate` has passed → completed, one conditional UPDATE
 * over every tenant (any number of instances: each moves once). Answers each with its old status.
 */
export async function completeEndedExperimentRows(
  exec: Executor,
  now: Date,
): Promise<{ id: string; tenantId: string; name: string; from: ExperimentStatus }[]> {
  const due = alias(experiments, 'due');
  const at = sql`${now.toISOString()}::timestamptz`;
  return sqlRows(
    exec,
    sql`update ${experiments} set ${bare(experiments.status)} = 'completed', ${bare(experiments.updatedAt)} = ${at}
     from (select ${due.id}, ${due.status} from ${experiments} ${due}
           where ${due.status} in ('running', 'stopped') and ${due.endDate} is not null and ${due.endDate} <= ${at}
           order by ${due.id} for update) ${due}
     where ${experiments.id} = ${due.id}
     returning ${experiments.id} as "id", ${experiments.tenantId} as "tenantId", ${experiments.name} as "name",
       ${due.status} as "from"`,
  );
}

/** What an audience is referenced by, for the audiences module. */
export const findExperimentsTargeting = audienceReferrers(experiments, {
  type: 'experiment',
  archived: 'archived',
});

// ---- delivery -----------------------------------------------------------------------------------

export interface RunningExperimentRow {
  id: string;
  seed: string;
  audienceId: string | null;
  endDate: Date | null;
  variants: { id: string; flowId: string | null; bp: number }[];
}

/** The tenant's running experiments with their variants (in position order), for the delivery snapshot. */
export async function listRunningExperiments(
  tx: Executor,
  tenantId: string,
): Promise<RunningExperimentRow[]> {
  const v = experimentVariants;
  const rows = await tx
    .select({
      id: experiments.id,
      seed: experiments.seed,
      audienceId: experiments.audienceId,
      endDate: experiments.endDate,
      variants: sql<RunningExperimentRow['variants'] | string>`coalesce((select jsonb_agg(jsonb_build_object(
          'id', ${v.id}, 'flowId', ${v.flowId}, 'bp', ${v.splitBasisPoints}) order by ${v.position})
        from ${v} where ${v.tenantId} = "experiments"."tenant_id" and ${v.experimentId} = "experiments"."id"), '[]')`,
    })
    .from(experiments)
    .where(and(eq(experiments.tenantId, tenantId), eq(experiments.status, 'running')))
    .orderBy(asc(experiments.startDate), asc(experiments.id));
  return rows.map((r) => ({ ...r, variants: jsonValue<RunningExperimentRow['variants']>(r.variants) ?? [] }));
}

/** An end user's assignments: experiment id → variant id. */
export type Assignments = Record<string, string>;

/**
 * The session lookup's column of the user's assignments (a jsonb object of experiment id →
 * variant id; a handful per user), read without a schema: it is on every session.
 */
export const assignmentsOfUser: UserStateQuery<Assignments> = {
  sql: (tenant, endUser) =>
    sql`(select jsonb_object_agg(${assignments.experimentId}, ${assignments.variantId}) from ${assignments}
      where ${assignments.endUserId} = ${endUser} and ${assignments.tenantId} = ${tenant})`,
  parse(value) {
    const parsed = value === null ? null : jsonValue<unknown>(value);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: Assignments = {};
    for (const [k, v] of Object.entries(parsed as Record<string, unknown>))
      if (typeof v === 'string') out[k] = v;
    return out;
  },
};

export type NewAssignmentRow = Pick<
  AssignmentRow,
  'experimentId' | 'endUserId' | 'tenantId' | 'variantId'
> & {
  assignedAt: number;
};

/**
 * Raw: unnest of column arrays (one statement for a whole group of sessions), and only into
 * experiments still running at that moment.
 */
const insertAssignmentsStatement = fixedStatement<
  never,
  { experimentIds: string[]; endUserIds: string[]; tenantIds: string[]; variantIds: string[]; at: string[] }
>(sql`insert into ${assignments} ${columnList([
  assignments.experimentId,
  assignments.endUserId,
  assignments.tenantId,
  assignments.variantId,
  assignments.assignedAt,
])}
  select x.experiment_id, x.end_user_id, x.tenant_id, x.variant_id, x.at
  from unnest(${sql.placeholder('experimentIds')}::uuid[], ${sql.placeholder('endUserIds')}::uuid[],
              ${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('variantIds')}::uuid[],
              ${sql.placeholder('at')}::timestamptz[])
    with ordinality as x (experiment_id, end_user_id, tenant_id, variant_id, at, i)
  join ${experiments} on ${experiments.id} = x.experiment_id and ${experiments.tenantId} = x.tenant_id
    and ${experiments.status} = 'running'
  order by x.i
  on conflict do nothing`);

/**
 * Stores first assignments (several tenants' at once), once per (experiment, end user), in key
 * order: two instances inserting overlapping sets wait for each other instead of deadlocking.
 * ON CONFLICT DO NOTHING: an assignment stored meanwhile stands.
 */
export async function insertAssignments(exec: Executor, rows: NewAssignmentRow[]): Promise<void> {
  if (rows.length === 0) return;
  const sorted = sortedByKey(new Map(rows.map((r) => [`${r.experimentId}:${r.endUserId}`, r])));
  await runStatement(exec, insertAssignmentsStatement, {
    experimentIds: sorted.map((r) => r.experimentId),
    endUserIds: sorted.map((r) => r.endUserId),
    tenantIds: sorted.map((r) => r.tenantId),
    variantIds: sorted.map((r) => r.variantId),
    at: sorted.map((r) => new Date(r.assignedAt).toISOString()),
  });
}

export interface ConversionRow {
  tenantId: string;
  experimentId: string;
  /** The event's userId and anonymousId: the end user is `end_user_of` them. */
  ext: string | null;
  anon: string | null;
  /** The variant the event names (null: any). */
  variantId: string | null;
  /** The event's time (ISO). */
  at: string;
}

/**
 * Raw: an event effect's one UPDATE for a whole chunk (unnest of column arrays, the end user
 * resolved by `end_user_of`); rows locked in key order.
 */
const markConversionsStatement = (() => {
  const a2 = alias(assignments, 'a2');
  return fixedStatement<
    never,
    {
      tenantIds: string[];
      experimentIds: string[];
      exts: (string | null)[];
      anons: (string | null)[];
      variantIds: (string | null)[];
      at: string[];
    }
  >(sql`update ${assignments} set ${bare(assignments.convertedAt)} = greatest(c.at, ${assignments.assignedAt})
   from (
     select ${a2.experimentId}, ${a2.endUserId}, min(x.at) as at
     from unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('experimentIds')}::uuid[],
                 ${sql.placeholder('exts')}::text[], ${sql.placeholder('anons')}::text[],
                 ${sql.placeholder('variantIds')}::uuid[], ${sql.placeholder('at')}::timestamptz[])
       as x (tenant_id, experiment_id, ext, anon, variant_id, at)
     cross join lateral end_user_of(x.tenant_id, x.ext, x.anon) u
     join ${assignments} ${a2}
       on ${a2.experimentId} = x.experiment_id and ${a2.endUserId} = u.id and ${a2.tenantId} = x.tenant_id
     where ${a2.convertedAt} is null and (x.variant_id is null or x.variant_id = ${a2.variantId})
     group by ${a2.experimentId}, ${a2.endUserId}
     order by ${a2.experimentId}, ${a2.endUserId}
   ) c
   where ${assignments.experimentId} = c.experiment_id and ${assignments.endUserId} = c.end_user_id
     and ${assignments.convertedAt} is null`);
})();

/**
 * Sets `converted_at` of the assignments the rows convert (not yet converted, variant agreeing):
 * the earliest event's time, never before the assignment.
 */
export async function markConversions(tx: Executor, rows: ConversionRow[]): Promise<void> {
  if (rows.length === 0) return;
  await runStatement(tx, markConversionsStatement, {
    tenantIds: rows.map((r) => r.tenantId),
    experimentIds: rows.map((r) => r.experimentId),
    exts: rows.map((r) => r.ext),
    anons: rows.map((r) => r.anon),
    variantIds: rows.map((r) => r.variantId),
    at: rows.map((r) => r.at),
  });
}

/** An end user's assignments move to another (merge), the other's own winning. */
export async function moveAssignments(exec: Executor, tenantId: string, fromId: string, toId: string) {
  await sqlRows(
    exec,
    sql`insert into ${assignments} ${columnList([
      assignments.experimentId,
      assignments.endUserId,
      assignments.tenantId,
      assignments.variantId,
      assignments.assignedAt,
      assignments.convertedAt,
    ])}
     select ${assignments.experimentId}, ${toId}, ${assignments.tenantId}, ${assignments.variantId},
            ${assignments.assignedAt}, ${assignments.convertedAt}
     from ${assignments} where ${assignments.tenantId} = ${tenantId} and ${assignments.endUserId} = ${fromId}
     order by ${assignments.experimentId}
     on conflict do nothing`,
  );
  await exec
    .delete(assignments)
    .where(and(eq(assignments.tenantId, tenantId), eq(assignments.endUserId, fromId)));
}

// ---- results ------------------------------------------------------------------------------------

export interface AssignmentCell {
  variantId: string;
  /** UTC midnight of the assignment day. */
  assigned: Date | string;
  /** UTC midnight of the conversion day, or null. */
  converted: Date | string | null;
  n: number;
}

/**
 * Assignments of an experiment counted per variant, assignment day and conversion day: one
 * grouped index-only scan of `experiment_assignments_results_idx` (tenant, experiment, variant,
 * assigned_at, converted_at). Raw: grouped on `date_bin` to UTC midnights, cheaper than casting
 * every row to a date (bench/README.md, experiments).
 */
export async function countAssignmentsByDay(
  exec: Executor,
  tenantId: string,
  experimentId: string,
): Promise<AssignmentCell[]> {
  const rows = await sqlRows<AssignmentCell>(
    exec,
    sql`select ${assignments.variantId} as "variantId",
          date_bin('1 day', ${assignments.assignedAt}, '1970-01-01Z') as assigned,
          date_bin('1 day', ${assignments.convertedAt}, '1970-01-01Z') as converted, count(*)::float8 as n
     from ${assignments} where ${assignments.tenantId} = ${tenantId} and ${assignments.experimentId} = ${experimentId}
     group by 1, 2, 3`,
  );
  return rows.map((r) => ({ ...r, n: Number(r.n) }));
}

/** Participants and conversions per variant (one grouped index-only scan). */
export async function countAssignmentsByVariant(exec: Executor, tenantId: string, experimentId: string) {
  return exec
    .select({
      variantId: assignments.variantId,
      n: sql<number>`count(*)::float8`.mapWith(Number),
      x: sql<number>`count(${assignments.convertedAt})::float8`.mapWith(Number),
    })
    .from(assignments)
    .where(and(eq(assignments.tenantId, tenantId), eq(assignments.experimentId, experimentId)))
    .groupBy(assignments.variantId);
}
