import type { Executor, Transaction } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { contentNotFound } from '../../platform/errors.js';
import { stateColumns } from '../../platform/state-machine.js';
import { assertAudienceUsable } from '../audiences/index.js';
import { type ContentAction, contentLifecycle, transitionAudit } from './lifecycle.js';
import { type ContentStatus, findRecord, type RecordSet, updateRecordState } from './store/records.js';

/**
 * What the services of content items and NPS surveys share, written once: records with the
 * content lifecycle, looked up and moved between states the same way. A kind names its record
 * set, what a missing one is called, and the audit entity type.
 */

type Row = { id: string; status: ContentStatus };

export interface RecordKind<R extends Row> {
  records: RecordSet<R>;
  /** Singular, for "… not found". */
  label: string;
  /** `entityType` of its audit rows. */
  entityType: string;
}

/** The record of the tenant (locked for update with `lock`); 404 CONTENT_NOT_FOUND otherwise. */
export async function findRow<R extends Row>(
  exec: Executor,
  ctx: ServiceCtx,
  kind: RecordKind<R>,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<R> {
  const row = await findRecord(exec, ctx.tenantId, kind.records, id, opts);
  if (!row) throw contentNotFound(kind.label);
  return row;
}

/** 400 at `audienceId` unless it is a live audience of the tenant (null clears it: fine). */
export async function checkAudience(exec: Executor, ctx: ServiceCtx, audienceId: string | null | undefined) {
  if (typeof audienceId === 'string')
    await assertAudienceUsable(exec, ctx.tenantId, audienceId, 'audienceId');
}

/**
 * publish, unpublish, archive (DELETE) and restore under a row lock, checked by the lifecycle
 * table; the state columns and the transition's audit row are written together. Archiving an
 * archived record is a no-op (nothing written).
 */
export async function changeState<R extends Row>(
  ctx: ServiceCtx,
  kind: RecordKind<R>,
  id: string,
  action: ContentAction,
  versions?: Versioning<R>,
): Promise<R> {
  return ctx.db.transaction(async (tx) => changeStateIn(tx, ctx, kind, id, action, versions));
}

/**
 * How a versioned kind (content items; NPS surveys are not versioned) publishes: `republish` runs
 * for `publish` on a PUBLISHED record (the next version, or 409 when nothing changed); `published`
 * after a move to PUBLISHED (takes the version). Both answer the version for the audit row.
 */
export interface Versioning<R> {
  republish(tx: Transaction, row: R, note?: string): Promise<{ row: R; version: number }>;
  published(tx: Transaction, row: R, note?: string): Promise<number>;
  note?: string | undefined;
}

/** `changeState` inside the caller's transaction. */
export async function changeStateIn<R extends Row>(
  tx: Transaction,
  ctx: ServiceCtx,
  kind: RecordKind<R>,
  id: string,
  action: ContentAction,
  versions?: Versioning<R>,
): Promise<R> {
  const row = await findRow(tx, ctx, kind, id, { lock: true });
  if (versions && action === 'publish' && row.status === 'PUBLISHED') {
    const { row: updated, version } = await versions.republish(tx, row, versions.note);
    await audit(ctx, tx, {
      action: 'CONTENT_UPDATED',
      entityType: kind.entityType,
      entityId: row.id,
      metadata: { transition: { from: 'PUBLISHED', to: 'PUBLISHED', action }, version },
    });
    return updated;
  }
  const to = contentLifecycle.apply(row.status, action);
  if (to === row.status) return row;
  const updated = (await updateRecordState(
    tx,
    ctx.tenantId,
    kind.records,
    row.id,
    stateColumns(row.status, to, ctx.now),
  ))!;
  const version =
    versions && to === 'PUBLISHED' ? await versions.published(tx, updated, versions.note) : null;
  const entry = transitionAudit(row.status, to, action);
  await audit(ctx, tx, {
    ...entry,
    metadata: { ...entry.metadata, ...(version !== null ? { version } : {}) },
    entityType: kind.entityType,
    entityId: row.id,
  });
  return updated;
}
