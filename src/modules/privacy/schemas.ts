import { z } from 'zod';
import { PRIVACY_DELETION_STATUSES } from '../../db/schema/index.js';
import { dataOf, jsonObject, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

/** The SDK's `userId`, as the events schema accepts it. */
const userId = z.string().trim().min(1).max(255).describe("The end user's userId, as the SDK sends it");

export const createDeletionBody = z.object({ userId });
export type CreateDeletionInput = z.infer<typeof createDeletionBody>;

const deletion = z
  .object({
    id: uuid,
    userId: z.string(),
    status: z.enum(PRIVACY_DELETION_STATUSES),
    attempts: z.number().int().describe('Runs of the job so far'),
    removed: z
      .record(z.string(), z.number().int())
      .describe('Once completed: rows removed (analytics_user_days: re-keyed anonymous), per table'),
    lastError: z.string().nullable(),
    completedAt: timestamp.nullable(),
    createdAt: timestamp,
    updatedAt: timestamp,
  })
  .meta({ id: 'PrivacyDeletion' });

export const deletionResponse = dataOf(deletion);
export const deletionList = listOf(deletion);
export const listDeletionsQuery = paginationQuery();
export const exportParams = z.object({ userId: z.string().min(1).max(255) });

export const exportResponse = dataOf(
  z
    .object({
      userId: z.string(),
      exportedAt: timestamp,
      endUsers: z.array(jsonObject),
      itemStates: z.array(jsonObject),
      serves: z.array(jsonObject),
      experimentAssignments: z.array(jsonObject),
      journeyEnrollments: z.array(jsonObject),
      surveyResponses: z.array(jsonObject),
      npsResponses: z.array(jsonObject),
      activityDays: z.array(jsonObject).describe('Days active per analytics scope (bit i: origin + i days)'),
      webhookMessages: z.array(jsonObject).describe('Outgoing webhook messages about the user'),
      events: z.array(jsonObject).describe('Events in the log, as processing decodes them'),
      deadLetters: z.array(jsonObject).describe('Events set aside by processing'),
    })
    .meta({ id: 'PrivacyExport' }),
);
