import { z } from 'zod';
import type { Executor, Transaction } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { validationError } from '../../platform/errors.js';
import { idParams } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { sameJson } from '../../platform/same-json.js';
import { assertScheduleWindow } from '../../platform/schedule.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import { publishSnapshot, type VersionedKind, versionState } from '../versions/index.js';
import {
  COLUMN_FIELDS,
  CONTENT_DEFS,
  CONTENT_TYPE_LIST,
  type ColumnField,
  type ContentTypeDef,
  recordOf,
} from './definitions.js';
import type { ContentAction } from './lifecycle.js';
import { changeStateIn, checkAudience, findRow, type RecordKind, type Versioning } from './record-service.js';
import { type ContentRecord, contentSnapshot, toContentRecord } from './records.js';
import { insertContentItem, updateContentItemRow } from './store/content-items.js';
import {
  type ContentItemRow,
  type ContentStatus,
  type ContentType,
  contentItemsOfType,
  listContentItemsPage,
  type RecordListQuery,
} from './store/records.js';
import { listSurveyResponsesPage } from './store/responses.js';

/** Fields every type has; the rest of a request body is the type's own. */
const COMMON_FIELDS = new Set(['name', 'siteId', 'audienceId', 'triggerConfig', 'priority', 'bypassCaps']);

export type ContentInput = Record<string, unknown> & {
  name?: string;
  siteId?: string;
  audienceId?: string | null;
  triggerConfig?: Record<string, unknown> | null;
  priority?: number;
  bypassCaps?: boolean;
};

/** The items of one content type in `content_items`. */
const KINDS = Object.fromEntries(
  CONTENT_TYPE_LIST.map((def) => [
    def.slug,
    { records: contentItemsOfType(def.slug), label: def.label, entityType: def.slug },
  ]),
) as Record<ContentType, RecordKind<ContentItemRow>>;

const kindOf = (def: ContentTypeDef): RecordKind<ContentItemRow> => KINDS[def.slug];

interface Stored {
  body: Record<string, unknown>;
  targetUrl: string | null;
  scheduledAt: Date | null;
  expiresAt: Date | null;
}

/** Folds the type-specific fields of `input` into what is stored (body jsonb + columns). */
function applyTypeFields(def: ContentTypeDef, input: ContentInput, base: Stored): Stored {
  const next: Stored = { ...base, body: { ...base.body } };
  // A fingerprint describes the element of the selector it was taken for: another selector
  // without its own fingerprint forgets it (issue 40).
  if (
    'targetFingerprint' in def.fields &&
    input.targetSelector !== undefined &&
    input.targetSelector !== base.body.targetSelector &&
    input.targetFingerprint === undefined
  ) {
    next.body.targetFingerprint = null;
  }
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

/** Rules across fields that the schema cannot see (the dates of scheduled types). */
function checkSchedule(def: ContentTypeDef, stored: Stored, status: ContentStatus | null) {
  if (!def.scheduled) return;
  assertScheduleWindow(stored.scheduledAt, stored.expiresAt);
  if (status === 'SCHEDULED' && !stored.scheduledAt) {
    throw validationError([
      {
        path: 'scheduledAt',
        message: `a scheduled ${def.label.toLowerCase()} needs scheduledAt (publish or unpublish it instead)`,
      },
    ]);
  }
}

async function checkReferences(exec: Executor, ctx: ServiceCtx, def: ContentTypeDef, input: ContentInput) {
  await checkAudience(exec, ctx, input.audienceId);
  await def.checkReferences?.(exec, ctx.tenantId, input);
}

/** New items start DRAFT; scheduled types SCHEDULED when scheduledAt is in the future, else PUBLISHED. */
function initialStatus(def: ContentTypeDef, stored: Stored, now: Date): ContentStatus {
  if (!def.scheduled) return 'DRAFT';
  return stored.scheduledAt && stored.scheduledAt > now ? 'SCHEDULED' : 'PUBLISHED';
}

export async function createContent(ctx: ServiceCtx, def: ContentTypeDef, input: ContentInput) {
  const { now } = ctx;
  const stored = applyTypeFields(def, input, {
    body: { ...def.defaults },
    targetUrl: null,
    scheduledAt: null,
    expiresAt: null,
  });
  checkSchedule(def, stored, null);
  const status = initialStatus(def, stored, now);
  return ctx.db.transaction(async (tx) => {
    if (def.feature) await assertFeatureEnabled(tx, ctx.tenantId, def.feature);
    await checkReferences(tx, ctx, def, input);
    const row = await insertContentItem(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      type: def.slug,
      name: input.name!,
      siteId: input.siteId!,
      status,
      audienceId: input.audienceId ?? null,
      priority: input.priority ?? 0,
      bypassCaps: input.bypassCaps ?? false,
      triggerConfig: def.triggers ? ((input.triggerConfig ?? null) as ContentItemRow['triggerConfig']) : null,
      ...stored,
      publishedAt: status === 'PUBLISHED' ? now : null,
      createdAt: now,
      updatedAt: now,
    });
    // Live on creation (an announcement without a future scheduledAt): version 1.
    const taken = status === 'PUBLISHED' ? await takeContentVersion(tx, ctx, row) : null;
    await audit(ctx, tx, {
      action: 'CONTENT_CREATED',
      entityType: def.slug,
      entityId: row.id,
      metadata: { name: row.name, status, ...(taken ? { version: taken.version } : {}) },
    });
    return versionedContent(tx, row);
  });
}

export const listContent = (ctx: ServiceCtx, def: ContentTypeDef, query: RecordListQuery) =>
  listContentItemsPage(ctx.db, ctx.tenantId, def.slug, query);

export async function getContent(ctx: ServiceCtx, def: ContentTypeDef, id: string) {
  return versionedContent(ctx.db, await findRow(ctx.db, ctx, kindOf(def), id));
}

// ---- versions --------------------------------------------------------------------------------

const contentKey = (tenantId: string, itemId: string) => ({ tenantId, itemType: 'content' as const, itemId });

/** The record with its live version and whether the working copy differs from it. */
async function versionedContent(exec: Executor, row: ContentItemRow): Promise<ContentRecord> {
  const state = await versionState(exec, contentKey(row.tenantId, row.id), contentSnapshot(row));
  return { ...toContentRecord(row), ...state };
}

/** Publishing the working copy: a new live version unless it equals the live one (`requireChange`: 409 then). */
export const takeContentVersion = (
  tx: Executor,
  ctx: Pick<ServiceCtx, 'actorId' | 'now'>,
  row: ContentItemRow,
  opts: { requireChange?: boolean; note?: string | undefined } = {},
) =>
  publishSnapshot(tx, contentKey(row.tenantId, row.id), contentSnapshot(row), {
    actorId: ctx.actorId,
    now: ctx.now,
    note: opts.note,
    requireChange: opts.requireChange ?? false,
    status: row.status,
  });

const versioning = (ctx: ServiceCtx, note?: string): Versioning<ContentItemRow> => ({
  note,
  async republish(tx, row, n) {
    const { version } = await takeContentVersion(tx, ctx, row, { requireChange: true, note: n });
    const updated = await updateContentItemRow(tx, ctx.tenantId, row.id, {
      publishedAt: ctx.now,
      updatedAt: ctx.now,
    });
    return { row: updated!, version };
  },
  published: async (tx, row, n) => (await takeContentVersion(tx, ctx, row, { note: n })).version,
});

/** The working copy becomes `snapshot` (a version restored). */
async function writeContentWorkingCopy(
  tx: Transaction,
  ctx: ServiceCtx,
  kind: RecordKind<ContentItemRow>,
  id: string,
  snapshot: unknown,
) {
  const s = snapshot as ReturnType<typeof contentSnapshot>;
  if (s.audienceId) await checkAudience(tx, ctx, s.audienceId);
  // A fingerprint is learned, not versioned: the restored body keeps the one the item learned
  // for the same selector (issue 40).
  const current = (await findRow(tx, ctx, kind, id)).body as Record<string, unknown> | null;
  const restored = s.body as Record<string, unknown> | null;
  const body =
    current?.targetFingerprint != null && restored && current.targetSelector === restored.targetSelector
      ? { ...restored, targetFingerprint: current.targetFingerprint }
      : s.body;
  await updateContentItemRow(tx, ctx.tenantId, id, { ...s, body: body as typeof s.body, updatedAt: ctx.now });
}

/** The version routes of one content type (`/api/content/:type/:id/versions…`). */
export const contentVersions = (
  def: ContentTypeDef,
  operationName: string,
  tags: string[],
): VersionedKind => ({
  itemType: 'content',
  path: `/api/content/${def.slug}/:id`,
  params: idParams,
  tags,
  operationName,
  entityType: def.slug,
  auditPrefix: 'CONTENT',
  find: async (exec, ctx, params, opts) => (await findRow(exec, ctx, kindOf(def), params.id, opts)).id,
  restore: (tx, ctx, id, snapshot) => writeContentWorkingCopy(tx, ctx, kindOf(def), id, snapshot),
  async publish(tx, ctx, id, note) {
    const row = await changeStateIn(tx, ctx, kindOf(def), id, 'publish', versioning(ctx, note));
    return { version: (await versionedContent(tx, row)).version ?? 0 };
  },
  read: async (exec, ctx, id) => versionedContent(exec, await findRow(exec, ctx, kindOf(def), id)),
  response: z.object({ data: recordOf(def) }),
});

/** The fields of `patch` whose value differs from the row (type fields compared as stored). */
function changedFields(
  def: ContentTypeDef,
  row: ContentItemRow,
  patch: ContentInput,
  stored: Stored,
): string[] {
  const current: Record<string, unknown> = {
    name: row.name,
    siteId: row.siteId,
    audienceId: row.audienceId,
    triggerConfig: row.triggerConfig,
    priority: row.priority,
    bypassCaps: row.bypassCaps,
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
export async function updateContent(ctx: ServiceCtx, def: ContentTypeDef, id: string, patch: ContentInput) {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, kindOf(def), id, { lock: true });
    const stored = applyTypeFields(def, patch, {
      body: row.body,
      targetUrl: row.targetUrl,
      scheduledAt: row.scheduledAt,
      expiresAt: row.expiresAt,
    });
    const changes = changedFields(def, row, patch, stored);
    if (changes.length === 0) return versionedContent(tx, row);
    await checkReferences(tx, ctx, def, patch);
    checkSchedule(def, stored, row.status);
    const updated = await updateContentItemRow(tx, ctx.tenantId, row.id, {
      ...(patch.name !== undefined ? { name: patch.name } : {}),
      ...(patch.siteId !== undefined ? { siteId: patch.siteId } : {}),
      ...(patch.audienceId !== undefined ? { audienceId: patch.audienceId } : {}),
      ...(patch.priority !== undefined ? { priority: patch.priority } : {}),
      ...(patch.bypassCaps !== undefined ? { bypassCaps: patch.bypassCaps } : {}),
      ...(def.triggers && patch.triggerConfig !== undefined
        ? { triggerConfig: patch.triggerConfig as ContentItemRow['triggerConfig'] }
        : {}),
      ...stored,
      updatedAt: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'CONTENT_UPDATED',
      entityType: def.slug,
      entityId: row.id,
      metadata: { changes },
    });
    return versionedContent(tx, updated!);
  });
}

/** publish, unpublish, archive (DELETE) and restore, checked by the lifecycle table. */
export async function changeContentState(
  ctx: ServiceCtx,
  def: ContentTypeDef,
  id: string,
  action: ContentAction,
  note?: string,
) {
  return ctx.db.transaction(async (tx) =>
    versionedContent(tx, await changeStateIn(tx, ctx, kindOf(def), id, action, versioning(ctx, note))),
  );
}

/** Responses to one survey of the tenant (any status), newest first; 404 when it is not the tenant's. */
export async function listSurveyResponses(ctx: ServiceCtx, surveyId: string, page: PageRequest) {
  const survey = await findRow(ctx.db, ctx, kindOf(CONTENT_DEFS.surveys), surveyId);
  return listSurveyResponsesPage(ctx.db, ctx.tenantId, survey.id, page);
}
