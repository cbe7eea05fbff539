import { isForeignKeyViolation } from '../../db/errors.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { type ValidationIssue, validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import type { BulkTranslationRow } from './schemas.js';
import { listLocales } from './store/locales.js';
import { upsertTranslationRows } from './store/translations.js';

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
  const tenantLocales = await listLocales(ctx.db, ctx.tenantId);
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
  try {
    return await ctx.db.transaction(async (tx) => {
      const result = await upsertTranslationRows(
        tx,
        ctx.tenantId,
        resolved.map((r) => ({
          id: newId(),
          localeId: r.localeId,
          contentType: r.row.contentType,
          contentId: r.row.contentId,
          fieldName: r.row.fieldName,
          value: r.row.value,
        })),
      );
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
