import { and, count, desc, eq, isNull } from 'drizzle-orm';
import type { Executor } from '../../db/client.js';
import { apiKeys } from '../../db/schema/index.js';
import { listPage, type PageRequest } from '../../platform/pagination.js';

// The api-keys module's queries. The SDK's key check and the batched `lastUsedAt` write are the
// guard's (platform/auth/api-key-auth.ts: cached, on the SDK hot path).

/** What a key looks like outside the service: never its hash. */
const publicColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  keyPrefix: apiKeys.keyPrefix,
  tenantId: apiKeys.tenantId,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
  revokedAt: apiKeys.revokedAt,
};
export type ApiKeyRecord = Pick<typeof apiKeys.$inferSelect, keyof typeof publicColumns>;

/** A key the API still shows: not revoked (an expired key is still listed). */
const live = (tenantId: string) => and(eq(apiKeys.tenantId, tenantId), isNull(apiKeys.revokedAt));

export async function insertApiKey(
  exec: Executor,
  key: Omit<typeof apiKeys.$inferInsert, 'createdAt' | 'lastUsedAt' | 'revokedAt'>,
): Promise<ApiKeyRecord> {
  const [row] = await exec.insert(apiKeys).values(key).returning(publicColumns);
  return row!;
}

/** The tenant's live keys, newest first. */
export async function listApiKeysPage(exec: Executor, tenantId: string, page: PageRequest) {
  const where = live(tenantId);
  return listPage(
    exec.select(publicColumns).from(apiKeys).where(where).orderBy(desc(apiKeys.createdAt), desc(apiKeys.id)),
    exec.select({ n: count() }).from(apiKeys).where(where),
    page,
  );
}

export async function findApiKey(
  exec: Executor,
  tenantId: string,
  id: string,
): Promise<ApiKeyRecord | undefined> {
  const [row] = await exec
    .select(publicColumns)
    .from(apiKeys)
    .where(and(live(tenantId), eq(apiKeys.id, id)))
    .limit(1);
  return row;
}

/** Revokes the live key `id` at `now`; undefined when there is none. */
export async function markApiKeyRevoked(exec: Executor, tenantId: string, id: string, now: Date) {
  const [row] = await exec
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(live(tenantId), eq(apiKeys.id, id)))
    .returning({ name: apiKeys.name, keyPrefix: apiKeys.keyPrefix });
  return row;
}
