import type { Executor } from '../../db/client.js';

/** Limits checked before creating (DECISIONS §9). Keys match the plans' `limits`. */
export type PlanLimitKey =
  | 'flows'
  | 'apiKeys'
  | 'members'
  | 'activeUsers'
  | 'aiTokens'
  | 'journeys'
  | 'experiments';
export type PlanFeatureKey = 'flows' | 'surveys' | 'experiments' | 'ai' | 'journeys' | 'translations';

/**
 * The one enforcement point modules call inside their create transaction: throws 403
 * PLAN_LIMIT_REACHED `{ feature, used, limit }` when one more would exceed the plan, or
 * PLAN_FEATURE_UNAVAILABLE when the plan lacks the feature.
 */
export async function assertPlanAllows(
  _exec: Executor,
  _tenantId: string,
  _key: PlanLimitKey,
  _adding = 1,
): Promise<void> {
  // Filled in by the pricing module (issue: plans and usage).
}
