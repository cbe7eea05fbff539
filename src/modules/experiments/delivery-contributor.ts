import type { Executor } from '../../db/client.js';
import { jsonValue, rawQuery } from '../../db/raw.js';
import type {
  ContributorChoice,
  DeliveryContributor,
  ExperimentAssignment,
  RememberEntry,
  SessionFacts,
} from '../delivery/index.js';
import { assignVariant } from './engine/assignment.js';

/**
 * Experiments in `POST /api/sdk/session`. The snapshot holds the tenant's running experiments
 * with their variants; the session's lookup statement reads the user's stored assignments (a
 * column of its one statement); `choose` is pure:
 *
 * - assigned already: that variant, whatever the splits or the audience say now (never changed);
 * - not yet: only an end user matching the experiment's audience is assigned, by the hash of
 *   (seed, end user id) into 10,000 buckets over the split ranges (engine/), which
 *   every instance computes alike; the assignment is stored by `remember` before the session
 *   answers (idempotent: the (experiment, end user) key, ON CONFLICT DO NOTHING);
 * - the session serves the assigned variant's flow in place of the other variants' flows; a
 *   holdout variant (no flow) sees none of them, and so does a session the experiment does not
 *   assign (outside its audience, or without an end user).
 *
 * Only running experiments whose `endDate` is still ahead (judged at the session's time, before
 * the completion job runs) take part; a stopped or finished experiment's flows are served by
 * their own rules again.
 */

interface Variant {
  id: string;
  flowId: string | null;
  splitPercentage: number;
}

export interface RunningExperiment {
  id: string;
  seed: string;
  audienceId: string | null;
  /** ms; null: no end. */
  endDate: number | null;
  variants: Variant[];
  /** Distinct flows of its variants. */
  flowIds: string[];
}

/** The user's assignments: experiment id → variant id. */
type Assignments = Record<string, string>;

/** A first assignment to store; `at` the session's time (ms). */
interface NewAssignment {
  experimentId: string;
  variantId: string;
  at: number;
}

export async function loadRunningExperiments(tx: Executor, tenantId: string): Promise<RunningExperiment[]> {
  const rows = await rawQuery<{
    id: string;
    seed: string;
    audience_id: string | null;
    end_date: Date | string | null;
    variants: { id: string; flowId: string | null; bp: number }[] | string;
  }>(
    tx,
    `select e.id, e.seed, e.audience_id, e.end_date,
            coalesce((select jsonb_agg(jsonb_build_object('id', v.id, 'flowId', v.flow_id, 'bp', v.split_basis_points)
                                       order by v.position)
                      from experiment_variants v where v.tenant_id = e.tenant_id and v.experiment_id = e.id), '[]') as variants
     from experiments e where e.tenant_id = $1 and e.status = 'running'
     order by e.start_date, e.id`,
    [tenantId],
  );
  return rows.map((r) => {
    const variants = jsonValue<{ id: string; flowId: string | null; bp: number }[]>(r.variants) ?? [];
    return {
      id: r.id,
      seed: r.seed,
      audienceId: r.audience_id,
      endDate: r.end_date === null ? null : new Date(r.end_date).getTime(),
      variants: variants.map((v) => ({ id: v.id, flowId: v.flowId, splitPercentage: v.bp / 100 })),
      flowIds: [...new Set(variants.map((v) => v.flowId).filter((f): f is string => f !== null))],
    };
  });
}

/** The user-state column (a jsonb object of experiment id → variant id) read without a schema: it is on every session. */
function parseAssignments(value: unknown): Assignments {
  const parsed = jsonValue<unknown>(value as string | null);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
  const out: Assignments = {};
  for (const [k, v] of Object.entries(parsed as Record<string, unknown>))
    if (typeof v === 'string') out[k] = v;
  return out;
}

/** The pure per-session choice (exported for unit tests). */
export function chooseExperiments(
  running: readonly RunningExperiment[],
  assigned: Assignments | null,
  facts: Pick<SessionFacts, 'endUserId' | 'nowMs' | 'inAudience'>,
): ContributorChoice {
  if (running.length === 0) return {};
  const experiments: ExperimentAssignment[] = [];
  const withhold: string[] = [];
  const remember: NewAssignment[] = [];
  for (const e of running) {
    if (e.endDate !== null && e.endDate <= facts.nowMs) continue;
    const storedId = assigned?.[e.id];
    let variant = storedId === undefined ? undefined : e.variants.find((v) => v.id === storedId);
    if (!variant && storedId === undefined && facts.endUserId !== null) {
      if (e.audienceId === null || facts.inAudience(e.audienceId)) {
        const id = assignVariant(e.seed, facts.endUserId, e.variants);
        variant = id === null ? undefined : e.variants.find((v) => v.id === id);
        if (variant) remember.push({ experimentId: e.id, variantId: variant.id, at: facts.nowMs });
      }
    }
    if (!variant) {
      withhold.push(...e.flowIds);
      continue;
    }
    experiments.push({ experimentId: e.id, variantId: variant.id, flowId: variant.flowId });
    for (const flowId of e.flowIds) if (flowId !== variant.flowId) withhold.push(flowId);
  }
  return { experiments, withhold, remember };
}

/**
 * Stores first assignments, concurrent sessions' together: one INSERT, rows in key order (two
 * instances inserting overlapping sets wait for each other instead of deadlocking), ON CONFLICT
 * DO NOTHING (a concurrent first session of the same user stored the same row: the hash agrees,
 * so every session's choice stands as decided). Only into experiments still running at that moment.
 */
export async function rememberAssignments(
  exec: Executor,
  entries: RememberEntry[],
): Promise<ContributorChoice[]> {
  const rows = new Map<string, { tenantId: string; endUserId: string; a: NewAssignment }>();
  for (const entry of entries) {
    for (const item of (entry.choice.remember ?? []) as NewAssignment[]) {
      rows.set(`${item.experimentId}:${entry.endUserId}`, {
        tenantId: entry.tenantId,
        endUserId: entry.endUserId,
        a: item,
      });
    }
  }
  const choices = entries.map((e) => e.choice);
  if (rows.size === 0) return choices;
  const sorted = [...rows.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
  await rawQuery(
    exec,
    `insert into experiment_assignments (experiment_id, end_user_id, tenant_id, variant_id, assigned_at)
     select x.experiment_id, x.end_user_id, x.tenant_id, x.variant_id, x.at
     from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::timestamptz[])
       with ordinality as x (experiment_id, end_user_id, tenant_id, variant_id, at, i)
     join experiments e on e.id = x.experiment_id and e.tenant_id = x.tenant_id and e.status = 'running'
     order by x.i
     on conflict do nothing`,
    [
      sorted.map((r) => r.a.experimentId),
      sorted.map((r) => r.endUserId),
      sorted.map((r) => r.tenantId),
      sorted.map((r) => r.a.variantId),
      sorted.map((r) => new Date(r.a.at).toISOString()),
    ],
  );
  return choices;
}

export const experimentDelivery: DeliveryContributor<RunningExperiment[], Assignments> = {
  name: 'experiments',
  async load(tx, tenantId) {
    const running = await loadRunningExperiments(tx, tenantId);
    return {
      data: running,
      audienceIds: running.map((e) => e.audienceId).filter((a): a is string => a !== null),
    };
  },
  userState: {
    // Every assignment of the user (a handful); the choice only reads the running experiments'.
    sql: (tenant, endUser) =>
      `(select jsonb_object_agg(a.experiment_id, a.variant_id) from experiment_assignments a
        where a.end_user_id = ${endUser} and a.tenant_id = ${tenant})`,
    parse: (value) => (value === null ? {} : parseAssignments(value)),
  },
  choose: (data, state, facts) => chooseExperiments(data ?? [], state, facts),
  remember: rememberAssignments,
};
