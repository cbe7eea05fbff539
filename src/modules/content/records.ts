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
export type ContentRecord = ReturnType<typeof toContentRecord> & {
  version?: number | null;
  hasUnpublishedChanges?: boolean;
};

/** A content item's versioned fields (working copy or a published version): all but its lifecycle. */
export const contentSnapshot = (row: ContentItemRow) => ({
  name: row.name,
  siteId: row.siteId,
  audienceId: row.audienceId,
  triggerConfig: row.triggerConfig,
  targetUrl: row.targetUrl,
  body: authoredBody(row.body),
});
export type ContentSnapshot = ReturnType<typeof contentSnapshot>;

/**
 * A tooltip's or beacon's `body.targetFingerprint` is learned from lookups (modules/targeting),
 * not authored: versions leave it out, and the live version serves the item's current one.
 */
function authoredBody(body: ContentItemRow['body']): ContentItemRow['body'] {
  if (!body || typeof body !== 'object' || !('targetFingerprint' in body)) return body;
  const { targetFingerprint: _learned, ...authored } = body as Record<string, unknown>;
  return authored as ContentItemRow['body'];
}

/** The item as a published version shows it: the version's fields over the row's lifecycle. */
export function publishedContent(
  row: ContentItemRow,
  live: { version: number; snapshot: unknown },
): ContentRecord {
  const snapshot = live.snapshot as ContentSnapshot;
  const learned = (row.body as Record<string, unknown> | null)?.targetFingerprint;
  const body =
    learned === undefined ? snapshot.body : { ...(snapshot.body as object), targetFingerprint: learned };
  return {
    ...toContentRecord({ ...row, ...snapshot, body: body as ContentItemRow['body'] }),
    version: live.version,
  };
}

/** An NPS survey as the API shows it: the row as it is. */
export type NpsSurveyRecord = NpsSurveyRow;
