import type { AppDeps } from '../../deps.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { notFound } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import type { PageRequest } from '../../platform/pagination.js';
import { exportEventsOf } from '../events/index.js';
import { PRIVACY_DELETIONS } from './deletion-job.js';
import type { CreateDeletionInput } from './schemas.js';
import {
  exportEndUserRows,
  findDeletion,
  findEndUsersOf,
  insertDeletion,
  listDeletionsPage,
} from './store.js';

const deletionNotFound = () => notFound('Deletion request');

/**
 * Records a deletion request (audited) and wakes the job; 202. An unknown userId is accepted
 * too: the job still runs (the event log may hold events of a user not yet processed) and
 * completes with nothing removed (docs/privacy.md).
 */
export async function requestDeletion(
  ctx: ServiceCtx,
  deps: Pick<AppDeps, 'wakeWorker'>,
  input: CreateDeletionInput,
) {
  const row = await ctx.db.transaction(async (tx) => {
    const created = await insertDeletion(tx, {
      id: newId(),
      tenantId: ctx.tenantId,
      userId: input.userId,
      requestedBy: ctx.actorId,
      now: ctx.now,
    });
    await audit(ctx, tx, {
      action: 'END_USER_DELETION_REQUESTED',
      entityType: 'privacy_deletion',
      entityId: created.id,
      metadata: { userId: input.userId },
    });
    return created;
  });
  deps.wakeWorker(PRIVACY_DELETIONS);
  return row;
}

export async function getDeletion(ctx: ServiceCtx, id: string) {
  if (!isUuid(id)) throw deletionNotFound();
  const row = await findDeletion(ctx.db, ctx.tenantId, id);
  if (!row) throw deletionNotFound();
  return row;
}

export const listDeletions = (ctx: ServiceCtx, page: PageRequest) =>
  listDeletionsPage(ctx.db, ctx.tenantId, page);

/**
 * Everything stored about the end user with this userId, as JSON (audited). 404 when nothing
 * is: no end user and no event in the log.
 */
export async function exportEndUser(ctx: ServiceCtx, userId: string) {
  const who = await findEndUsersOf(ctx.db, ctx.tenantId, userId);
  const rows = await exportEndUserRows(ctx.db, ctx.tenantId, { userId, ...who });
  const log = await exportEventsOf(ctx.db, ctx.tenantId, { userId, anonymousIds: who.anonymousIds });
  if (rows.endUsers.length === 0 && log.events.length === 0 && log.deadLetters.length === 0)
    throw notFound('End user');
  await audit(ctx, ctx.db, {
    action: 'END_USER_EXPORTED',
    entityType: 'end_user',
    entityId: rows.endUsers[0]?.id ?? null,
    metadata: { userId },
  });
  return {
    userId,
    exportedAt: ctx.now,
    ...rows,
    events: log.events.map((e) => ({ ...e })), // records with an index signature, as the response schema wants
    deadLetters: log.deadLetters,
  };
}
