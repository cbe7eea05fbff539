import { z } from 'zod';
import { dataOf, jsonObject, listOf, timestamp } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

/** The dashboard's end-user list and detail (docs/end-users.md). */

export const listEndUsersQuery = paginationQuery().extend({
  search: z
    .string()
    .trim()
    .max(255)
    .optional()
    .describe(
      'Case-insensitive start of the userId, the anonymous id, or the `email` or `name` trait; a uuid also matches the service id',
    ),
});
export type ListEndUsersQuery = z.output<typeof listEndUsersQuery>;

const endUserFields = {
  id: z.string().describe("The service's id of the end user"),
  userId: z.string().nullable().describe('The userId the SDK identified it with; null while anonymous'),
  anonymousId: z.string().nullable(),
  traits: jsonObject,
  firstSeenAt: timestamp,
  lastSeenAt: timestamp,
};

export const endUserList = listOf(z.object(endUserFields).meta({ id: 'EndUser' }));

export const endUserParams = z.object({
  id: z.string().min(1).max(255).describe("The end user's service id, or its userId (external id)"),
});

const itemState = z.object({
  itemId: z.string(),
  kind: z.enum(['flow', 'content']).nullable().describe('null when the item no longer exists'),
  contentType: z.string().nullable().describe('the content type slug (nps-surveys for NPS); null for flows'),
  name: z.string().nullable(),
  completedAt: timestamp.nullable(),
  dismissedAt: timestamp.nullable(),
});

export const endUserResponse = dataOf(
  z
    .object({
      ...endUserFields,
      createdAt: timestamp,
      itemStates: z
        .array(itemState)
        .describe(
          'What the frequency cap remembers: the items completed or dismissed, latest first (at most 500)',
        ),
    })
    .meta({ id: 'EndUserDetail' }),
);
