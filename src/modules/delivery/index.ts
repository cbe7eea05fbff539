import type { ModuleManifest } from '../../deps.js';

/**
 * What `POST /api/sdk/session` serves, as a seam: the contract of delivery contributors
 * (contract.ts), the cached per-tenant snapshot they fill (cache.ts), the session's one lookup
 * statement (lookup.ts) and helpers to build items (items.ts). The choice itself is pure:
 * `engine/delivery.ts`. The module contributes nothing itself; flows, content, experiments and
 * journeys contribute to it.
 */
export const deliveryModule: ModuleManifest = { name: 'delivery' };
