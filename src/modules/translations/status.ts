import { sql } from 'drizzle-orm';
import { sqlRows } from '../../db/raw.js';
import { percentage } from '../../engine/math.js';
import type { ServiceCtx } from '../../platform/context.js';

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
  const typeFilter = contentType === undefined ? sql`` : sql`and t.content_type = ${contentType}`;
  const rows = await sqlRows<{
    code: string;
    name: string;
    is_default: boolean;
    translated: number;
    total: number;
  }>(
    ctx.db,
    sql`
      with scoped as (
        select t.locale_id, t.content_type, t.content_id, t.field_name, t.value
        from translations t
        where t.tenant_id = ${ctx.tenantId} ${typeFilter}
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
      select l.code, l.name, l.is_default, coalesce(d.n, 0)::int as translated, total.n as total
      from locales l
      cross join total
      left join done d on d.locale_id = l.id
      where l.tenant_id = ${ctx.tenantId}
      order by l.is_default desc, l.code asc`,
  );
  return rows.map((r) => ({
    localeCode: r.code,
    localeName: r.name,
    isDefault: r.is_default,
    translated: r.translated,
    total: r.total,
    percentage: percentage(r.translated, r.total),
  }));
}
