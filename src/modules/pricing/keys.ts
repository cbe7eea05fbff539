/**
 * The plan vocabulary (DECISIONS §9). Features are on/off per plan; limits are numbers per plan
 * (null = unlimited). Some limits only make sense when a feature is on: a plan without
 * `journeys` allows no journey whatever its `journeys` limit says.
 */
export const PLAN_FEATURE_KEYS = [
  'flows',
  'surveys',
  'experiments',
  'ai',
  'journeys',
  'translations',
] as const;
export type PlanFeatureKey = (typeof PLAN_FEATURE_KEYS)[number];

export const PLAN_LIMIT_KEYS = [
  'flows',
  'activeUsers',
  'apiKeys',
  'members',
  'aiTokens',
  'journeys',
  'experiments',
] as const;
export type PlanLimitKey = (typeof PLAN_LIMIT_KEYS)[number];

/** The feature a limit belongs to, where one does. */
export const LIMIT_FEATURE: Partial<Record<PlanLimitKey, PlanFeatureKey>> = {
  flows: 'flows',
  aiTokens: 'ai',
  journeys: 'journeys',
  experiments: 'experiments',
};

/**
 * How many days a plan keeps a tenant's events (`limits.retentionDays`, docs/retention.md): a
 * positive whole number of days; anything else (null, missing, malformed) keeps them forever.
 * Not a usage limit (nothing is counted against it), so not among PLAN_LIMIT_KEYS; unlike those,
 * a plan edited by hand without it keeps data rather than dropping it.
 */
export function retentionDaysOf(limits: Record<string, unknown> | null | undefined): number | null {
  const v = limits?.retentionDays;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null;
}

/** The names `POST /api/pricing/check-feature` knows: every feature key and every limit key (others: "Unknown feature"). */
export const CHECKABLE_KEYS = [...new Set<string>([...PLAN_FEATURE_KEYS, ...PLAN_LIMIT_KEYS])] as [
  PlanFeatureKey | PlanLimitKey,
  ...(PlanFeatureKey | PlanLimitKey)[],
];

export const isFeatureKey = (key: string): key is PlanFeatureKey =>
  (PLAN_FEATURE_KEYS as readonly string[]).includes(key);
export const isLimitKey = (key: string): key is PlanLimitKey =>
  (PLAN_LIMIT_KEYS as readonly string[]).includes(key);

/**
 * The plan a tenant falls back to when it has no subscription row (a tenant created before
 * plans existed, or outside provisioning). Registration passes DEFAULT_PLAN instead.
 */
export const FALLBACK_PLAN = 'free';

/** Readable names for messages. */
export const KEY_LABEL: Record<PlanFeatureKey | PlanLimitKey, string> = {
  flows: 'flows',
  surveys: 'surveys',
  experiments: 'experiments',
  ai: 'AI',
  journeys: 'journeys',
  translations: 'translations',
  activeUsers: 'monthly active users',
  apiKeys: 'API keys',
  members: 'team members',
  aiTokens: 'AI tokens',
};
