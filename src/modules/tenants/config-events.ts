import type { InvalidationBus } from '../../platform/redis.js';

/**
 * Tenant name/settings changes, told to every instance through the invalidation bus so a
 * cached SDK config (`GET /api/sdk/config`) can be dropped. The key is the tenant id.
 */
export const TENANT_CONFIG_CHANNEL = 'tenant-config';

export const publishTenantConfigChanged = (bus: InvalidationBus, tenantId: string): Promise<void> =>
  bus.publish(TENANT_CONFIG_CHANNEL, tenantId);

/** For caches of tenant configuration: `handler(tenantId)` runs after each committed change. */
export const onTenantConfigChanged = (bus: InvalidationBus, handler: (tenantId: string) => void): void =>
  bus.subscribe(TENANT_CONFIG_CHANNEL, handler);
