import { and, asc, count, eq, gt, gte, isNull, lt, ne, or, sql, sum } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor } from '../../db/client.js';
import {
  aiTokenUsage,
  apiKeys,
  endUsers,
  experiments,
  flows,
  journeys,
  members,
  plans,
  subscriptions,
  tenants,
} from '../../db/schema/index.js';
import type { PlanLimitKey } from './keys.js';

// The pricing module's queries: plans (seeded data), subscriptions, and what a tenant uses of
// each limited resource.

export type PlanRow = typeof plans.$inferSelect;
export type SubscriptionRow = typeof subscriptions.$inferSelect;

/** The catalogue, cheapest first. */
export async function listPlanRows(exec: Executor): Promise<PlanRow[]> {
  return exec.select().from(plans).orderBy(asc(plans.priceMonthly), asc(plans.priceYearly), asc(plans.name));
}

export async function findPlanRowByName(exec: Executor, name: string): Promise<PlanRow | undefined> {
  const [row] = await exec.select().from(plans).where(eq(plans.name, name)).limit(1);
  return row;
}

type Period = Pick<SubscriptionRow, 'currentPeriodStart' | 'currentPeriodEnd'>;

export async function insertSubscription(
  exec: Executor,
  tenantId: string,
  planId: string,
  period: Period,
): Promise<void> {
  await exec.insert(subscriptions).values({ tenantId, planId, status: 'active', ...period });
}

/**
 * Starts the tenant on the plan named `planName` unless it has a subscription already, in one
 * statement: nothing when the tenant (or the plan) does not exist.
 */
export async function insertSubscriptionIfNone(
  exec: Executor,
  tenantId: string,
  planName: string,
  period: Period,
): Promise<void> {
  await exec
    .insert(subscriptions)
    .select(
      exec
        .select({
          tenantId: tenants.id,
          planId: plans.id,
          status: sql<'active'>`'active'`.as('status'),
          currentPeriodStart: sql<Date>`${period.currentPeriodStart.toISOString()}::timestamptz`.as('start'),
          currentPeriodEnd: sql<Date>`${period.currentPeriodEnd.toISOString()}::timestamptz`.as('end'),
          createdAt: sql<Date>`now()`.as('created'),
          updatedAt: sql<Date>`now()`.as('updated'),
        })
        .from(tenants)
        .innerJoin(plans, eq(plans.name, planName))
        .where(eq(tenants.id, tenantId)),
    )
    .onConflictDoNothing({ target: subscriptions.tenantId });
}

/** The tenant's subscription with its plan; `lock` takes the subscription row FOR UPDATE. */
export async function findSubscription(
  exec: Executor,
  tenantId: string,
  opts: { lock?: boolean } = {},
): Promise<{ sub: SubscriptionRow; plan: PlanRow } | undefined> {
  const query = exec
    .select({ sub: subscriptions, plan: plans })
    .from(subscriptions)
    .innerJoin(plans, eq(plans.id, subscriptions.planId))
    .where(eq(subscriptions.tenantId, tenantId));
  const [row] = opts.lock ? await query.for('update', { of: subscriptions }) : await query;
  return row;
}

/** Moves the tenant to `planId`, active, with a new period. */
export async function updateSubscriptionPlan(
  exec: Executor,
  tenantId: string,
  planId: string,
  period: Period,
): Promise<void> {
  await exec
    .update(subscriptions)
    .set({ planId, status: 'active', ...period, updatedAt: sql`now()` })
    .where(eq(subscriptions.tenantId, tenantId));
}

/** Every tenant with its plan's limits (the plan named `fallbackPlan` for a tenant without a subscription). */
export async function findTenantPlanLimits(
  exec: Executor,
  fallbackPlan: string,
): Promise<{ tenantId: string; limits: Record<string, number | null> | null }[]> {
  const fallback = alias(plans, 'fallback');
  return exec
    .select({
      tenantId: tenants.id,
      limits: sql<Record<string, number | null> | null>`coalesce(${plans.limits}, ${fallback.limits})`,
    })
    .from(tenants)
    .leftJoin(subscriptions, eq(subscriptions.tenantId, tenants.id))
    .leftJoin(plans, eq(plans.id, subscriptions.planId))
    .leftJoin(fallback, eq(fallback.name, fallbackPlan));
}

export interface UsagePeriod {
  start: Date;
  end: Date;
  now: Date;
}

/**
 * What a tenant uses of each limited resource, counted from the records themselves (no
 * counters to drift):
 * - flows, journeys, experiments: not archived; apiKeys: neither revoked nor expired;
 * - members: accepted and pending;
 * - activeUsers: end users seen since the period started; aiTokens: tokens spent in the period.
 *
 * These are other modules' tables, read here because those modules check their limits through
 * pricing (it cannot depend on them in turn).
 */
export async function countUsage(
  exec: Executor,
  tenantId: string,
  key: PlanLimitKey,
  period: UsagePeriod,
): Promise<number> {
  switch (key) {
    case 'flows':
      return one(
        exec
          .select({ n: count() })
          .from(flows)
          .where(and(eq(flows.tenantId, tenantId), ne(flows.status, 'ARCHIVED'))),
      );
    case 'apiKeys':
      return one(
        exec
          .select({ n: count() })
          .from(apiKeys)
          .where(
            and(
              eq(apiKeys.tenantId, tenantId),
              isNull(apiKeys.revokedAt),
              or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, period.now)),
            ),
          ),
      );
    case 'members':
      return one(exec.select({ n: count() }).from(members).where(eq(members.tenantId, tenantId)));
    case 'activeUsers':
      return one(
        exec
          .select({ n: count() })
          .from(endUsers)
          .where(and(eq(endUsers.tenantId, tenantId), gte(endUsers.lastSeenAt, period.start))),
      );
    case 'aiTokens':
      return one(
        exec
          .select({ n: sum(aiTokenUsage.tokens) })
          .from(aiTokenUsage)
          .where(
            and(
              eq(aiTokenUsage.tenantId, tenantId),
              gte(aiTokenUsage.createdAt, period.start),
              lt(aiTokenUsage.createdAt, period.end),
            ),
          ),
      );
    case 'journeys':
      return one(
        exec
          .select({ n: count() })
          .from(journeys)
          .where(and(eq(journeys.tenantId, tenantId), ne(journeys.status, 'ARCHIVED'))),
      );
    case 'experiments':
      return one(
        exec
          .select({ n: count() })
          .from(experiments)
          .where(and(eq(experiments.tenantId, tenantId), ne(experiments.status, 'archived'))),
      );
  }
}

/** A count or a sum (`sum` answers a numeric's text, or null over no rows). */
async function one(query: PromiseLike<{ n: number | string | null }[]>): Promise<number> {
  const [row] = await query;
  return Number(row?.n ?? 0);
}
