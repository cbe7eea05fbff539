import { z } from 'zod';
import { jsonObject, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

export const auditEntry = z.object({
  id: uuid,
  tenantId: uuid,
  action: z.string(),
  entityType: z.string(),
  entityId: z.string().nullable(),
  actorId: uuid.nullable(),
  ipAddress: z.string().nullable(),
  metadata: jsonObject,
  createdAt: timestamp,
});

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;
const isoDateTime = z.iso.datetime({ offset: true, local: true });
const isoDate = z.iso.date();

/** A bound of a date range: a calendar date (UTC, whole day) or an instant. */
export interface DateBound {
  /** First instant of the bound. */
  at: Date;
  /** True for a calendar date: as an upper bound it covers the whole day. */
  dateOnly: boolean;
}

export function parseDateBound(value: string): DateBound | null {
  if (DATE_ONLY.test(value)) {
    if (!isoDate.safeParse(value).success) return null;
    const at = new Date(`${value}T00:00:00.000Z`);
    return Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value
      ? null
      : { at, dateOnly: true };
  }
  if (!isoDateTime.safeParse(value).success) return null;
  // A datetime without an offset is read as UTC (JavaScript would read it as local time).
  const at = new Date(/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value) ? value : `${value}Z`);
  return Number.isNaN(at.getTime()) ? null : { at, dateOnly: false };
}

/** The exclusive end of an upper bound: the next midnight for a date, just after the instant otherwise. */
export const endExclusive = (b: DateBound) => new Date(b.at.getTime() + (b.dateOnly ? 86_400_000 : 1));

const dateBound = z
  .string()
  .refine((v) => parseDateBound(v) !== null, 'must be an ISO 8601 date (YYYY-MM-DD) or datetime')
  .describe('ISO 8601 date (whole day, UTC) or datetime');

export const listAuditLogsQuery = paginationQuery()
  .extend({
    action: z
      .string()
      .trim()
      .min(1)
      .max(500)
      .optional()
      .describe('Exact action, or several separated by commas (e.g. MEMBER_INVITED,MEMBER_REMOVED)'),
    entityType: z.string().trim().min(1).max(100).optional(),
    entityId: z.string().trim().min(1).max(200).optional(),
    actorId: uuid.optional(),
    startDate: dateBound.optional().describe('Entries at or after this date/instant'),
    endDate: dateBound.optional().describe('Entries up to this instant, or through the end of this date'),
  })
  .superRefine((q, issue) => {
    if (!q.startDate || !q.endDate) return;
    const start = parseDateBound(q.startDate);
    const end = parseDateBound(q.endDate);
    if (start && end && start.at.getTime() >= endExclusive(end).getTime()) {
      issue.addIssue({ code: 'custom', path: ['startDate'], message: 'must not be after endDate' });
    }
  });

export type ListAuditLogsQuery = z.output<typeof listAuditLogsQuery>;

export const auditLogList = listOf(auditEntry);
