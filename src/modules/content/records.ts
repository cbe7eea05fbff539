import type { ContentItemRow, NpsSurveyRow } from './store/records.js';

/**
 * A content item as the API shows it: the common fields, `contentType` (the type slug; an
 * announcement's own `type` is one of its body fields), then the type's fields. The response
 * schema of each type keeps only that type's fields.
 */
export function toContentRecord(row: ContentItemRow) {
  return {
    ...row.body,
    id: row.id,
    tenantId: row.tenantId,
    contentType: row.type,
    name: row.name,
    siteId: row.siteId,
    status: row.status,
    audienceId: row.audienceId,
    triggerConfig: row.triggerConfig,
    priority: row.priority,
    bypassCaps: row.bypassCaps,
    targetUrl: row.targetUrl,
    scheduledAt: row.scheduledAt,
    expiresAt: row.expiresAt,
    publishedAt: row.publishedAt,
    archivedAt: row.archivedAt,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}
export type ContentRecord = ReturnType<typeof toContentRecord>;

/** An NPS survey as the API shows it: the row as it is. */
export type NpsSurveyRecord = NpsSurveyRow;
