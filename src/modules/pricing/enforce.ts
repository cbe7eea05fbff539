import type { Executor } from '../../db/client.js';
import { AppError } from '../../platform/errors.js';
import {
  isFeatureKey,
  isLimitKey,
  KEY_LABEL,
  LIMIT_FEATURE,
  type PlanFeatureKey,
  type PlanLimitKey,
} from './keys.js';
import { countUsage } from './store.js';
import { loadSubscription, type Plan } from './subscription.js';

export type { PlanFeatureKey, PlanLimitKey } from './keys.js';

type PlanTerms = Pick<Plan, 'name' | 'features' | 'limits'>;

export interface PlanDecision {
  allowed: boolean;
  /** The plan feature that is off and so refuses `key` (PLAN_FEATURE_UNAVAILABLE); null otherwise. */
  gate: PlanFeatureKey | null;
  /** Why not, as the error message says it; null when allowed. */
  reason: string | null;
}

/**
 * The plan rule, pure: may a tenant on `plan` use (one more of) `key`? Refused when the feature
 * `key` is or belongs to is off; for a limit key, also when `used` (what exists now) has reached
 * the limit. `used` null: not counted, the limit is not checked.
 */
export function decide(
  plan: PlanTerms,
  key: PlanFeatureKey | PlanLimitKey,
  used: number | null,
): PlanDecision {
  const gate = isFeatureKey(key) ? key : LIMIT_FEATURE[key];
  if (gate && !plan.features[gate]) return { allowed: false, gate, reason: unavailableMessage(plan, gate) };
  const limit = isLimitKey(key) ? plan.limits[key] : null;
  if (limit === null || used === null || used < limit) return { allowed: true, gate: null, reason: null };
  return {
    allowed: false,
    gate: null,
    reason: `The ${plan.name} plan allows ${limit} ${KEY_LABEL[key]}; ${used} in use`,
  };
}

/**
 * The one enforcement point modules call inside their create transaction: throws 403
 * PLAN_LIMIT_REACHED `{ feature, used, limit }` when one more would exceed the plan, or
 * PLAN_FEATURE_UNAVAILABLE when the plan lacks the feature the limit belongs to.
 *
 * The subscription row is locked FOR UPDATE until the caller's transaction ends, so two
 * concurrent creates with one slot left cannot both pass: the second counts after the first
 * commits. Call it before the insert, with the same transaction.
 */
export async function assertPlanAllows(
  exec: Executor,
  tenantId: string,
  key: PlanLimitKey,
  now = new Date(),
): Promise<void> {
  const sub = await loadSubscription(exec, tenantId, { lock: true, now });
  const limit = sub.plan.limits[key];
  const used =
    limit === null
      ? null
      : await countUsage(exec, tenantId, key, {
          start: sub.currentPeriodStart,
          end: sub.currentPeriodEnd,
          now,
        });
  const { allowed, gate, reason } = decide(sub.plan, key, used);
  if (allowed) return;
  if (gate) throw featureUnavailable(sub.plan, gate);
  throw new AppError('PLAN_LIMIT_REACHED', reason!, { feature: key, used, limit });
}

/** 403 PLAN_FEATURE_UNAVAILABLE unless the tenant's plan includes `feature`. */
export async function assertFeatureEnabled(
  exec: Executor,
  tenantId: string,
  feature: PlanFeatureKey,
  now?: Date,
): Promise<void> {
  const sub = await loadSubscription(exec, tenantId, { now });
  if (!sub.plan.features[feature]) throw featureUnavailable(sub.plan, feature);
}

/** The tenant's plan name, features and limits (for the SDK config and feature gates). */
export async function getTenantPlan(exec: Executor, tenantId: string, now?: Date): Promise<PlanTerms> {
  const { plan } = await loadSubscription(exec, tenantId, { now });
  return { name: plan.name, features: plan.features, limits: plan.limits };
}

const unavailableMessage = (plan: Pick<Plan, 'name'>, feature: PlanFeatureKey) =>
  `The ${plan.name} plan does not include ${KEY_LABEL[feature]}`;

const featureUnavailable = (plan: Pick<Plan, 'name'>, feature: PlanFeatureKey) =>
  new AppError('PLAN_FEATURE_UNAVAILABLE', unavailableMessage(plan, feature), {
    feature,
    plan: plan.name,
  });
