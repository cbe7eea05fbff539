import { contentItems, npsSurveys } from '../../db/schema/index.js';

export type ContentRow = typeof contentItems.$inferSelect;
export type NpsSurveyRow = typeof npsSurveys.$inferSelect;

/**
 * A content item as the API shows it: the common fields, `contentType` (the type slug; an
 * announcement's own `type` is one of its body fields), then the type's fields. The response
 * schema of each type keeps only that type's fields.
 */
export function toContentRecord(row: ContentRow) {
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

export const contentListColumns = {
  id: contentItems.id,
  tenantId: contentItems.tenantId,
  contentType: contentItems.type,
  name: contentItems.name,
  siteId: contentItems.siteId,
  status: contentItems.status,
  audienceId: contentItems.audienceId,
  createdAt: contentItems.createdAt,
  updatedAt: contentItems.updatedAt,
};

/** An NPS survey as the API shows it: the row as it is. */
export type NpsSurveyRecord = NpsSurveyRow;

export const npsListColumns = {
  id: npsSurveys.id,
  tenantId: npsSurveys.tenantId,
  name: npsSurveys.name,
  siteId: npsSurveys.siteId,
  status: npsSurveys.status,
  audienceId: npsSurveys.audienceId,
  createdAt: npsSurveys.createdAt,
  updatedAt: npsSurveys.updatedAt,
};
