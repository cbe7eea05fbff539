import { z } from 'zod';
import { dataOf, listOf, nonNegativeInt32, timestamp, uuid } from '../../platform/http/schemas.js';
import { paginationQuery } from '../../platform/pagination.js';

/** Translation lists default to 50 a page (spec: "except translations"). */
const TRANSLATIONS_PAGE_SIZE = 50;
/** Rows accepted by one bulk request. */
const BULK_MAX_ROWS = 1000;

// --- locale codes -------------------------------------------------------------------------

/** A BCP 47 tag in the shapes tenants use: language, then script/region/variant subtags. */
const LOCALE_TAG = /^[a-zA-Z]{2,3}(-[a-zA-Z0-9]{2,8})*$/;

const isWellFormedTag = (code: string): boolean => {
  try {
    return Intl.getCanonicalLocales(code).length === 1;
  } catch {
    return false;
  }
};

/**
 * BCP 47 casing without alias replacement (`iw` stays `iw`, unlike `Intl.getCanonicalLocales`):
 * language lower case, 4-letter script title case, 2-letter region upper case, the rest lower.
 */
export function canonicalLocaleCase(code: string): string {
  return code
    .split('-')
    .map((part, i) => {
      if (i === 0) return part.toLowerCase();
      if (/^[a-zA-Z]{2}$/.test(part)) return part.toUpperCase();
      if (/^[a-zA-Z]{4}$/.test(part)) return part[0]!.toUpperCase() + part.slice(1).toLowerCase();
      return part.toLowerCase();
    })
    .join('-');
}

/** `_` is accepted as a subtag separator (`en_US`, as POSIX locales write it) and stored as `-`. */
export const localeCodeInput = z
  .string()
  .trim()
  .min(2)
  .max(10)
  .transform((code) => code.replaceAll('_', '-'))
  .pipe(
    z
      .string()
      .regex(LOCALE_TAG, 'must be a BCP 47 language tag such as en or pt-BR')
      .refine(isWellFormedTag, 'must be a well-formed BCP 47 language tag'),
  )
  .transform(canonicalLocaleCase)
  .describe(
    'BCP 47 language tag, 2 to 10 characters; `_` is accepted as a separator and stored as `-`; stored in canonical casing (pt-br → pt-BR, en_US → en-US)',
  );

// --- records ------------------------------------------------------------------------------

export const locale = z.object({
  id: uuid,
  tenantId: uuid,
  code: z.string(),
  name: z.string(),
  isDefault: z.boolean(),
  isRtl: z.boolean(),
  createdAt: timestamp,
  updatedAt: timestamp,
});

export const translation = z.object({
  id: uuid,
  tenantId: uuid,
  localeId: uuid,
  contentType: z.string(),
  contentId: z.string(),
  fieldName: z.string(),
  value: z.string(),
  version: z.number().int(),
  locale: z.object({ code: z.string(), name: z.string() }),
  createdAt: timestamp,
  updatedAt: timestamp,
});

// --- requests -----------------------------------------------------------------------------

const contentType = z.string().trim().min(1).max(100);
const contentId = z.string().trim().min(1).max(255);
/** A field of the record, possibly a dotted path into nested objects/arrays (`steps.0.content.title`). */
const fieldName = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .regex(/^[^.]+(\.[^.]+)*$/, 'must be a field name or a dotted path without empty segments');
/** Matched case-insensitively against the tenant's locales; an unknown one is a 400 at this path. */
const localeCode = z.string().trim().min(1).max(10);
const expectedVersion = nonNegativeInt32().describe(
  'Version the client last read (0: the translation must not exist yet); another one answers 409',
);

export const listTranslationsQuery = paginationQuery(TRANSLATIONS_PAGE_SIZE).extend({
  contentType: contentType.optional(),
  contentId: contentId.optional(),
  localeCode: localeCode.optional(),
});

export const upsertTranslationBody = z.object({
  contentType,
  contentId,
  fieldName,
  localeCode,
  value: z.string(),
  version: expectedVersion.optional(),
});

export const updateTranslationBody = z.object({
  value: z.string(),
  version: expectedVersion.optional(),
});

export const bulkTranslationsBody = z.object({
  translations: z
    .array(z.object({ contentType, contentId, fieldName, localeCode, value: z.string() }))
    .min(1)
    .max(BULK_MAX_ROWS),
});

export const statusQuery = z.object({ contentType: contentType.optional() });

/** `isDefault` and `isRtl` are required (spec). A tenant's first locale is the default whatever `isDefault` says. */
export const createLocaleBody = z.object({
  code: localeCodeInput,
  name: z.string().trim().min(1).max(100),
  isDefault: z.boolean(),
  isRtl: z.boolean(),
});

/** The code never changes: a `code` in the body is stripped like any unknown field. */
export const updateLocaleBody = z.object({
  name: z.string().trim().min(1).max(100).optional(),
  isDefault: z.boolean().optional(),
  isRtl: z.boolean().optional(),
});

export const deleteLocaleQuery = z.object({
  force: z
    .enum(['true', 'false'])
    .default('false')
    .transform((v) => v === 'true')
    .describe('true: also delete the translations of this locale'),
});

// --- responses ----------------------------------------------------------------------------

export const translationResponse = dataOf(translation);
export const translationList = listOf(translation);
export const bulkResult = dataOf(
  z.object({
    created: z.number().int().describe('rows inserted'),
    updated: z.number().int().describe('existing rows overwritten (version + 1)'),
  }),
);
export const statusResponse = dataOf(
  z.array(
    z.object({
      localeCode: z.string(),
      localeName: z.string(),
      isDefault: z.boolean(),
      translated: z.number().int(),
      total: z.number().int(),
      percentage: z.number().describe('translated / total × 100, one decimal; 0 when total is 0'),
    }),
  ),
);
export const localeResponse = dataOf(locale);
export const localeList = dataOf(z.array(locale));

export type UpsertTranslationInput = z.infer<typeof upsertTranslationBody>;
export type BulkTranslationRow = z.infer<typeof bulkTranslationsBody>['translations'][number];
export type CreateLocaleInput = z.infer<typeof createLocaleBody>;
export type UpdateLocaleInput = z.infer<typeof updateLocaleBody>;
export type ListTranslationsQuery = z.infer<typeof listTranslationsQuery>;
