import type { Executor } from '../../db/client.js';

/**
 * When identify merges an anonymous end user into an identified one, every table that points at
 * end users moves its rows from `fromId` to `toId` (inside the merge transaction) before the
 * anonymous row is deleted. Each module owning such a table contributes its merger in its manifest.
 */
export type EndUserMerger = (
  tx: Executor,
  merge: { tenantId: string; fromId: string; toId: string },
) => Promise<void>;

declare module '../../deps.js' {
  interface SeamContracts {
    endUserMerger: EndUserMerger;
  }
}
