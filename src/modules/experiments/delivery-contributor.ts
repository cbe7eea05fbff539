import type { Executor } from '../../db/client.js';
import type {
  ContributorChoice,
  DeliveryContributor,
  ExperimentAssignment,
  RememberEntry,
  SessionFacts,
} from '../delivery/index.js';
import { assignVariant } from './engine/assignment.js';
import { type Assignments, assignmentsOfUser, insertAssignments, listRunningExperiments } from './store.js';

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

/** A first assignment to store; `at` the session's time (ms). */
interface NewAssignment {
  experimentId: string;
  variantId: string;
  at: number;
}

export async function loadRunningExperiments(tx: Executor, tenantId: string): Promise<RunningExperiment[]> {
  const rows = await listRunningExperiments(tx, tenantId);
  return rows.map((r) => ({
    id: r.id,
    seed: r.seed,
    audienceId: r.audienceId,
    endDate: r.endDate === null ? null : r.endDate.getTime(),
    variants: r.variants.map((v) => ({ id: v.id, flowId: v.flowId, splitPercentage: v.bp / 100 })),
    flowIds: [...new Set(r.variants.map((v) => v.flowId).filter((f): f is string => f !== null))],
  }));
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
  const rows = entries.flatMap((entry) =>
    ((entry.choice.remember ?? []) as NewAssignment[]).map((a) => ({
      experimentId: a.experimentId,
      endUserId: entry.endUserId,
      tenantId: entry.tenantId,
      variantId: a.variantId,
      assignedAt: a.at,
    })),
  );
  await insertAssignments(exec, rows);
  return entries.map((e) => e.choice);
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
  // Every assignment of the user (a handful); the choice only reads the running experiments'.
  userState: assignmentsOfUser,
  choose: (data, state, facts) => chooseExperiments(data ?? [], state, facts),
  remember: rememberAssignments,
};
