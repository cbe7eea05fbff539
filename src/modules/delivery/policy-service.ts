import type { z } from 'zod';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { DEFAULT_POLICY } from './engine/policy.js';
import { type deliveryPolicyBody, policyOf } from './policy-schemas.js';
import { readDeliveryPolicy, writeDeliveryPolicy } from './store.js';

/** The tenant's delivery policy as the API shows it (the defaults while none was set). */
export async function getDeliveryPolicy(ctx: ServiceCtx) {
  const row = await readDeliveryPolicy(ctx.db, ctx.tenantId);
  const policy = row ? policyOf(row.policy) : DEFAULT_POLICY;
  return { ...policy, updatedAt: row?.updatedAt ?? null };
}

/**
 * Replaces the policy (validated by the route's schema: a bad one is a 400 before anything is
 * written), audited as DELIVERY_POLICY_UPDATED with the old and new policy. Its commit bumps the
 * tenant's delivery version, so every instance's next session applies it.
 */
export async function putDeliveryPolicy(ctx: ServiceCtx, input: z.output<typeof deliveryPolicyBody>) {
  return ctx.db.transaction(async (tx) => {
    const before = await readDeliveryPolicy(tx, ctx.tenantId);
    const policy = {
      caps: input.caps,
      cooldownSeconds: input.cooldownSeconds,
      afterDismissDays: input.afterDismissDays,
    };
    await writeDeliveryPolicy(tx, ctx.tenantId, policy, ctx.now);
    await audit(ctx, tx, {
      action: 'DELIVERY_POLICY_UPDATED',
      entityType: 'delivery_policy',
      entityId: ctx.tenantId,
      metadata: { before: before ? policyOf(before.policy) : DEFAULT_POLICY, after: policy },
    });
    return { ...policy, updatedAt: ctx.now };
  });
}
