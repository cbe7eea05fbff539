import { asc, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.js';
import { plans, subscriptions, tenants } from '../../db/schema/index.js';
import { recordAudit } from '../../platform/audit.js';
import { notFound, validationError } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import {
  isFeatureKey,
  isLimitKey,
  KEY_LABEL,
  LIMIT_FEATURE,
  PLAN_LIMIT_KEYS,
  type PlanFeatureKey,
  type PlanLimitKey,
} from './keys.js';
import { addMonths } from './period.js';
import {
  findPlanByName,
  isFreePlan,
  loadSubscription,
  type TenantSubscription,
  toPlan,
} from './subscription.js';
import { countUsage } from './usage.js';

/** The catalogue, cheapest first. */
export async function listPlans(db: Executor) {
  const rows = await db
    .select()
    .from(plans)
    .orderBy(asc(plans.priceMonthly), asc(plans.priceYearly), asc(plans.name));
  return rows.map(toPlan);
}

export const subscriptionView = (sub: TenantSubscription) => ({
  plan: sub.plan.name,
  status: sub.status,
  currentPeriodStart: sub.currentPeriodStart,
  currentPeriodEnd: sub.currentPeriodEnd,
  isFreePlan: isFreePlan(sub.plan),
});

export async function getCurrentSubscription(db: Executor, tenantId: string, now: Date) {
  return subscriptionView(await loadSubscription(db, tenantId, { now }));
}

export interface UsageEntry {
  feature: PlanLimitKey;
  used: number;
  limit: number | null;
  unlimited: boolean;
  enabled: boolean;
  percentage: number;
}

/** used/limit in percent, one decimal; 0 when unlimited; may exceed 100 after a downgrade. */
export function usagePercentage(used: number, limit: number | null): number {
  if (limit === null) return 0;
  if (limit === 0) return used > 0 ? 100 : 0;
  return Math.round((used / limit) * 1000) / 10;
}

function usageEntry(sub: TenantSubscription, key: PlanLimitKey, used: number): UsageEntry {
  const limit = sub.plan.limits[key];
  const gate = LIMIT_FEATURE[key];
  return {
    feature: key,
    used,
    limit,
    unlimited: limit === null,
    enabled: gate ? sub.plan.features[gate] : true,
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
  const planName = sub.plan.name;
  if (!isFeatureKey(key) && !isLimitKey(key)) {
    return { allowed: false, feature: key, plan: planName, reason: `Unknown feature "${key}"`, usage: null };
  }
  const gate: PlanFeatureKey | undefined = isFeatureKey(key) ? key : LIMIT_FEATURE[key];
  if (gate && !sub.plan.features[gate]) {
    return {
      allowed: false,
      feature: key,
      plan: planName,
      reason: `The ${planName} plan does not include ${KEY_LABEL[gate]}`,
      usage: null,
    };
  }
  if (!isLimitKey(key)) return { allowed: true, feature: key, plan: planName, reason: null, usage: null };
  const used = await countUsage(db, tenantId, key, periodOf(sub, now));
  const limit = sub.plan.limits[key];
  const allowed = limit === null || used < limit;
  return {
    allowed,
    feature: key,
    plan: planName,
    reason: allowed ? null : `The ${planName} plan allows ${limit} ${KEY_LABEL[key]}; ${used} in use`,
    usage: { used, limit },
  };
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
  if (!isUuid(tenantId)) throw notFound('Tenant');
  return db.transaction(async (tx) => {
    const [tenant] = await tx
      .select({ id: tenants.id })
      .from(tenants)
      .where(eq(tenants.id, tenantId))
      .limit(1);
    if (!tenant) throw notFound('Tenant');
    const plan = await findPlanByName(tx, input.plan);
    if (!plan) throw validationError([{ path: 'plan', message: `Unknown plan "${input.plan}"` }]);
    const before = await loadSubscription(tx, tenantId, { lock: true, now });
    const [row] = await tx
      .update(subscriptions)
      .set({
        planId: plan.id,
        status: 'active',
        currentPeriodStart: now,
        currentPeriodEnd: addMonths(now, 1),
        updatedAt: sql`now()`,
      })
      .where(eq(subscriptions.tenantId, tenantId))
      .returning();
    await recordAudit(tx, {
      tenantId,
      action: 'SUBSCRIPTION_CHANGED',
      entityType: 'subscription',
      entityId: tenantId,
      actorId: null,
      ipAddress: input.ip,
      metadata: { from: before.plan.name, to: plan.name, by: 'platform-admin' },
    });
    return {
      tenantId,
      plan: plan.name,
      status: row!.status,
      currentPeriodStart: row!.currentPeriodStart,
      currentPeriodEnd: row!.currentPeriodEnd,
      isFreePlan: isFreePlan(plan),
    };
  });
}
