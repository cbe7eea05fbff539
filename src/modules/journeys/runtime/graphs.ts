import { LRUCache } from 'lru-cache';
import type { Executor } from '../../../db/client.js';
import { snapshotsAt } from '../../versions/index.js';
import { type CompiledJourney, compileJourney } from '../engine/graph.js';
import type { GoalConfig, JourneyEdge, JourneyNode, Reentry } from '../engine/schemas.js';
import type { JourneySnapshot } from '../records.js';
import { reentryOf } from './enroll.js';

/**
 * What the engine runs: a published version of a journey (docs/versions.md), compiled, with the
 * versioned fields that decide who enters it. A version never changes once published, so its
 * compiled form is cached per (journey, version) on every instance and is never stale. An
 * enrollment runs the version it entered; new enrollments the journey's live one.
 */
export interface JourneyVersion extends CompiledJourney {
  version: number;
  audienceId: string | null;
  allowAnonymous: boolean;
  reentry: Reentry;
}

const compiled = new LRUCache<string, JourneyVersion>({ max: 10_000 });

/** A version of a journey of a tenant. */
export interface VersionHead {
  tenantId: string;
  journeyId: string;
  version: number;
}

export const versionKey = (journeyId: string, version: number) => `${journeyId}:${version}`;

export function compileVersion(version: number, snapshot: JourneySnapshot): JourneyVersion {
  const graph = compileJourney({
    nodes: snapshot.nodes as unknown as JourneyNode[],
    edges: snapshot.edges as unknown as JourneyEdge[],
    goalConfig: (snapshot.goalConfig ?? null) as GoalConfig | null,
  });
  return {
    ...graph,
    version,
    audienceId: snapshot.audienceId ?? null,
    allowAnonymous: snapshot.allowAnonymous === true,
    reentry: reentryOf(snapshot.settings),
  };
}

/**
 * The compiled versions of `heads`, by `versionKey`: cached ones as they are, the others read in
 * one statement. A version that does not exist (its journey deleted meanwhile) is absent.
 */
export async function graphsOf(
  exec: Executor,
  heads: readonly VersionHead[],
): Promise<Map<string, JourneyVersion>> {
  const out = new Map<string, JourneyVersion>();
  const missing: VersionHead[] = [];
  for (const h of heads) {
    const key = versionKey(h.journeyId, h.version);
    if (out.has(key)) continue;
    const graph = compiled.get(key);
    if (graph) out.set(key, graph);
    else missing.push(h);
  }
  if (missing.length > 0) {
    const snapshots = await snapshotsAt(
      exec,
      'journey',
      missing.map((h) => ({ tenantId: h.tenantId, itemId: h.journeyId, version: h.version })),
    );
    for (const h of missing) {
      const key = versionKey(h.journeyId, h.version);
      const snapshot = snapshots.get(key);
      if (!snapshot || out.has(key)) continue;
      const graph = compileVersion(h.version, snapshot as JourneySnapshot);
      compiled.set(key, graph);
      out.set(key, graph);
    }
  }
  return out;
}
