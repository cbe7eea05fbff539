import type { EventEffect } from '../events/index.js';
import { idIn } from '../events/index.js';
import { recordExposures } from './store.js';

/**
 * The serve ledger's second source (docs/delivery-policy.md): an item counts against the
 * delivery policy's caps when a session serves it to start by itself, and when its exposure
 * events arrive (FLOW_STARTED with `flowId`, CONTENT_RENDERED with `contentId`), e.g. a flow
 * started by `startFlow`. Only tenants with a policy get rows; a chunk without exposure events
 * runs no statement.
 */
export const deliveryExposuresEffect: EventEffect = {
  name: 'delivery-exposures',
  runsAfter: ['end-user-activity'],
  async apply(tx, batches) {
    const rows: Parameters<typeof recordExposures>[1] = [];
    for (const batch of batches) {
      for (const event of batch.events) {
        const key =
          event.type === 'FLOW_STARTED' ? 'flowId' : event.type === 'CONTENT_RENDERED' ? 'contentId' : null;
        if (key === null || (!event.userId && !event.anonymousId)) continue;
        const itemId = idIn(event.properties, [key]);
        if (!itemId) continue;
        rows.push({
          tenantId: batch.tenantId,
          ext: event.userId ?? null,
          anon: event.userId ? null : (event.anonymousId ?? null),
          itemId,
          at: event.timestamp,
        });
      }
    }
    await recordExposures(tx, rows);
  },
};
