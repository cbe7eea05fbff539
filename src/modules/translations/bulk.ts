import { eq, sql } from 'drizzle-orm';
import { isForeignKeyViolation } from '../../db/errors.js';
import { sqlRows } from '../../db/raw.js';
import { locales } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { type ValidationIssue, validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import type { BulkTranslationRow } from './schemas.js';

/**
 * POST /api/translations/bulk: all or nothing. Every row is checked first (unknown locale →
 * `translations.N.localeCode`; the same key twice → `translations.N` on the later row), then
 * all rows are upserted by ONE statement (INSERT ... SELECT FROM unnest(...) ON CONFLICT DO
 * UPDATE); an existing key gets the new value and version + 1.
 */
export async function bulkUpsertTranslations(
  ctx: ServiceCtx,
  rows: BulkTranslationRow[],
): Promise<{ created: number; updated: number }> {
  await assertFeatureEnabled(ctx.db, ctx.tenantId, 'translations', ctx.now);
  const tenantLocales = await ctx.db
    .select({ id: locales.id, code: locales.code })
    .from(locales)
    .where(eq(locales.tenantId, ctx.tenantId));
  const byCode = new Map(tenantLocales.map((l) => [l.code.toLowerCase(), l]));

  const issues: ValidationIssue[] = [];
  const firstIndex = new Map<string, number>();
  const resolved: { key: string; localeId: string; row: BulkTranslationRow }[] = [];
  rows.forEach((row, i) => {
    const locale = byCode.get(row.localeCode.toLowerCase());
    if (!locale) {
      issues.push({ path: `translations.${i}.localeCode`, message: `unknown locale "${row.localeCode}"` });
      return;
    }
    const key = [locale.id, row.contentType, row.contentId, row.fieldName].join('\u0000');
    const first = firstIndex.get(key);
    if (first !== undefined) {
      issues.push({
        path: `translations.${i}`,
        message: `same localeCode, contentType, contentId and fieldName as translations.${first}`,
      });
      return;
    }
    firstIndex.set(key, i);
    resolved.push({ key, localeId: locale.id, row });
  });
  if (issues.length > 0) throw validationError(issues);

  // One key order for every writer, so two overlapping bulks lock rows in the same order.
  resolved.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const cols = {
    id: resolved.map(() => newId()),
    localeId: resolved.map((r) => r.localeId),
    contentType: resolved.map((r) => r.row.contentType),
    contentId: resolved.map((r) => r.row.contentId),
    fieldName: resolved.map((r) => r.row.fieldName),
    value: resolved.map((r) => r.row.value),
  };

  try {
    return await ctx.db.transaction(async (tx) => {
      const [counts] = await sqlRows<{ created: number; updated: number }>(
        tx,
        sql`
          with up as (
            insert into translations (id, tenant_id, locale_id, content_type, content_id, field_name, value, version)
            select r.id, ${ctx.tenantId}::uuid, r.locale_id, r.content_type, r.content_id, r.field_name, r.value, 1
            from unnest(
              ${sql.param(cols.id)}::uuid[], ${sql.param(cols.localeId)}::uuid[],
              ${sql.param(cols.contentType)}::text[], ${sql.param(cols.contentId)}::text[],
              ${sql.param(cols.fieldName)}::text[], ${sql.param(cols.value)}::text[]
            ) with ordinality as r(id, locale_id, content_type, content_id, field_name, value, ord)
            order by r.ord
            on conflict (locale_id, content_type, content_id, field_name) do update
              set value = excluded.value, version = translations.version + 1, updated_at = now()
            returning (xmax = 0) as inserted
          )
          select (count(*) filter (where inserted))::int as created,
                 (count(*) filter (where not inserted))::int as updated
          from up`,
      );
      const result = { created: counts?.created ?? 0, updated: counts?.updated ?? 0 };
      await audit(ctx, tx, {
        action: 'TRANSLATIONS_BULK_UPSERTED',
        entityType: 'translation',
        metadata: { ...result, locales: [...new Set(rows.map((r) => r.localeCode.toLowerCase()))].sort() },
      });
      return result;
    });
  } catch (err) {
    // a locale was deleted between the check above and the write: nothing was written
    if (isForeignKeyViolation(err)) {
      throw validationError([
        { path: 'translations', message: 'a locale of these rows was deleted meanwhile' },
      ]);
    }
    throw err;
  }
}
