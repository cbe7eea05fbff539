import { z } from 'zod';
import {
  dateBound,
  jsonObject,
  listOf,
  orderedDateRange,
  timestamp,
  uuid,
} from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

const auditEntry = z.object({
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

export const listAuditLogsQuery = orderedDateRange(
  paginationQuery().extend({
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
  }),
);

export type ListAuditLogsQuery = z.output<typeof listAuditLogsQuery>;

export const auditLogList = listOf(auditEntry);
