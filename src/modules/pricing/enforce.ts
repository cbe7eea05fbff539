import type { Executor } from '../../db/client.js';
import { AppError } from '../../platform/errors.js';
import { KEY_LABEL, LIMIT_FEATURE, type PlanFeatureKey, type PlanLimitKey } from './keys.js';
import { loadSubscription, type Plan } from './subscription.js';
import { countUsage } from './usage.js';

export type { PlanFeatureKey, PlanLimitKey } from './keys.js';

/**
 * The one enforcement point modules call inside their create transaction: throws 403
 * PLAN_LIMIT_REACHED `{ feature, used, limit }` when `adding` more would exceed the plan, or
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
  adding = 1,
): Promise<void> {
  const now = new Date();
  const sub = await loadSubscription(exec, tenantId, { lock: true, now });
  const feature = LIMIT_FEATURE[key];
  if (feature && !sub.plan.features[feature]) throw featureUnavailable(sub.plan, feature);
  const limit = sub.plan.limits[key];
  if (limit === null) return;
  const used = await countUsage(exec, tenantId, key, {
    start: sub.currentPeriodStart,
    end: sub.currentPeriodEnd,
    now,
  });
  if (used + adding > limit) {
    throw new AppError(
      'PLAN_LIMIT_REACHED',
      `The ${sub.plan.name} plan allows ${limit} ${KEY_LABEL[key]}; ${used} in use`,
      { feature: key, used, limit },
    );
  }
}

/** 403 PLAN_FEATURE_UNAVAILABLE unless the tenant's plan includes `feature`. */
export async function assertFeatureEnabled(
  exec: Executor,
  tenantId: string,
  feature: PlanFeatureKey,
): Promise<void> {
  const sub = await loadSubscription(exec, tenantId);
  if (!sub.plan.features[feature]) throw featureUnavailable(sub.plan, feature);
}

/** The tenant's plan name, features and limits (for the SDK config and feature gates). */
export async function getTenantPlan(
  exec: Executor,
  tenantId: string,
): Promise<Pick<Plan, 'name' | 'features' | 'limits'>> {
  const { plan } = await loadSubscription(exec, tenantId);
  return { name: plan.name, features: plan.features, limits: plan.limits };
}

export const featureUnavailable = (plan: Pick<Plan, 'name'>, feature: PlanFeatureKey) =>
  new AppError('PLAN_FEATURE_UNAVAILABLE', `The ${plan.name} plan does not include ${KEY_LABEL[feature]}`, {
    feature,
    plan: plan.name,
  });
