import { inArray, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import { createLoadingCache } from '../cache.js';
import type { ChangeFeed } from '../change-feed.js';
import { sha256 } from '../crypto.js';
import { AppError } from '../errors.js';

export const API_KEY_PREFIX = 'wfx_';
export const API_KEY_RE = /^wfx_[0-9a-f]{64}$/;
/** The change-feed topic announcing a key's revocation or new expiry (migration 0020). */
export const API_KEY_TOPIC = 'api-key';
const MAX_CACHED_KEYS = 50_000;

export interface SdkAuth {
  apiKeyId: string;
  tenantId: string;
}

type KnownKey = (SdkAuth & { expiresAt: number | null; revoked: boolean }) | null;

/**
 * Verifies SDK API keys on the hot path without a database read per request: verified keys
 * (and unknown ones) are cached briefly, a revocation or new expiry evicts them everywhere
 * through the change feed, and `lastUsedAt` is written in one batched UPDATE every few seconds.
 */
export function createApiKeyVerifier(opts: {
  db: Database;
  changes: ChangeFeed;
  cacheTtlMs: number;
  now?: () => number;
}) {
  const now = opts.now ?? Date.now;
  const lastUsed = new Map<string, number>();
  const keys = createLoadingCache<KnownKey>({
    ttlMs: opts.cacheTtlMs,
    maxEntries: MAX_CACHED_KEYS,
    clock: now,
    async load(keyHash) {
      const [row] = await opts.db
        .select({
          id: apiKeys.id,
          tenantId: apiKeys.tenantId,
          expiresAt: apiKeys.expiresAt,
          revokedAt: apiKeys.revokedAt,
        })
        .from(apiKeys)
        .where(sql`${apiKeys.keyHash} = ${keyHash}`)
        .limit(1);
      if (!row) return null;
      return {
        apiKeyId: row.id,
        tenantId: row.tenantId,
        expiresAt: row.expiresAt ? row.expiresAt.getTime() : null,
        revoked: row.revokedAt !== null,
      };
    },
  });
  // The hash of a presented key, remembered: hashing on every request cost ~5% of the config
  // path's CPU. SDK keys are published in customers' pages anyway; only hashes are stored. A
  // remembered key has passed the format check, so only a new one is matched against it.
  const hashes = new Map<string, string>();
  const hashOf = (rawKey: string | undefined): string | undefined => {
    if (!rawKey) return undefined;
    let hash = hashes.get(rawKey);
    if (hash === undefined) {
      if (!API_KEY_RE.test(rawKey)) return undefined;
      if (hashes.size >= MAX_CACHED_KEYS) hashes.clear();
      hash = sha256(rawKey);
      hashes.set(rawKey, hash);
    }
    return hash;
  };
  opts.changes.subscribe(API_KEY_TOPIC, (keyHash) => keys.invalidate(keyHash));
  opts.changes.onReset(() => keys.clear());

  return {
    async verify(rawKey: string | undefined): Promise<SdkAuth> {
      const keyHash = hashOf(rawKey);
      if (keyHash === undefined) throw new AppError('AUTH_FAILED');
      const key = await keys.get(keyHash);
      const t = now();
      if (!key || key.revoked || (key.expiresAt !== null && key.expiresAt <= t))
        throw new AppError('AUTH_FAILED');
      lastUsed.set(key.apiKeyId, t);
      return { apiKeyId: key.apiKeyId, tenantId: key.tenantId };
    },
    async flushLastUsed(): Promise<void> {
      if (lastUsed.size === 0) return;
      const batch = [...lastUsed.entries()];
      lastUsed.clear();
      const ids = batch.map(([id]) => id);
      const times = batch.map(([, ms]) => new Date(ms).toISOString());
      await opts.db
        .update(apiKeys)
        .set({
          lastUsedAt: sql`greatest(${apiKeys.lastUsedAt}, u.t)`,
        })
        .from(sql`unnest(${sql.param(ids)}::uuid[], ${sql.param(times)}::timestamptz[]) as u(id, t)`)
        .where(sql`${apiKeys.id} = u.id and ${inArray(apiKeys.id, ids)}`);
    },
  };
}
export type ApiKeyVerifier = ReturnType<typeof createApiKeyVerifier>;
