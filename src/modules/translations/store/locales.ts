import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../../db/client.js';
import { type Locale, locales } from '../../../db/schema/index.js';
import { isUuid } from '../../../platform/ids.js';

/** The queries of the `locales` table. */

export type { Locale };
export type NewLocale = typeof locales.$inferInsert;

const localeColumns = {
  id: locales.id,
  tenantId: locales.tenantId,
  code: locales.code,
  name: locales.name,
  isDefault: locales.isDefault,
  isRtl: locales.isRtl,
  createdAt: locales.createdAt,
  updatedAt: locales.updatedAt,
};

/** Makes the tenant's locale writes run one at a time, until the transaction ends. */
export async function lockTenantLocales(tx: Transaction, tenantId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`locales:${tenantId}`}, 0))`);
}

/** The tenant's locale with this code (case-insensitive). */
export async function findLocaleByCode(
  exec: Executor,
  tenantId: string,
  code: string,
): Promise<Locale | undefined> {
  const [row] = await exec
    .select(localeColumns)
    .from(locales)
    .where(and(eq(locales.tenantId, tenantId), sql`lower(${locales.code}) = lower(${code})`))
    .limit(1);
  return row;
}

/** The tenant's locales, the default first, then by code. */
export function listLocales(exec: Executor, tenantId: string): Promise<Locale[]> {
  return exec
    .select(localeColumns)
    .from(locales)
    .where(eq(locales.tenantId, tenantId))
    .orderBy(desc(locales.isDefault), asc(locales.code));
}

/** The tenant's locale `id` (locked for the rest of the transaction with `lock`); a malformed id matches nothing. */
export async function findLocale(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<Locale | undefined> {
  if (!isUuid(id)) return undefined;
  const query = exec
    .select(localeColumns)
    .from(locales)
    .where(and(eq(locales.tenantId, tenantId), eq(locales.id, id)))
    .limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

/** Whether the tenant has any locale. */
export async function hasLocales(exec: Executor, tenantId: string): Promise<boolean> {
  const [row] = await exec
    .select({ id: locales.id })
    .from(locales)
    .where(eq(locales.tenantId, tenantId))
    .limit(1);
  return Boolean(row);
}

/** The tenant's oldest locale (createdAt, then code). */
export async function findOldestLocale(exec: Executor, tenantId: string): Promise<Locale | undefined> {
  const [row] = await exec
    .select(localeColumns)
    .from(locales)
    .where(eq(locales.tenantId, tenantId))
    .orderBy(asc(locales.createdAt), asc(locales.code))
    .limit(1);
  return row;
}

export async function insertLocale(exec: Executor, values: NewLocale): Promise<Locale> {
  const [row] = await exec.insert(locales).values(values).returning(localeColumns);
  return row!;
}

/** Writes `set` (and updatedAt) on the tenant's locale; the row after, or undefined when there is none. */
export async function updateLocaleRow(
  exec: Executor,
  tenantId: string,
  id: string,
  set: Partial<Pick<Locale, 'name' | 'isRtl' | 'isDefault'>>,
): Promise<Locale | undefined> {
  const [row] = await exec
    .update(locales)
    .set({ ...set, updatedAt: sql`now()` })
    .where(and(eq(locales.tenantId, tenantId), eq(locales.id, id)))
    .returning(localeColumns);
  return row;
}

/** The tenant's default locale is no longer the default (it then has none). */
export async function unsetDefaultLocale(exec: Executor, tenantId: string): Promise<void> {
  await exec
    .update(locales)
    .set({ isDefault: false, updatedAt: sql`now()` })
    .where(and(eq(locales.tenantId, tenantId), eq(locales.isDefault, true)));
}

export async function deleteLocaleRow(exec: Executor, tenantId: string, id: string): Promise<void> {
  await exec.delete(locales).where(and(eq(locales.tenantId, tenantId), eq(locales.id, id)));
}
