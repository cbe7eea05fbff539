import { createHash } from 'node:crypto';
import { asc, desc, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { locales, tenants } from '../../db/schema/index.js';
import type { InvalidationBus } from '../../platform/redis.js';
import { getTenantPlan } from '../pricing/enforce.js';
import { onTenantConfigChanged } from '../tenants/config-events.js';

/** The SDK config of a tenant, serialized once: the body string and its strong ETag. */
export interface ConfigEntry {
  body: string;
  etag: string;
}

/** At most this long between a change and every instance serving it, even if an invalidation is lost. */
export const CONFIG_TTL_MS = 60_000;

export async function loadSdkConfig(db: Database, tenantId: string): Promise<ConfigEntry> {
  const [[tenant], plan, rows] = await Promise.all([
    db
      .select({ name: tenants.name, settings: tenants.settings })
      .from(tenants)
      .where(eq(tenants.id, tenantId)),
    getTenantPlan(db, tenantId),
    db
      .select({ code: locales.code, name: locales.name, isDefault: locales.isDefault, isRtl: locales.isRtl })
      .from(locales)
      .where(eq(locales.tenantId, tenantId))
      .orderBy(desc(locales.isDefault), asc(locales.code)),
  ]);
  const body = JSON.stringify({
    data: {
      name: tenant?.name ?? '',
      plan: plan.name,
      settings: tenant?.settings ?? {},
      features: plan.features,
      locales: rows,
      defaultLocale: rows.find((l) => l.isDefault)?.code ?? null,
    },
  });
  return { body, etag: `"${createHash('sha1').update(body).digest('base64url')}"` };
}

/**
 * Per-tenant cache of the SDK config. An entry is dropped when `tenant-config` is published
 * for its tenant (settings, plan, locales: on every instance through the bus) and expires after
 * CONFIG_TTL_MS anyway. Concurrent misses of one tenant share one load; a load that an
 * invalidation overtook is answered but not kept.
 */
export function createConfigCache(opts: {
  db: Database;
  bus: InvalidationBus;
  clock: () => number;
  maxTenants?: number;
}) {
  const maxTenants = opts.maxTenants ?? 10_000;
  const entries = new Map<string, ConfigEntry & { expiresAt: number }>();
  const loading = new Map<string, Promise<ConfigEntry>>();
  const generation = new Map<string, number>();

  const invalidate = (tenantId: string) => {
    entries.delete(tenantId);
    loading.delete(tenantId);
    generation.set(tenantId, (generation.get(tenantId) ?? 0) + 1);
    if (generation.size > maxTenants) generation.clear();
  };
  onTenantConfigChanged(opts.bus, invalidate);

  function miss(tenantId: string): Promise<ConfigEntry> {
    const pending = loading.get(tenantId);
    if (pending) return pending;
    const gen = generation.get(tenantId) ?? 0;
    const started = loadSdkConfig(opts.db, tenantId).then(
      (entry) => {
        if (loading.get(tenantId) === started) loading.delete(tenantId);
        if ((generation.get(tenantId) ?? 0) === gen) {
          if (entries.size >= maxTenants) entries.clear();
          entries.set(tenantId, { ...entry, expiresAt: opts.clock() + CONFIG_TTL_MS });
        }
        return entry;
      },
      (err) => {
        if (loading.get(tenantId) === started) loading.delete(tenantId);
        throw err;
      },
    );
    loading.set(tenantId, started);
    return started;
  }

  return {
    /** The cached entry (a value on a hit, else a promise). */
    get(tenantId: string): ConfigEntry | Promise<ConfigEntry> {
      const hit = entries.get(tenantId);
      if (hit && hit.expiresAt > opts.clock()) return hit;
      return miss(tenantId);
    },
    invalidate,
  };
}
export type ConfigCache = ReturnType<typeof createConfigCache>;

/** Whether an `If-None-Match` header names this ETag (a list, weak forms and `*` included). */
export function etagMatches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true;
  for (const raw of header.split(',')) {
    let tag = raw.trim();
    if (tag === '*') return true;
    if (tag.startsWith('W/')) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}
