import { z } from 'zod';
import { dataOf, email, jsonObject, listOf, role, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

const tenant = z.object({
  id: uuid,
  name: z.string(),
  slug: z.string(),
  settings: jsonObject,
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const updateTenantBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  settings: jsonObject
    .optional()
    .describe(
      'Merged shallowly into the stored settings: each key given replaces the stored value, a key set to null is removed, keys not given are kept. The stored settings may not exceed 64 KiB of JSON.',
    ),
});

const member = z.object({
  id: uuid,
  tenantId: uuid,
  userId: uuid.nullable(),
  email: z.string(),
  role,
  invitedBy: uuid.nullable(),
  isPending: z.boolean(),
  inviteEmailStatus: z
    .string()
    .nullable()
    .describe('Delivery of the last invite mail: SENT, FAILED, or LOGGED when no SMTP is configured'),
  inviteResendCount: z.number().int(),
  inviteExpiresAt: timestamp.nullable().describe('When the pending invite stops working'),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const listMembersQuery = paginationQuery().extend({
  search: z.string().trim().max(200).optional().describe('Case-insensitive substring of the email'),
  role: role.optional(),
  isPending: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional(),
});

export const inviteMemberBody = z.object({ email, role });
export const changeRoleBody = z.object({ role });
export const inviteLinkBody = z.object({ role });

const inviteLink = z.object({
  id: uuid.describe('Revoke the link with DELETE /api/tenants/invites/links/:id'),
  link: z.string().describe('`{APP_URL}/invite/<token>`; the token is shown only here'),
  role,
  expiresAt: timestamp,
});

/** A listed invite link: never its token or the token's hash. */
const inviteLinkSummary = z.object({
  id: uuid,
  role,
  createdBy: uuid.nullable().describe('The user who created the link'),
  expiresAt: timestamp,
  createdAt: timestamp,
});

export const listInviteLinksQuery = paginationQuery();

export const tenantResponse = dataOf(tenant);
export const memberResponse = dataOf(member);
export const memberList = listOf(member);
export const inviteLinkResponse = dataOf(inviteLink);
export const inviteLinkList = listOf(inviteLinkSummary);

export type ListMembersQuery = z.output<typeof listMembersQuery>;
