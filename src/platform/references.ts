import type { Executor } from '../db/client.js';

/**
 * Cross-module links that the owning module cannot know about in advance, contributed by each
 * module's manifest:
 * - finders answer "who refers to this record?" (409 AUDIENCE_IN_USE lists them);
 * - disablers switch off what depends on a record being removed (a flow deleted with
 *   `disableDependents=true` pauses journeys, unpublishes task lists, stops experiments).
 */
export interface Referrer {
  type: string;
  id: string;
  name: string;
}

/** Kinds of record that others may reference. */
export type ReferenceTarget = 'audience' | 'flow' | 'content';

export type ReferenceFinder = (exec: Executor, tenantId: string, targetId: string) => Promise<Referrer[]>;
/** Disables the dependents of `targetId` inside the caller's transaction; returns what it changed. */
export type DependentDisabler = (
  exec: Executor,
  tenantId: string,
  targetId: string,
  now: Date,
) => Promise<Referrer[]>;

export interface ReferenceFinderEntry {
  target: ReferenceTarget;
  name: string;
  find: ReferenceFinder;
}
export interface DependentDisablerEntry {
  target: ReferenceTarget;
  name: string;
  disable: DependentDisabler;
}

export function createReferenceRegistry(
  finders: readonly ReferenceFinderEntry[],
  disablers: readonly DependentDisablerEntry[],
) {
  return {
    async findReferrers(exec: Executor, target: ReferenceTarget, tenantId: string, id: string) {
      const found: Referrer[] = [];
      for (const f of finders) if (f.target === target) found.push(...(await f.find(exec, tenantId, id)));
      return found;
    },
    async disableDependents(
      exec: Executor,
      target: ReferenceTarget,
      tenantId: string,
      id: string,
      now: Date,
    ) {
      const changed: Referrer[] = [];
      for (const d of disablers)
        if (d.target === target) changed.push(...(await d.disable(exec, tenantId, id, now)));
      return changed;
    },
  };
}
export type ReferenceRegistry = ReturnType<typeof createReferenceRegistry>;
