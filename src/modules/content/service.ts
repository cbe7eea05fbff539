import { and, asc, count, desc, eq, ilike, ne, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { type ContentStatus, contentItems } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { contentNotFound, validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { containsPattern, type PageRequest, pageOffset } from '../../platform/pagination.js';
import { sameJson } from '../../platform/same-json.js';
import { assertAudienceUsable } from '../audiences/lookup.js';
import { assertFeatureEnabled } from '../pricing/enforce.js';
import { COLUMN_FIELDS, type ColumnField, type ContentTypeDef } from './definitions.js';
import { type ContentAction, contentLifecycle, stateColumns, transitionAudit } from './lifecycle.js';
import { type ContentRow, contentListColumns, toContentRecord } from './records.js';

/** Fields every type has; the rest of a request body is the type's own. */
const COMMON_FIELDS = new Set(['name', 'siteId', 'audienceId', 'triggerConfig']);

export type ContentInput = Record<string, unknown> & {
  name?: string;
  siteId?: string;
  audienceId?: string | null;
  triggerConfig?: Record<string, unknown> | null;
};

export interface ContentListQuery extends PageRequest {
  status?: ContentStatus | undefined;
  search?: string | undefined;
  siteId?: string | undefined;
  sortBy: 'name' | 'status' | 'createdAt' | 'updatedAt';
  sortDirection: 'asc' | 'desc';
}

interface Stored {
  body: Record<string, unknown>;
  targetUrl: string | null;
  scheduledAt: Date | null;
  expiresAt: Date | null;
}

/** Folds the type-specific fields of `input` into what is stored (body jsonb + columns). */
function applyTypeFields(def: ContentTypeDef, input: ContentInput, base: Stored): Stored {
  const next: Stored = { ...base, body: { ...base.body } };
  for (const [key, value] of Object.entries(input)) {
    if (COMMON_FIELDS.has(key) || value === undefined || !(key in def.fields)) continue;
    if ((COLUMN_FIELDS as readonly string[]).includes(key)) {
      (next as unknown as Record<ColumnField, unknown>)[key as ColumnField] = value;
    } else {
      const normalize = def.normalize?.[key];
      next.body[key] = normalize && value !== null ? normalize(value as never) : value;
    }
  }
  return next;
}

/** Rules across fields that the schema cannot see (announcement dates). */
function checkSchedule(def: ContentTypeDef, stored: Stored, status: ContentStatus | null) {
  if (!def.columns.includes('scheduledAt')) return;
  if (stored.scheduledAt && stored.expiresAt && stored.expiresAt <= stored.scheduledAt) {
    throw validationError([{ path: 'expiresAt', message: 'expiresAt must be after scheduledAt' }]);
  }
  if (status === 'SCHEDULED' && !stored.scheduledAt) {
    throw validationError([
      {
        path: 'scheduledAt',
        message: 'a scheduled announcement needs scheduledAt (publish or unpublish it instead)',
      },
    ]);
  }
}

async function checkReferences(exec: Executor, ctx: ServiceCtx, def: ContentTypeDef, input: ContentInput) {
  if (typeof input.audienceId === 'string') {
    await assertAudienceUsable(exec, ctx.tenantId, input.audienceId, 'audienceId');
  }
  await def.checkReferences?.(exec, ctx.tenantId, input);
}

/** New items start DRAFT; announcements SCHEDULED when scheduledAt is in the future, else PUBLISHED. */
function initialStatus(def: ContentTypeDef, stored: Stored, now: Date): ContentStatus {
  if (def.slug !== 'announcements') return 'DRAFT';
  return stored.scheduledAt && stored.scheduledAt > now ? 'SCHEDULED' : 'PUBLISHED';
}

export async function createContent(ctx: ServiceCtx, def: ContentTypeDef, input: ContentInput, now: Date) {
  const stored = applyTypeFields(def, input, {
    body: { ...def.defaults },
    targetUrl: null,
    scheduledAt: null,
    expiresAt: null,
  });
  checkSchedule(def, stored, null);
  const status = initialStatus(def, stored, now);
  return ctx.db.transaction(async (tx) => {
    // Surveys are a plan feature (PLAN_FEATURE_UNAVAILABLE when the tenant's plan lacks it).
    if (def.slug === 'surveys') await assertFeatureEnabled(tx, ctx.tenantId, 'surveys');
    await checkReferences(tx, ctx, def, input);
    const [row] = await tx
      .insert(contentItems)
      .values({
        id: newId(),
        tenantId: ctx.tenantId,
        type: def.slug,
        name: input.name!,
        siteId: input.siteId!,
        status,
        audienceId: input.audienceId ?? null,
        triggerConfig: def.triggers ? ((input.triggerConfig ?? null) as ContentRow['triggerConfig']) : null,
        ...stored,
        publishedAt: status === 'PUBLISHED' ? now : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(ctx, tx, {
      action: 'CONTENT_CREATED',
      entityType: def.slug,
      entityId: row!.id,
      metadata: { name: row!.name, status },
    });
    return toContentRecord(row!);
  });
}

const SORT_COLUMNS = {
  // Case-insensitive, the same on every database collation.
  name: sql`lower(${contentItems.name})`,
  status: contentItems.status,
  createdAt: contentItems.createdAt,
  updatedAt: contentItems.updatedAt,
} as const;

/** Archived items are listed only when asked for with `status=ARCHIVED`. */
export async function listContent(ctx: ServiceCtx, def: ContentTypeDef, query: ContentListQuery) {
  const where: SQL[] = [eq(contentItems.tenantId, ctx.tenantId), eq(contentItems.type, def.slug)];
  where.push(query.status ? eq(contentItems.status, query.status) : ne(contentItems.status, 'ARCHIVED'));
  if (query.search) where.push(ilike(contentItems.name, containsPattern(query.search)));
  if (query.siteId) where.push(eq(contentItems.siteId, query.siteId));
  const dir = query.sortDirection === 'asc' ? asc : desc;
  const [rows, [total]] = await Promise.all([
    ctx.db
      .select(contentListColumns)
      .from(contentItems)
      .where(and(...where))
      .orderBy(dir(SORT_COLUMNS[query.sortBy]), dir(contentItems.id))
      .limit(query.limit)
      .offset(pageOffset(query)),
    ctx.db
      .select({ n: count() })
      .from(contentItems)
      .where(and(...where)),
  ]);
  return { rows, total: total?.n ?? 0 };
}

async function findRow(exec: Executor, ctx: ServiceCtx, def: ContentTypeDef, id: string, lock: boolean) {
  if (!isUuid(id)) throw contentNotFound(def.label);
  const q = exec
    .select()
    .from(contentItems)
    .where(
      and(eq(contentItems.tenantId, ctx.tenantId), eq(contentItems.type, def.slug), eq(contentItems.id, id)),
    )
    .limit(1);
  const [row] = lock ? await q.for('update') : await q;
  if (!row) throw contentNotFound(def.label);
  return row;
}

export async function getContent(ctx: ServiceCtx, def: ContentTypeDef, id: string) {
  return toContentRecord(await findRow(ctx.db, ctx, def, id, false));
}

/** The fields of `patch` whose value differs from the row (type fields compared as stored). */
function changedFields(def: ContentTypeDef, row: ContentRow, patch: ContentInput, stored: Stored): string[] {
  const current: Record<string, unknown> = {
    name: row.name,
    siteId: row.siteId,
    audienceId: row.audienceId,
    triggerConfig: row.triggerConfig,
  };
  return Object.keys(patch).filter((key) => {
    const value = patch[key];
    if (value === undefined) return false;
    if (COMMON_FIELDS.has(key)) {
      if (key === 'triggerConfig' && !def.triggers) return false;
      return !sameJson(value, current[key]);
    }
    if (!(key in def.fields)) return false;
    if ((COLUMN_FIELDS as readonly string[]).includes(key)) {
      return !sameJson(stored[key as ColumnField], row[key as ColumnField]);
    }
    return !sameJson(stored.body[key], row.body[key]);
  });
}

/**
 * Partial update; never changes the status (state changes have their own routes). A PATCH
 * whose every field equals the stored value (or an empty one) answers the record as it is:
 * no write, no audit row, updatedAt unchanged.
 */
export async function updateContent(
  ctx: ServiceCtx,
  def: ContentTypeDef,
  id: string,
  patch: ContentInput,
  now: Date,
) {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, def, id, true);
    const stored = applyTypeFields(def, patch, {
      body: row.body,
      targetUrl: row.targetUrl,
      scheduledAt: row.scheduledAt,
      expiresAt: row.expiresAt,
    });
    const changes = changedFields(def, row, patch, stored);
    if (changes.length === 0) return toContentRecord(row);
    await checkReferences(tx, ctx, def, patch);
    checkSchedule(def, stored, row.status);
    const [updated] = await tx
      .update(contentItems)
      .set({
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.siteId !== undefined ? { siteId: patch.siteId } : {}),
        ...(patch.audienceId !== undefined ? { audienceId: patch.audienceId } : {}),
        ...(def.triggers && patch.triggerConfig !== undefined
          ? { triggerConfig: patch.triggerConfig as ContentRow['triggerConfig'] }
          : {}),
        ...stored,
        updatedAt: now,
      })
      .where(and(eq(contentItems.tenantId, ctx.tenantId), eq(contentItems.id, row.id)))
      .returning();
    await audit(ctx, tx, {
      action: 'CONTENT_UPDATED',
      entityType: def.slug,
      entityId: row.id,
      metadata: { changes },
    });
    return toContentRecord(updated!);
  });
}

/** publish, unpublish, archive (DELETE) and restore, checked by the lifecycle table. */
export async function changeContentState(
  ctx: ServiceCtx,
  def: ContentTypeDef,
  id: string,
  action: ContentAction,
  now: Date,
) {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, def, id, true);
    const to = contentLifecycle.apply(row.status, action);
    if (to === row.status) return toContentRecord(row); // archiving an archived item: no-op
    const [updated] = await tx
      .update(contentItems)
      .set(stateColumns(row.status, to, now))
      .where(and(eq(contentItems.tenantId, ctx.tenantId), eq(contentItems.id, row.id)))
      .returning();
    await audit(ctx, tx, {
      ...transitionAudit(row.status, to, action),
      entityType: def.slug,
      entityId: row.id,
    });
    return toContentRecord(updated!);
  });
}
