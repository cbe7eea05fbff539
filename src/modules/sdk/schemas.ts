import { z } from 'zod';
import { dataOf, jsonObject, uuid } from '../../platform/http/schemas.js';
import { CONTENT_TYPE_LIST, deliveredRecordOf, npsSurvey } from '../content/index.js';
import { flowRecord } from '../flows/index.js';

/** Largest `traits` object identify accepts, serialized as JSON (UTF-8 bytes). */
export const MAX_TRAITS_BYTES = 32 * 1024;

const externalId = z.string().min(1).max(255);

// ---- GET /api/sdk/config ----------------------------------------------------------------------

// The SDK's wire types carry names in the OpenAPI document (`SdkConfig`, `SdkSession`, `SdkEvent`),
// so that clients import them by name from @guidance/api-types.
export const sdkConfigResponse = dataOf(
  z
    .object({
      name: z.string().describe('the company name'),
      plan: z.string().describe('plan name: free, starter, growth, enterprise'),
      settings: jsonObject.describe('the tenant settings (PATCH /api/tenants/current)'),
      features: z.record(z.string(), z.boolean()).describe("the plan's feature flags"),
      locales: z.array(
        z.object({ code: z.string(), name: z.string(), isDefault: z.boolean(), isRtl: z.boolean() }),
      ),
      defaultLocale: z.string().nullable().describe('code of the default locale; null without locales'),
    })
    .meta({ id: 'SdkConfig' }),
);

// ---- POST /api/sdk/identify -------------------------------------------------------------------

export const identifyBody = z.object({
  userId: externalId.describe("the tenant's own id of the end user"),
  traits: jsonObject
    .optional()
    .refine((t) => t === undefined || Buffer.byteLength(JSON.stringify(t)) <= MAX_TRAITS_BYTES, {
      message: `traits may not exceed ${MAX_TRAITS_BYTES} bytes of JSON`,
    })
    .describe('merged shallowly into the stored traits (at most 32 KiB of JSON)'),
  anonymousId: externalId.optional().describe('links the anonymous visitor the SDK knew before'),
});

export const identifyResponse = dataOf(z.object({ id: uuid.describe('internal end-user id') }));

// ---- POST /api/sdk/session --------------------------------------------------------------------

export const sessionBody = z.object({
  userId: externalId.optional(),
  anonymousId: externalId.optional(),
  url: z.string().max(4096).optional().describe('the page url; items bound to urls are served only with it'),
  locale: z
    .string()
    .trim()
    .min(1)
    .max(35)
    .optional()
    .describe('e.g. fr-CA; fallback: base language, default locale'),
  device: z
    .object({ type: z.string().max(100).optional(), browser: z.string().max(100).optional() })
    .optional(),
  debug: z
    .boolean()
    .optional()
    .describe("the SDK's debug mode: the answer lists each held-back item's reason code (`decisions`)"),
});

/** A content record as GET /api/content/:type/:id (or /api/nps-surveys/:id) shows it, by `contentType`. */
const contentEntry = z.discriminatedUnion('contentType', [
  npsSurvey.extend({ contentType: z.literal('nps-surveys') }).meta({ id: 'NpsSurveyRecord' }),
  ...CONTENT_TYPE_LIST.map(deliveredRecordOf),
]);

export const sessionResponse = dataOf(
  z
    .object({
      sessionId: uuid,
      endUserId: uuid.nullable().describe('null for a session with neither userId nor anonymousId'),
      flows: z.array(flowRecord),
      content: z.array(contentEntry),
      experiments: z.array(z.object({ experimentId: uuid, variantId: uuid, flowId: uuid.nullable() })),
      journeys: z.array(
        z.object({
          journeyId: uuid,
          enrollmentId: uuid,
          nodeId: uuid,
          visit: z.number().int().describe('the visit of the node; reports may echo it as properties.visit'),
          contentType: z.string(),
          contentId: z.string(),
        }),
      ),
      decisions: z
        .array(z.object({ kind: z.enum(['flow', 'content']), id: z.string(), reason: z.string() }))
        .optional()
        .describe(
          'only with `debug: true`: the items held back and why (reason codes, docs/delivery-policy.md)',
        ),
    })
    .meta({ id: 'SdkSession' }),
);
