import type { Executor } from '../../db/client.js';
import { notFound } from '../../platform/errors.js';
import { isUuid } from '../../platform/ids.js';
import {
  FALLBACK_PLAN,
  PLAN_FEATURE_KEYS,
  PLAN_LIMIT_KEYS,
  type PlanFeatureKey,
  type PlanLimitKey,
  retentionDaysOf,
} from './keys.js';
import { currentPeriod, newPeriod } from './period.js';
import {
  findPlanRowByName,
  findSubscription,
  findTenantPlanLimits,
  insertSubscription,
  insertSubscriptionIfNone,
  type PlanRow,
} from './store.js';

export interface Plan {
  id: string;
  name: string;
  priceMonthly: number;
  priceYearly: number;
  features: Record<PlanFeatureKey, boolean>;
  limits: Record<PlanLimitKey, number | null>;
  /** Days the tenant's events are kept; null = forever (retentionDaysOf). */
  retentionDays: number | null;
  createdAt: Date;
  updatedAt: Date;
}

/**
 * Plans are data; a key missing from a row reads as "off" / 0 (fail closed), so a plan edited
 * by hand never grants more than it says.
 */
export function toPlan(row: PlanRow): Plan {
  const features = {} as Record<PlanFeatureKey, boolean>;
  for (const k of PLAN_FEATURE_KEYS) features[k] = row.features?.[k] === true;
  const limits = {} as Record<PlanLimitKey, number | null>;
  for (const k of PLAN_LIMIT_KEYS) {
    const v = row.limits?.[k];
    limits[k] = v === null ? null : typeof v === 'number' ? v : 0;
  }
  return { ...row, features, limits, retentionDays: retentionDaysOf(row.limits) };
}

/**
 * Every tenant's event retention in days (null: kept forever), from its plan, or the fallback
 * plan's for a tenant without a subscription (as loadSubscription would start it on).
 */
export async function listTenantRetention(
  exec: Executor,
): Promise<{ tenantId: string; retentionDays: number | null }[]> {
  const rows = await findTenantPlanLimits(exec, FALLBACK_PLAN);
  return rows.map((r) => ({ tenantId: r.tenantId, retentionDays: retentionDaysOf(r.limits) }));
}

export const isFreePlan = (plan: Pick<Plan, 'priceMonthly' | 'priceYearly'>) =>
  plan.priceMonthly === 0 && plan.priceYearly === 0;

export interface TenantSubscription {
  tenantId: string;
  plan: Plan;
  status: string;
  /** The period `now` falls in (see `currentPeriod`). */
  currentPeriodStart: Date;
  currentPeriodEnd: Date;
}

export async function findPlanByName(exec: Executor, name: string): Promise<Plan | null> {
  const row = await findPlanRowByName(exec, name);
  return row ? toPlan(row) : null;
}

/**
 * Starts `tenantId` on the named plan, period from `now` to a month later. Inside the
 * provisioning transaction; an unknown plan name is a configuration error (DEFAULT_PLAN).
 */
export async function createSubscription(
  exec: Executor,
  tenantId: string,
  planName: string,
  now = new Date(),
) {
  const plan = await findPlanByName(exec, planName);
  if (!plan) throw new Error(`Unknown plan "${planName}": check DEFAULT_PLAN`);
  await insertSubscription(exec, tenantId, plan.id, newPeriod(now));
  return plan;
}

/**
 * The tenant's subscription with its plan. `lock` takes the row FOR UPDATE so creates checked
 * against a limit in concurrent transactions run one after another. A tenant without a row
 * (created outside provisioning) gets the fallback plan on first read; an unknown or malformed
 * tenant id is 404 NOT_FOUND (DECISIONS §1).
 */
export async function loadSubscription(
  exec: Executor,
  tenantId: string,
  opts: { lock?: boolean; now?: Date } = {},
): Promise<TenantSubscription> {
  if (!isUuid(tenantId)) throw notFound('Tenant');
  const now = opts.now ?? new Date();
  const lock = { lock: opts.lock ?? false };
  let row = await findSubscription(exec, tenantId, lock);
  if (!row) {
    await insertSubscriptionIfNone(exec, tenantId, FALLBACK_PLAN, newPeriod(now));
    row = await findSubscription(exec, tenantId, lock);
    if (!row) throw notFound('Tenant');
  }
  const period = currentPeriod(row.sub.currentPeriodStart, row.sub.currentPeriodEnd, now);
  return {
    tenantId,
    plan: toPlan(row.plan),
    status: row.sub.status,
    currentPeriodStart: period.start,
    currentPeriodEnd: period.end,
  };
}
