import { and, asc, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { type ContentStatus, type ContentType, contentItems } from '../../../db/schema/index.js';
import { fixedStatement, runStatement } from '../../../db/statements.js';
import { isUuid } from '../../../platform/ids.js';
import { liveAt } from '../../../platform/schedule.js';
import type { StateColumns } from '../../../platform/state-machine.js';
import { audienceReferrers } from '../../audiences/index.js';
import type { ContentItemRow } from './records.js';

/** Queries of `content_items` beyond what it shares with NPS surveys (./records.ts). */

export type NewContentItemRow = typeof contentItems.$inferInsert;

export async function insertContentItem(exec: Executor, values: NewContentItemRow): Promise<ContentItemRow> {
  const [row] = await exec.insert(contentItems).values(values).returning();
  return row!;
}

/** Writes `set` on the tenant's content item; the row after, or undefined when there is none. */
export async function updateContentItemRow(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<NewContentItemRow>,
): Promise<ContentItemRow | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await exec
    .update(contentItems)
    .set(set)
    .where(and(eq(contentItems.tenantId, tenantId), eq(contentItems.id, id)))
    .returning();
  return row;
}

/** The tenant's PUBLISHED content items (every type) not expired at `now`, oldest first. */
export function listLiveContentItems(exec: Executor, tenantId: string, now: Date): Promise<ContentItemRow[]> {
  return exec
    .select()
    .from(contentItems)
    .where(and(eq(contentItems.tenantId, tenantId), liveAt(contentItems, now)))
    .orderBy(asc(contentItems.createdAt), asc(contentItems.id));
}

/** Which items a bulk state change takes (besides their being in one of its source states). */
export type ContentItemsToMove =
  /** Every tenant's items of `types` whose scheduledAt has come. */
  | { kind: 'scheduledAtReached'; now: Date; types: readonly ContentType[] }
  /** Every tenant's items whose expiresAt has passed. */
  | { kind: 'expired'; now: Date }
  /** The tenant's task lists with a COMPLETE_FLOW item launching the flow. */
  | { kind: 'taskListsLaunchingFlow'; tenantId: string; flowId: string };

const at = (now: Date) => sql`${now.toISOString()}::timestamptz`;

function conditionOf(which: ContentItemsToMove): SQL {
  switch (which.kind) {
    case 'scheduledAtReached':
      return sql`${inArray(contentItems.type, [...which.types])} and ${contentItems.scheduledAt} <= ${at(which.now)}`;
    case 'expired':
      return sql`${contentItems.expiresAt} is not null and ${contentItems.expiresAt} <= ${at(which.now)}`;
    case 'taskListsLaunchingFlow': {
      const needle = JSON.stringify([
        { actionType: 'COMPLETE_FLOW', actionConfig: { flowId: which.flowId } },
      ]);
      return sql`${contentItems.tenantId} = ${which.tenantId} and ${contentItems.type} = 'task-lists'
        and ${contentItems.body} -> 'items' @> ${needle}::jsonb`;
    }
  }
}

/**
 * One conditional UPDATE of every item in a `from` state that `which` names, writing `columns`.
 * The rows are locked before they are changed and the state condition is re-checked after a
 * wait, so concurrent runs (several instances) change each row once. The items changed, each
 * with the status it had.
 */
export async function moveContentItems(
  exec: Executor,
  from: readonly ContentStatus[],
  columns: StateColumns<ContentStatus>,
  which: ContentItemsToMove,
) {
  const target = exec.$with('target').as(
    exec
      .select({
        id: contentItems.id,
        fromStatus: sql<ContentStatus>`${contentItems.status}`.as('from_status'),
      })
      .from(contentItems)
      .where(and(inArray(contentItems.status, [...from]), conditionOf(which)))
      .for('update'),
  );
  return exec
    .with(target)
    .update(contentItems)
    .set(columns)
    .from(target)
    .where(eq(contentItems.id, target.id))
    .returning({
      id: contentItems.id,
      tenantId: contentItems.tenantId,
      type: contentItems.type,
      name: contentItems.name,
      fromStatus: target.fromStatus,
    });
}

/** "Which content items still target this audience?" (the audiences module's finder over this table). */
export const contentItemsTargetingAudience = audienceReferrers(contentItems, {
  type: contentItems.type,
  archived: 'ARCHIVED',
});

/** A survey as the response effect reads it: its questions as stored in the body. */
export type SurveyQuestionsRow = Pick<ContentItemRow, 'id' | 'tenantId' | 'status'> & {
  questions: unknown[] | null;
};

const SURVEYS_OF = fixedStatement<SurveyQuestionsRow, Record<string, unknown>>(sql`
  select ${contentItems.id} as "id", ${contentItems.tenantId} as "tenantId",
         ${contentItems.status} as "status", ${contentItems.body} -> 'questions' as "questions"
  from ${contentItems}
  join unnest(${sql.placeholder('tenantIds')}::uuid[], ${sql.placeholder('ids')}::uuid[]) as p (tenant_id, id)
    on ${contentItems.tenantId} = p.tenant_id and ${contentItems.id} = p.id
  where ${contentItems.type} = 'surveys'`);

/**
 * The surveys among (tenant, id) pairs (`tenantIds[i]`, `ids[i]`), any status, for a chunk of
 * events in one statement (an unnest join, which the query builder has no form for; its text
 * built once: event processing).
 */
export const findSurveysOf = (
  exec: Executor,
  pairs: { tenantIds: string[]; ids: string[] },
): Promise<SurveyQuestionsRow[]> => runStatement(exec, SURVEYS_OF, pairs);

// ---- targeting (issue 40) ----------------------------------------------------------------------

/** A targeted content item (tooltip or beacon) as targeting reads it. */
export interface ContentTarget {
  id: string;
  tenantId: string;
  type: ContentType;
  name: string;
  targetSelector: string | null;
  targetFingerprint: Record<string, unknown> | null;
}

const contentTargetColumns = {
  id: contentItems.id,
  tenantId: contentItems.tenantId,
  type: contentItems.type,
  name: contentItems.name,
  targetSelector: sql<string | null>`${contentItems.body} ->> 'targetSelector'`,
  targetFingerprint: sql<Record<string, unknown> | null>`${contentItems.body} -> 'targetFingerprint'`,
};

const TARGETED: ContentType[] = ['tooltips', 'beacons'];

/** The tooltips and beacons of `ids` (any tenant's: callers match the tenant). One query. */
export async function findContentTargets(
  exec: Executor,
  ids: string[],
  tenantId?: string,
): Promise<ContentTarget[]> {
  const wanted = ids.filter(isUuid);
  if (wanted.length === 0) return [];
  const where = [inArray(contentItems.id, wanted), inArray(contentItems.type, TARGETED)];
  if (tenantId) where.push(eq(contentItems.tenantId, tenantId));
  return exec
    .select(contentTargetColumns)
    .from(contentItems)
    .where(and(...where));
}

/** Sets the fingerprint each tooltip or beacon serves (`body.targetFingerprint`). */
export async function setContentFingerprints(
  exec: Executor,
  rows: { tenantId: string; id: string; fingerprint: Record<string, unknown> | null }[],
): Promise<void> {
  for (const r of rows) {
    await exec
      .update(contentItems)
      .set({
        body: sql`jsonb_set(${contentItems.body}, '{targetFingerprint}', ${JSON.stringify(r.fingerprint)}::jsonb)`,
      })
      .where(and(eq(contentItems.tenantId, r.tenantId), eq(contentItems.id, r.id)));
  }
}

/** One content item of the tenant (any type), or undefined. */
export async function findContentItem(
  exec: Executor,
  tenantId: string,
  id: string,
): Promise<ContentItemRow | undefined> {
  const [row] = await exec
    .select()
    .from(contentItems)
    .where(and(eq(contentItems.tenantId, tenantId), eq(contentItems.id, id)))
    .limit(1);
  return row;
}
