import type { Executor } from '../db/client.js';

/**
 * Cross-module links that the owning module cannot know about in advance, filled in by each
 * module at registration:
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
export type ReferenceTarget = 'audience' | 'flow';

export type ReferenceFinder = (exec: Executor, tenantId: string, targetId: string) => Promise<Referrer[]>;
/** Disables the dependents of `targetId` inside the caller's transaction; returns what it changed. */
export type DependentDisabler = (exec: Executor, tenantId: string, targetId: string) => Promise<Referrer[]>;

export function createReferenceRegistry() {
  const finders = new Map<string, ReferenceFinder>();
  const disablers = new Map<string, DependentDisabler>();
  const key = (target: ReferenceTarget, name: string) => `${target}:${name}`;
  const collect = async <F extends ReferenceFinder>(
    map: Map<string, F>,
    target: ReferenceTarget,
    exec: Executor,
    tenantId: string,
    id: string,
  ) => {
    const found: Referrer[] = [];
    for (const [k, fn] of map) if (k.startsWith(`${target}:`)) found.push(...(await fn(exec, tenantId, id)));
    return found;
  };
  return {
    /** Idempotent by (target, name): building several apps in one process registers once each. */
    registerFinder(target: ReferenceTarget, name: string, finder: ReferenceFinder): void {
      finders.set(key(target, name), finder);
    },
    registerDisabler(target: ReferenceTarget, name: string, disabler: DependentDisabler): void {
      disablers.set(key(target, name), disabler);
    },
    findReferrers: (exec: Executor, target: ReferenceTarget, tenantId: string, id: string) =>
      collect(finders, target, exec, tenantId, id),
    disableDependents: (exec: Executor, target: ReferenceTarget, tenantId: string, id: string) =>
      collect(disablers, target, exec, tenantId, id),
  };
}
export type ReferenceRegistry = ReturnType<typeof createReferenceRegistry>;
