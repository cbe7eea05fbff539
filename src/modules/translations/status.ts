import { percentage } from '../../engine/math.js';
import type { ServiceCtx } from '../../platform/context.js';
import { countTranslatedKeys } from './store/translations.js';

export interface LocaleStatus {
  localeCode: string;
  localeName: string;
  isDefault: boolean;
  translated: number;
  total: number;
  percentage: number;
}

/**
 * GET /api/translations/status: for each locale of the tenant, how many of the tenant's
 * translatable keys — distinct (contentType, contentId, fieldName) seen in any locale,
 * optionally of one contentType — have a non-blank value in that locale. One query.
 */
export async function translationStatus(ctx: ServiceCtx, contentType?: string): Promise<LocaleStatus[]> {
  const rows = await countTranslatedKeys(ctx.db, ctx.tenantId, contentType);
  return rows.map((r) => ({
    localeCode: r.code,
    localeName: r.name,
    isDefault: r.isDefault,
    translated: r.translated,
    total: r.total,
    percentage: percentage(r.translated, r.total),
  }));
}
