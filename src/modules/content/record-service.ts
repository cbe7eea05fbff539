import type { Executor } from '../../db/client.js';
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
): Promise<R> {
  return ctx.db.transaction(async (tx) => {
    const row = await findRow(tx, ctx, kind, id, { lock: true });
    const to = contentLifecycle.apply(row.status, action);
    if (to === row.status) return row;
    const updated = await updateRecordState(
      tx,
      ctx.tenantId,
      kind.records,
      row.id,
      stateColumns(row.status, to, ctx.now),
    );
    await audit(ctx, tx, {
      ...transitionAudit(row.status, to, action),
      entityType: kind.entityType,
      entityId: row.id,
    });
    return updated!;
  });
}
