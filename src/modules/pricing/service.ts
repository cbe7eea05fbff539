import type { Database, Executor } from '../../db/client.js';
import { percentage } from '../../engine/math.js';
import { recordAudit } from '../../platform/audit.js';
import { validationError } from '../../platform/errors.js';
import { decide } from './enforce.js';
import { isFeatureKey, isLimitKey, PLAN_LIMIT_KEYS, type PlanLimitKey } from './keys.js';
import { newPeriod } from './period.js';
import { countUsage, listPlanRows, updateSubscriptionPlan } from './store.js';
import {
  findPlanByName,
  isFreePlan,
  loadSubscription,
  type TenantSubscription,
  toPlan,
} from './subscription.js';

/** The catalogue, cheapest first. */
export async function listPlans(db: Executor) {
  return (await listPlanRows(db)).map(toPlan);
}

const subscriptionView = (sub: TenantSubscription) => ({
  plan: sub.plan.name,
  status: sub.status,
  currentPeriodStart: sub.currentPeriodStart,
  currentPeriodEnd: sub.currentPeriodEnd,
  isFreePlan: isFreePlan(sub.plan),
});

export async function getCurrentSubscription(db: Executor, tenantId: string, now: Date) {
  return subscriptionView(await loadSubscription(db, tenantId, { now }));
}

/** used/limit in percent, one decimal; 0 when unlimited; may exceed 100 after a downgrade. */
function usagePercentage(used: number, limit: number | null): number {
  if (limit === null) return 0;
  if (limit === 0) return used > 0 ? 100 : 0;
  return percentage(used, limit);
}

function usageEntry(sub: TenantSubscription, key: PlanLimitKey, used: number) {
  const limit = sub.plan.limits[key];
  return {
    feature: key,
    used,
    limit,
    unlimited: limit === null,
    enabled: decide(sub.plan, key, null).gate === null,
    percentage: usagePercentage(used, limit),
  };
}

const periodOf = (sub: TenantSubscription, now: Date) => ({
  start: sub.currentPeriodStart,
  end: sub.currentPeriodEnd,
  now,
});

export async function getUsage(db: Executor, tenantId: string, now: Date) {
  const sub = await loadSubscription(db, tenantId, { now });
  const counts = await Promise.all(
    PLAN_LIMIT_KEYS.map((key) => countUsage(db, tenantId, key, periodOf(sub, now))),
  );
  return {
    plan: sub.plan.name,
    usage: PLAN_LIMIT_KEYS.map((key, i) => usageEntry(sub, key, counts[i]!)),
  };
}

/**
 * May the tenant use `key` now? A name that is neither a feature nor a limit key: not allowed,
 * "Unknown feature". A feature outside the plan: not allowed, no usage. A limited resource:
 * allowed while used < limit (always when unlimited), with its usage.
 */
export async function checkFeature(db: Executor, tenantId: string, key: string, now: Date) {
  const sub = await loadSubscription(db, tenantId, { now });
  const answer = (
    allowed: boolean,
    reason: string | null,
    usage: { used: number; limit: number | null } | null,
  ) => ({
    allowed,
    feature: key,
    plan: sub.plan.name,
    reason,
    usage,
  });
  if (!isFeatureKey(key) && !isLimitKey(key)) return answer(false, `Unknown feature "${key}"`, null);
  const gated = decide(sub.plan, key, null);
  if (!gated.allowed || !isLimitKey(key)) return answer(gated.allowed, gated.reason, null);
  const used = await countUsage(db, tenantId, key, periodOf(sub, now));
  const { allowed, reason } = decide(sub.plan, key, used);
  return answer(allowed, reason, { used, limit: sub.plan.limits[key] });
}

/** Platform admin: a tenant's subscription. */
export async function getTenantSubscription(db: Executor, tenantId: string, now: Date) {
  const sub = await loadSubscription(db, tenantId, { now });
  return { tenantId, ...subscriptionView(sub) };
}

/**
 * Platform admin: moves a tenant to `planName` and starts a new period now. Takes effect at
 * once: the next create is checked against the new plan (the row lock orders it after any
 * create in flight). Recorded in the tenant's audit trail as SUBSCRIPTION_CHANGED.
 */
export async function changeTenantSubscription(
  db: Database,
  input: { tenantId: string; plan: string; now: Date; ip: string | null },
) {
  const { tenantId, now } = input;
  return db.transaction(async (tx) => {
    // 404 for an unknown tenant before the 400 for an unknown plan.
    const before = await loadSubscription(tx, tenantId, { lock: true, now });
    const plan = await findPlanByName(tx, input.plan);
    if (!plan) throw validationError([{ path: 'plan', message: `Unknown plan "${input.plan}"` }]);
    const period = newPeriod(now);
    await updateSubscriptionPlan(tx, tenantId, plan.id, period);
    await recordAudit(tx, {
      tenantId,
      action: 'SUBSCRIPTION_CHANGED',
      entityType: 'subscription',
      entityId: tenantId,
      actorId: null,
      ipAddress: input.ip,
      metadata: { from: before.plan.name, to: plan.name, by: 'platform-admin' },
    });
    return { tenantId, ...subscriptionView({ ...before, plan, status: 'active', ...period }) };
  });
}
