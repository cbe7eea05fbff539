import type { z } from 'zod';
import type { Executor, Transaction } from '../../db/client.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { invalidTransition } from '../../platform/errors.js';
import { getVersion, liveVersion, type Snapshot } from './service.js';
import type { VersionedItemType } from './store.js';

/**
 * What the version routes of one kind of item need from the module that owns the item. The
 * owner keeps its rules (what the working copy is, how it is written, how it is published); the
 * versions module adds the history around them.
 */
export interface VersionedKind<P extends { id: string } = { id: string }> {
  itemType: VersionedItemType;
  /** The item's path, e.g. `/api/flows/:id`. */
  path: string;
  params: z.ZodType<P>;
  tags: string[];
  /** Spelled-out operationIds (`get${name}Versions`, …); absent: derived from the path. */
  operationName?: string;
  /** `entityType` of the audit rows, and the prefix of their actions (`FLOW` → FLOW_VERSION_RESTORED). */
  entityType: string;
  auditPrefix: string;
  /** 404 unless the item is the tenant's (of this kind); its id. `lock`: for update. */
  find(exec: Executor, ctx: ServiceCtx, params: P, opts?: { lock?: boolean }): Promise<string>;
  /** Writes `snapshot` as the working copy (an audience: the audience itself, a new version). */
  restore(tx: Transaction, ctx: ServiceCtx, id: string, snapshot: Snapshot): Promise<void>;
  /** Publishes the working copy as the kind's publish does (absent: audiences, always live). */
  publish?(tx: Transaction, ctx: ServiceCtx, id: string, note?: string): Promise<{ version: number }>;
  /** The item as its own GET answers it, and that answer's schema. */
  read(exec: Executor, ctx: ServiceCtx, id: string): Promise<unknown>;
  response: z.ZodType;
}

/** `POST …/versions/:n/restore`: the working copy becomes version n's snapshot (not published). */
export async function restoreVersion<P extends { id: string }>(
  ctx: ServiceCtx,
  kind: VersionedKind<P>,
  params: P,
  n: number,
) {
  return ctx.db.transaction(async (tx) => {
    const id = await kind.find(tx, ctx, params, { lock: true });
    const key = { tenantId: ctx.tenantId, itemType: kind.itemType, itemId: id };
    const from = await getVersion(tx, key, n);
    await kind.restore(tx, ctx, id, from.snapshot);
    await audit(ctx, tx, {
      action: `${kind.auditPrefix}_VERSION_RESTORED`,
      entityType: kind.entityType,
      entityId: id,
      metadata: { version: n },
    });
    return kind.read(tx, ctx, id);
  });
}

/**
 * `POST …/versions/:n/publish`, the roll back in one call: the working copy becomes version n's
 * snapshot and is published, which takes version m+1 (equal to n) and makes it live. When n is
 * what is live already: 409 INVALID_STATE_TRANSITION (nothing to roll back).
 */
export async function republishVersion<P extends { id: string }>(
  ctx: ServiceCtx,
  kind: VersionedKind<P>,
  params: P,
  n: number,
  note?: string,
) {
  return ctx.db.transaction(async (tx) => {
    const id = await kind.find(tx, ctx, params, { lock: true });
    const key = { tenantId: ctx.tenantId, itemType: kind.itemType, itemId: id };
    const from = await getVersion(tx, key, n);
    const live = await liveVersion(tx, key);
    if (!kind.publish) throw invalidTransition('LIVE', 'publish');
    await kind.restore(tx, ctx, id, from.snapshot);
    const published = await kind.publish(tx, ctx, id, note ?? `Rollback to version ${n}`);
    await audit(ctx, tx, {
      action: `${kind.auditPrefix}_ROLLED_BACK`,
      entityType: kind.entityType,
      entityId: id,
      metadata: { version: n, newVersion: published.version, previousVersion: live?.version ?? null },
    });
    return kind.read(tx, ctx, id);
  });
}
