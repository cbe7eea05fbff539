import { z } from 'zod';
import { dataOf } from '../../platform/http/schemas.js';
import { REASON_CODES } from '../delivery/index.js';

export const explainParams = z.object({
  id: z.string().min(1).max(255).describe("the end user's service id, or its userId (external id)"),
});

export const explainQuery = z.object({
  url: z.string().max(4096).optional().describe('the page url to explain (items bound to urls need it)'),
});

export const explainResponse = dataOf(
  z
    .object({
      url: z.string().nullable(),
      endUserId: z.string(),
      items: z.array(
        z.object({
          kind: z.enum(['flow', 'content']),
          contentType: z
            .string()
            .nullable()
            .describe('the content type slug (nps-surveys for NPS); null for flows'),
          id: z.string(),
          name: z.string(),
          decision: z.enum(['SHOWN', 'SUPPRESSED']),
          reason: z
            .enum(REASON_CODES)
            .nullable()
            .describe('null when SHOWN; docs/delivery-policy.md lists the codes'),
          detail: z.string().nullable(),
        }),
      ),
    })
    .meta({ id: 'DeliveryExplanation' }),
);
