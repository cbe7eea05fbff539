import { and, count, desc, eq, inArray, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { sqlRows } from '../../../db/raw.js';
import { type Locale, locales, type Translation, translations } from '../../../db/schema/index.js';
import { columnList } from '../../../db/statements.js';
import { isUuid } from '../../../platform/ids.js';
import { listPage, type PageRequest } from '../../../platform/pagination.js';

/** The queries of the `translations` table (joined with `locales` where a translation names its locale). */

export type { Translation };
export type NewTranslation = typeof translations.$inferInsert;

const columns = {
  id: translations.id,
  tenantId: translations.tenantId,
  localeId: translations.localeId,
  contentType: translations.contentType,
  contentId: translations.contentId,
  fieldName: translations.fieldName,
  value: translations.value,
  version: translations.version,
  createdAt: translations.createdAt,
  updatedAt: translations.updatedAt,
};

const withLocaleColumns = { ...columns, locale: { code: locales.code, name: locales.name } };

/** A translation with the code and name of its locale. */
export type TranslationWithLocale = Translation & { locale: { code: string; name: string } };

const localeJoin = and(eq(locales.id, translations.localeId), eq(locales.tenantId, translations.tenantId));

/** The unique key of a translation (`translations_key`). */
export interface TranslationKey {
  localeId: string;
  contentType: string;
  contentId: string;
  fieldName: string;
}

const keyTarget = [
  translations.localeId,
  translations.contentType,
  translations.contentId,
  translations.fieldName,
];

/** The tenant's translation at `key`. */
const keyWhere = (tenantId: string, key: TranslationKey) =>
  and(
    eq(translations.tenantId, tenantId),
    eq(translations.localeId, key.localeId),
    eq(translations.contentType, key.contentType),
    eq(translations.contentId, key.contentId),
    eq(translations.fieldName, key.fieldName),
  );

/** Every write: the new value, version + 1. */
const newValue = (value: string) => ({
  value,
  version: sql`${translations.version} + 1`,
  updatedAt: sql`now()`,
});

export interface TranslationFilter {
  contentType?: string | undefined;
  contentId?: string | undefined;
  /** Case-insensitive. */
  localeCode?: string | undefined;
}

/** A page of the tenant's translations, newest first, each with its locale. */
export function listTranslationsPage(
  exec: Executor,
  tenantId: string,
  filter: TranslationFilter,
  page: PageRequest,
) {
  const where: SQL[] = [eq(translations.tenantId, tenantId)];
  if (filter.contentType !== undefined) where.push(eq(translations.contentType, filter.contentType));
  if (filter.contentId !== undefined) where.push(eq(translations.contentId, filter.contentId));
  if (filter.localeCode !== undefined) where.push(sql`lower(${locales.code}) = lower(${filter.localeCode})`);
  return listPage(
    exec
      .select(withLocaleColumns)
      .from(translations)
      .innerJoin(locales, localeJoin)
      .where(and(...where))
      .orderBy(desc(translations.createdAt), desc(translations.id)),
    exec
      .select({ n: count() })
      .from(translations)
      .innerJoin(locales, localeJoin)
      .where(and(...where)),
    page,
  );
}

/** The tenant's translation `id` with its locale; a malformed id matches nothing. */
export async function findTranslation(
  exec: Executor,
  tenantId: string,
  id: string,
): Promise<TranslationWithLocale | undefined> {
  if (!isUuid(id)) return undefined;
  const [row] = await exec
    .select(withLocaleColumns)
    .from(translations)
    .innerJoin(locales, localeJoin)
    .where(and(eq(translations.tenantId, tenantId), eq(translations.id, id)))
    .limit(1);
  return row;
}

/** The version and value of the tenant's translation at `key`. */
export async function findTranslationAtKey(
  exec: Executor,
  tenantId: string,
  key: TranslationKey,
): Promise<Pick<Translation, 'version' | 'value'> | undefined> {
  const [row] = await exec
    .select({ version: translations.version, value: translations.value })
    .from(translations)
    .where(keyWhere(tenantId, key))
    .limit(1);
  return row;
}

/** Inserts `row` (version 1), or writes its value on the translation at its key (version + 1). */
export async function upsertTranslationRow(
  exec: Executor,
  row: NewTranslation & TranslationKey,
): Promise<{ row: Translation; created: boolean }> {
  const [upserted] = await exec
    .insert(translations)
    .values(row)
    .onConflictDoUpdate({ target: keyTarget, set: newValue(row.value) })
    .returning({ ...columns, inserted: sql<boolean>`(xmax = 0)` });
  const { inserted, ...stored } = upserted!;
  return { row: stored, created: inserted };
}

/** Inserts `row` unless its key exists; the row inserted, or undefined. */
export async function insertTranslationIfAbsent(
  exec: Executor,
  row: NewTranslation & TranslationKey,
): Promise<Translation | undefined> {
  const [inserted] = await exec
    .insert(translations)
    .values(row)
    .onConflictDoNothing({ target: keyTarget })
    .returning(columns);
  return inserted;
}

/** Writes `value` on the tenant's translation at `key` if its version is `version`; the row after, or undefined. */
export async function updateTranslationAtKey(
  exec: Executor,
  tenantId: string,
  key: TranslationKey,
  value: string,
  version: number,
): Promise<Translation | undefined> {
  const [row] = await exec
    .update(translations)
    .set(newValue(value))
    .where(and(keyWhere(tenantId, key), eq(translations.version, version)))
    .returning(columns);
  return row;
}

/**
 * Writes `value` on the tenant's translation `id`, if its version is `version` when one is
 * given; whether it was written.
 */
export async function updateTranslationById(
  exec: Executor,
  tenantId: string,
  id: string,
  value: string,
  version: number | undefined,
): Promise<boolean> {
  const where = [eq(translations.tenantId, tenantId), eq(translations.id, id)];
  if (version !== undefined) where.push(eq(translations.version, version));
  const [row] = await exec
    .update(translations)
    .set(newValue(value))
    .where(and(...where))
    .returning({ id: translations.id });
  return Boolean(row);
}

export async function countTranslationsOfLocale(
  exec: Executor,
  tenantId: string,
  localeId: string,
): Promise<number> {
  const [row] = await exec
    .select({ n: count() })
    .from(translations)
    .where(and(eq(translations.tenantId, tenantId), eq(translations.localeId, localeId)));
  return row?.n ?? 0;
}

export async function deleteTranslationsOfLocale(
  exec: Executor,
  tenantId: string,
  localeId: string,
): Promise<void> {
  await exec
    .delete(translations)
    .where(and(eq(translations.tenantId, tenantId), eq(translations.localeId, localeId)));
}

/**
 * Upserts the rows in the order given in ONE statement (INSERT ... SELECT FROM unnest(...) ON
 * CONFLICT DO UPDATE: an existing key gets the new value and version + 1); how many were
 * created and how many updated. Raw: the query builder has no unnest, nor a count over the
 * rows an upsert returned.
 */
export async function upsertTranslationRows(
  exec: Executor,
  tenantId: string,
  rows: (TranslationKey & { id: string; value: string })[],
): Promise<{ created: number; updated: number }> {
  const t = translations;
  const [counts] = await sqlRows<{ created: number; updated: number }>(
    exec,
    sql`
      with up as (
        insert into ${t} ${columnList([t.id, t.tenantId, t.localeId, t.contentType, t.contentId, t.fieldName, t.value, t.version])}
        select r.id, ${tenantId}::uuid, r.locale_id, r.content_type, r.content_id, r.field_name, r.value, 1
        from unnest(
          ${sql.param(rows.map((r) => r.id))}::uuid[], ${sql.param(rows.map((r) => r.localeId))}::uuid[],
          ${sql.param(rows.map((r) => r.contentType))}::text[], ${sql.param(rows.map((r) => r.contentId))}::text[],
          ${sql.param(rows.map((r) => r.fieldName))}::text[], ${sql.param(rows.map((r) => r.value))}::text[]
        ) with ordinality as r(id, locale_id, content_type, content_id, field_name, value, ord)
        order by r.ord
        on conflict ${columnList([t.localeId, t.contentType, t.contentId, t.fieldName])} do update
          set ${sql.identifier(t.value.name)} = excluded.value, ${sql.identifier(t.version.name)} = ${t.version} + 1,
              ${sql.identifier(t.updatedAt.name)} = now()
        returning (xmax = 0) as inserted
      )
      select (count(*) filter (where inserted))::int as created,
             (count(*) filter (where not inserted))::int as updated
      from up`,
  );
  return { created: counts?.created ?? 0, updated: counts?.updated ?? 0 };
}

/** One locale's row of the status: its translated keys against every key. */
export type LocaleStatusRow = Pick<Locale, 'code' | 'name' | 'isDefault'> & {
  translated: number;
  total: number;
};

/**
 * For each locale of the tenant (the default first, then by code), how many of the tenant's
 * translatable keys — distinct (contentType, contentId, fieldName) seen in any locale,
 * optionally of one contentType — have a non-blank value in that locale. One statement (CTEs).
 */
export function countTranslatedKeys(
  exec: Executor,
  tenantId: string,
  contentType: string | undefined,
): Promise<LocaleStatusRow[]> {
  const t = translations;
  const l = locales;
  const typeFilter = contentType === undefined ? sql`` : sql`and ${t.contentType} = ${contentType}`;
  return sqlRows<LocaleStatusRow>(
    exec,
    sql`
      with scoped as (
        select ${t.localeId} as locale_id, ${t.contentType} as content_type, ${t.contentId} as content_id,
               ${t.fieldName} as field_name, ${t.value} as value
        from ${t}
        where ${t.tenantId} = ${tenantId} ${typeFilter}
      ),
      total as (
        select count(*)::int as n
        from (select distinct content_type, content_id, field_name from scoped) k
      ),
      done as (
        select locale_id, count(*)::int as n
        from scoped
        where btrim(value) <> ''
        group by locale_id
      )
      select ${l.code} as "code", ${l.name} as "name", ${l.isDefault} as "isDefault",
             coalesce(d.n, 0)::int as "translated", total.n as "total"
      from ${l}
      cross join total
      left join done d on d.locale_id = ${l.id}
      where ${l.tenantId} = ${tenantId}
      order by ${l.isDefault} desc, ${l.code} asc`,
  );
}

/** A translation as delivery reads it, ranked by its locale: 0 the requested, 1 its base language, 2 the default. */
export type RankedTranslation = Pick<Translation, 'contentType' | 'contentId' | 'fieldName' | 'value'> & {
  rank: number;
};

/**
 * The tenant's non-blank translations of the listed records in the locale `requested`, its base
 * language `base` and the default locale (codes lower-cased; null: none), in one statement.
 */
export function findTranslationsOf(
  exec: Executor,
  tenantId: string,
  locale: { requested: string | null; base: string | null },
  records: { contentTypes: string[]; contentIds: string[] },
): Promise<RankedTranslation[]> {
  const code = sql`lower(${locales.code})`;
  return exec
    .select({
      contentType: translations.contentType,
      contentId: translations.contentId,
      fieldName: translations.fieldName,
      value: translations.value,
      rank: sql<number>`case when ${code} = ${locale.requested} then 0 when ${code} = ${locale.base} then 1 else 2 end`,
    })
    .from(translations)
    .innerJoin(locales, localeJoin)
    .where(
      and(
        eq(translations.tenantId, tenantId),
        sql`btrim(${translations.value}) <> ''`,
        or(sql`${code} = ${locale.requested}`, sql`${code} = ${locale.base}`, eq(locales.isDefault, true)),
        sql`(${translations.contentType}, ${translations.contentId}) in (
          select * from unnest(${sql.param(records.contentTypes)}::text[], ${sql.param(records.contentIds)}::text[]))`,
      ),
    );
}

/** The keys, values and versions of the tenant's translations into `localeId` of the records `contentIds`. */
export function findTranslationsOfRecords(
  exec: Executor,
  tenantId: string,
  localeId: string,
  contentIds: string[],
): Promise<Pick<Translation, 'contentType' | 'contentId' | 'fieldName' | 'value' | 'version'>[]> {
  return exec
    .select({
      contentType: translations.contentType,
      contentId: translations.contentId,
      fieldName: translations.fieldName,
      value: translations.value,
      version: translations.version,
    })
    .from(translations)
    .where(
      and(
        eq(translations.tenantId, tenantId),
        eq(translations.localeId, localeId),
        inArray(translations.contentId, contentIds),
      ),
    );
}
