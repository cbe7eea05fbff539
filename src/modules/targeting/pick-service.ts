import type { Database } from '../../db/client.js';
import type { TargetFingerprint } from '../../engine/fingerprint.js';
import type { ServiceCtx } from '../../platform/context.js';
import { randomToken, sha256 } from '../../platform/crypto.js';
import { AppError, contentNotFound } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { findContentTargets } from '../content/index.js';
import { findStepTargets } from '../flows/index.js';
import { fingerprintKey } from './lookups-effect.js';
import {
  addFingerprints,
  findPickToken,
  findPickTokenByHash,
  insertPickToken,
  type PickTokenRow,
  usePickToken,
} from './store.js';

/**
 * Pick tokens (issue 40): the dashboard asks for one for a flow step or a tooltip / beacon and
 * opens the customer's page with it (`#guidance-pick=<token>`); the SDK there verifies it
 * (`POST /api/sdk/pick/verify`) and sends the pick (`POST /api/sdk/pick/result`); the dashboard
 * polls `GET /api/pick-tokens/:id` for it. A token is 32 random bytes (base64url) behind `gpk_`;
 * only its sha256 is stored. It is bound to the tenant (the SDK key's tenant must be the same),
 * the dashboard user (only they can read the pick) and the target, valid for 10 minutes, and
 * used once: the result uses it.
 */
export const PICK_TOKEN_TTL_MS = 10 * 60_000;
const PREFIX = 'gpk_';

export interface PickTarget {
  itemKind: 'flow' | 'content';
  itemId: string;
  stepId?: string | null;
}

export async function createPickToken(ctx: ServiceCtx, target: PickTarget) {
  if (!ctx.actorId) throw new AppError('FORBIDDEN', 'A pick token is for a signed-in dashboard user');
  let stepId: string | null = null;
  if (target.itemKind === 'flow') {
    const [step] = target.stepId ? await findStepTargets(ctx.db, [target.stepId]) : [];
    if (!step || step.tenantId !== ctx.tenantId || step.flowId !== target.itemId)
      throw contentNotFound('Flow step');
    stepId = step.id;
  } else {
    const [item] = await findContentTargets(ctx.db, [target.itemId], ctx.tenantId);
    if (!item) throw contentNotFound();
  }
  const token = `${PREFIX}${randomToken(32)}`;
  const row = await insertPickToken(ctx.db, {
    id: newId(),
    tenantId: ctx.tenantId,
    userId: ctx.actorId,
    tokenHash: sha256(token),
    itemKind: target.itemKind,
    itemId: target.itemId,
    stepId,
    expiresAt: new Date(ctx.now.getTime() + PICK_TOKEN_TTL_MS),
    createdAt: ctx.now,
  });
  return { id: row.id, token, expiresAt: row.expiresAt, itemKind: row.itemKind, itemId: row.itemId, stepId };
}

export type PickStatus = 'pending' | 'picked' | 'expired';

/** The pick of a token the user asked for: pending, picked (with the selector and fingerprint) or expired. */
export async function getPick(ctx: ServiceCtx, id: string) {
  const row = ctx.actorId ? await findPickToken(ctx.db, ctx.tenantId, ctx.actorId, id) : undefined;
  if (!row) throw new AppError('NOT_FOUND', 'Pick not found');
  const status: PickStatus = row.usedAt ? 'picked' : row.expiresAt < ctx.now ? 'expired' : 'pending';
  return {
    id: row.id,
    status,
    itemKind: row.itemKind,
    itemId: row.itemId,
    stepId: row.stepId,
    expiresAt: row.expiresAt,
    pickedAt: row.usedAt,
    selector: row.selector,
    fingerprint: row.fingerprint,
  };
}

/** The token's row, when it is valid for this SDK key's tenant now; the refusal otherwise. */
async function validToken(db: Database, tenantId: string, token: string, now: Date): Promise<PickTokenRow> {
  const row = token.startsWith(PREFIX) ? await findPickTokenByHash(db, sha256(token)) : undefined;
  if (!row || row.tenantId !== tenantId) throw new AppError('PICK_TOKEN_INVALID');
  if (row.usedAt) throw new AppError('PICK_TOKEN_USED');
  if (row.expiresAt < now) throw new AppError('PICK_TOKEN_EXPIRED');
  return row;
}

/** `POST /api/sdk/pick/verify`: what the token is for (it stays usable). */
export async function verifyPick(db: Database, tenantId: string, token: string, now: Date) {
  const row = await validToken(db, tenantId, token, now);
  return { stepId: row.stepId, itemKind: row.itemKind, itemId: row.itemId, expiresAt: row.expiresAt };
}

/**
 * `POST /api/sdk/pick/result`: uses the token, keeps the pick on it for the dashboard, and stores
 * the fingerprint as the picked one of the target for that selector (`picked`: it outweighs
 * reported ones, see engine/health.ts).
 */
export async function submitPick(
  db: Database,
  tenantId: string,
  pick: { token: string; selector: string; fingerprint: TargetFingerprint },
  now: Date,
): Promise<void> {
  const row = await validToken(db, tenantId, pick.token, now);
  await db.transaction(async (tx) => {
    const used = await usePickToken(tx, row.id, now, pick);
    if (!used) throw new AppError('PICK_TOKEN_USED');
    await addFingerprints(tx, [
      {
        tenantId,
        targetId: row.stepId ?? row.itemId,
        selector: pick.selector,
        fpKey: fingerprintKey(pick.fingerprint),
        fingerprint: pick.fingerprint,
        seenCount: 0,
        picked: true,
        lastSeenAt: now,
      },
    ]);
  });
}
