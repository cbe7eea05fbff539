import { createHash } from 'node:crypto';
import type { Database } from '../../db/client.js';
import { createLoadingCache } from '../../platform/cache.js';
import type { ChangeFeed } from '../../platform/change-feed.js';
import { getTenantPlan } from '../pricing/index.js';
import { listLocales } from '../translations/index.js';
import { findTenantConfig } from './store.js';

/** The SDK config of a tenant, serialized and encoded once: the body bytes and their strong ETag. */
export interface ConfigEntry {
  body: Buffer;
  etag: string;
}

/** At most this long between a change and every instance serving it, even if an invalidation is lost. */
export const CONFIG_TTL_MS = 60_000;

export async function loadSdkConfig(db: Database, tenantId: string): Promise<ConfigEntry> {
  const [tenant, plan, rows] = await Promise.all([
    findTenantConfig(db, tenantId),
    getTenantPlan(db, tenantId),
    listLocales(db, tenantId),
  ]);
  const tenantLocales = rows.map(({ code, name, isDefault, isRtl }) => ({ code, name, isDefault, isRtl }));
  const body = Buffer.from(
    JSON.stringify({
      data: {
        name: tenant?.name ?? '',
        plan: plan.name,
        settings: tenant?.settings ?? {},
        features: plan.features,
        locales: tenantLocales,
        defaultLocale: tenantLocales.find((l) => l.isDefault)?.code ?? null,
      },
    }),
  );
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/** The change-feed topic of a tenant's SDK config: name, settings, plan, locales (migration 0020). */
export const TENANT_CONFIG_TOPIC = 'tenant-config';

/**
 * Per-tenant cache of the SDK config. An entry is dropped when the database announces a change
 * of the tenant's config (on every instance, through the change feed; key `*`: every tenant, a
 * plan changed) and expires after CONFIG_TTL_MS anyway. Concurrent misses of one tenant share one
 * load; a load that an invalidation overtook is answered but not kept.
 */
export function createConfigCache(opts: {
  db: Database;
  changes: ChangeFeed;
  clock: () => number;
  maxTenants?: number;
}) {
  const cache = createLoadingCache<ConfigEntry>({
    load: (tenantId) => loadSdkConfig(opts.db, tenantId),
    ttlMs: CONFIG_TTL_MS,
    maxEntries: opts.maxTenants ?? 10_000,
    clock: opts.clock,
  });
  opts.changes.subscribe(TENANT_CONFIG_TOPIC, (tenantId) =>
    tenantId === '*' ? cache.clear() : cache.invalidate(tenantId),
  );
  opts.changes.onReset(cache.clear);
  return cache;
}
export type ConfigCache = ReturnType<typeof createConfigCache>;
