import type { Executor } from '../db/client.js';

/**
 * A registry of "who refers to this record" finders that each module adds to, so a check such
 * as AUDIENCE_IN_USE covers modules written after it without knowing them.
 */
export interface Referrer {
  type: string;
  id: string;
  name: string;
}

export type ReferenceFinder = (exec: Executor, tenantId: string, targetId: string) => Promise<Referrer[]>;

export function createReferenceRegistry() {
  const finders = new Map<string, ReferenceFinder>();
  return {
    /** Idempotent by name: building several apps in one process registers once. */
    register(name: string, finder: ReferenceFinder): void {
      finders.set(name, finder);
    },
    async findAll(exec: Executor, tenantId: string, targetId: string): Promise<Referrer[]> {
      const found: Referrer[] = [];
      for (const finder of finders.values()) found.push(...(await finder(exec, tenantId, targetId)));
      return found;
    },
    names: (): string[] => [...finders.keys()],
  };
}
export type ReferenceRegistry = ReturnType<typeof createReferenceRegistry>;
