import { z } from 'zod';
import { dataOf, listOf, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

const apiKey = z.object({
  id: uuid,
  name: z.string(),
  keyPrefix: z.string(),
  tenantId: uuid,
  createdAt: timestamp,
  expiresAt: timestamp.nullable(),
  lastUsedAt: timestamp.nullable(),
  revokedAt: timestamp.nullable().describe('always null: a revoked key is no longer shown'),
});

export const createApiKeyBody = z.object({
  name: z.string().trim().min(1).max(100),
  expiresAt: timestamp.optional(),
});

export const createdApiKey = z.object({
  data: z.object({
    id: uuid,
    name: z.string(),
    key: z.string().describe('The full key; shown only in this response'),
    keyPrefix: z.string(),
    createdAt: timestamp,
    expiresAt: timestamp.nullable(),
  }),
  warning: z.string(),
});

/** Revoked keys are never listed (a revoked key is gone as far as the API goes). */
export const listApiKeysQuery = paginationQuery();

export const apiKeyResponse = dataOf(apiKey);
export const apiKeyList = listOf(apiKey);
