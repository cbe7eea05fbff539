import { LRUCache } from 'lru-cache';
import type { Executor } from '../../../db/client.js';
import { type CompiledJourney, compileJourney } from '../engine/graph.js';
import type { GoalConfig } from '../engine/schemas.js';
import { loadCanvases } from '../records.js';

/**
 * Compiled journey graphs, cached per (journey, canvas version): a canvas version never changes
 * once written (`PUT /canvas` bumps the version), so a cached graph is never stale, on any
 * instance. The goal is the row's (a PATCH may change it without a new canvas version).
 */
const compiled = new LRUCache<string, CompiledJourney>({ max: 10_000 });

export interface JourneyHead {
  id: string;
  canvasVersion: number;
  goalConfig: GoalConfig | null;
}

/** The compiled graphs of `heads`: cached ones as they are, the others loaded in one statement. */
export async function graphsOf(exec: Executor, heads: JourneyHead[]): Promise<Map<string, CompiledJourney>> {
  const out = new Map<string, CompiledJourney>();
  const missing: JourneyHead[] = [];
  for (const h of heads) {
    const graph = compiled.get(`${h.id}:${h.canvasVersion}`);
    if (graph) out.set(h.id, graph.goal === h.goalConfig ? graph : { ...graph, goal: h.goalConfig });
    else missing.push(h);
  }
  if (missing.length > 0) {
    const canvases = await loadCanvases(
      exec,
      missing.map((h) => h.id),
    );
    for (const h of missing) {
      const canvas = canvases.get(h.id);
      if (!canvas) continue; // deleted meanwhile
      const graph = compileJourney({ nodes: canvas.nodes, edges: canvas.edges, goalConfig: h.goalConfig });
      // Cached under the version read with the canvas (newer than the head's if a canvas was
      // replaced in between): a key never holds another version's graph.
      compiled.set(`${h.id}:${canvas.version}`, graph);
      out.set(h.id, graph);
    }
  }
  return out;
}
