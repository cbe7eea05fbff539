import { and, count, desc, eq, type SQL, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '../../db/client.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { locales, type Translation, translations } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound, validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { listPage } from '../../platform/pagination.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import { resolveLocale } from './locales.js';
import type { ListTranslationsQuery, UpsertTranslationInput } from './schemas.js';

/**
 * Translations: one value per (locale, contentType, contentId, fieldName). Every write bumps
 * `version` (a new row starts at 1). A client that sends the version it last read gets a 409
 * VERSION_CONFLICT instead of overwriting someone else's change; the check is part of the
 * write itself (conditional UPDATE / INSERT ... ON CONFLICT DO NOTHING), so of two concurrent
 * writers with the same expected version exactly one wins.
 */

const columns = {
  id: translations.id,
  tenantId: translations.tenantId,
  localeId: translations.localeId,
  contentType: translations.contentType,
  contentId: translations.contentId,
  fieldName: translations.fieldName,
  value: translations.value,
  version: translations.version,
  createdAt: translations.createdAt,
  updatedAt: translations.updatedAt,
};

const withLocaleColumns = { ...columns, locale: { code: locales.code, name: locales.name } };

type TranslationRow = Translation;
export type TranslationRecord = TranslationRow & { locale: { code: string; name: string } };

const keyTarget = [
  translations.localeId,
  translations.contentType,
  translations.contentId,
  translations.fieldName,
];

interface TranslationKey {
  localeId: string;
  contentType: string;
  contentId: string;
  fieldName: string;
}

/** The tenant's translation at `key` (the unique key of `translations_key`). */
const keyWhere = (tenantId: string, key: TranslationKey) =>
  and(
    eq(translations.tenantId, tenantId),
    eq(translations.localeId, key.localeId),
    eq(translations.contentType, key.contentType),
    eq(translations.contentId, key.contentId),
    eq(translations.fieldName, key.fieldName),
  );

/** Every write: the new value, version + 1. */
const newValue = (value: string) => ({
  value,
  version: sql`${translations.version} + 1`,
  updatedAt: sql`now()`,
});

const localeJoin = and(eq(locales.id, translations.localeId), eq(locales.tenantId, translations.tenantId));

export function listTranslations(ctx: ServiceCtx, query: ListTranslationsQuery) {
  const where: SQL[] = [eq(translations.tenantId, ctx.tenantId)];
  if (query.contentType !== undefined) where.push(eq(translations.contentType, query.contentType));
  if (query.contentId !== undefined) where.push(eq(translations.contentId, query.contentId));
  if (query.localeCode !== undefined) where.push(sql`lower(${locales.code}) = lower(${query.localeCode})`);
  return listPage(
    ctx.db
      .select(withLocaleColumns)
      .from(translations)
      .innerJoin(locales, localeJoin)
      .where(and(...where))
      .orderBy(desc(translations.createdAt), desc(translations.id)),
    ctx.db
      .select({ n: count() })
      .from(translations)
      .innerJoin(locales, localeJoin)
      .where(and(...where)),
    query,
  );
}

async function findTranslation(exec: Executor, tenantId: string, id: string) {
  if (!isUuid(id)) return undefined;
  const [row] = await exec
    .select(withLocaleColumns)
    .from(translations)
    .innerJoin(locales, localeJoin)
    .where(and(eq(translations.tenantId, tenantId), eq(translations.id, id)))
    .limit(1);
  return row;
}

export async function getTranslation(ctx: ServiceCtx, id: string): Promise<TranslationRecord> {
  const row = await findTranslation(ctx.db, ctx.tenantId, id);
  if (!row) throw notFound('Translation');
  return row;
}

const versionConflict = (current: { version: number; value: string } | undefined) =>
  new AppError('VERSION_CONFLICT', 'The translation was changed by someone else: reload it and retry', {
    currentVersion: current?.version ?? 0,
    currentValue: current?.value ?? null,
  });

/**
 * POST /api/translations. Without `version`: plain upsert. With `version: 0`: create only (409
 * when the key exists). With `version: n > 0`: update only when the stored version is n (409
 * otherwise, including when the key does not exist: `currentVersion` 0, `currentValue` null).
 */
export async function upsertTranslation(
  ctx: ServiceCtx,
  input: UpsertTranslationInput,
): Promise<{ record: TranslationRecord; created: boolean }> {
  try {
    return await ctx.db.transaction(async (tx) => {
      await assertFeatureEnabled(tx, ctx.tenantId, 'translations', ctx.now);
      const locale = await resolveLocale(tx, ctx.tenantId, input.localeCode, 'localeCode');
      const key: TranslationKey = {
        localeId: locale.id,
        contentType: input.contentType,
        contentId: input.contentId,
        fieldName: input.fieldName,
      };
      const fresh = { id: newId(), tenantId: ctx.tenantId, ...key, value: input.value, version: 1 };
      let row: TranslationRow | undefined;
      let created: boolean;
      if (input.version === undefined) {
        const [upserted] = await tx
          .insert(translations)
          .values(fresh)
          .onConflictDoUpdate({
            target: keyTarget,
            set: newValue(input.value),
          })
          .returning({ ...columns, inserted: sql<boolean>`(xmax = 0)` });
        const { inserted, ...rest } = upserted!;
        row = rest;
        created = inserted;
      } else if (input.version === 0) {
        [row] = await tx
          .insert(translations)
          .values(fresh)
          .onConflictDoNothing({ target: keyTarget })
          .returning(columns);
        if (!row) throw versionConflict(await currentByKey(tx, ctx.tenantId, key));
        created = true;
      } else {
        [row] = await tx
          .update(translations)
          .set(newValue(input.value))
          .where(and(keyWhere(ctx.tenantId, key), eq(translations.version, input.version)))
          .returning(columns);
        if (!row) throw versionConflict(await currentByKey(tx, ctx.tenantId, key));
        created = false;
      }
      await auditWrite(ctx, tx, row!, locale.code, created);
      return { record: { ...row!, locale: { code: locale.code, name: locale.name } }, created };
    });
  } catch (err) {
    // the locale was deleted between the lookup and the write
    if (isForeignKeyViolation(err)) {
      throw validationError([{ path: 'localeCode', message: `unknown locale "${input.localeCode}"` }]);
    }
    throw err;
  }
}

/** PUT /api/translations/:id `{ value, version? }`: same version rule as the upsert. */
export async function updateTranslation(
  ctx: ServiceCtx,
  id: string,
  input: { value: string; version?: number | undefined },
): Promise<TranslationRecord> {
  if (!isUuid(id)) throw notFound('Translation');
  return ctx.db.transaction(async (tx) => {
    await assertFeatureEnabled(tx, ctx.tenantId, 'translations', ctx.now);
    const where = [eq(translations.tenantId, ctx.tenantId), eq(translations.id, id)];
    if (input.version !== undefined) where.push(eq(translations.version, input.version));
    const [row] = await tx
      .update(translations)
      .set(newValue(input.value))
      .where(and(...where))
      .returning({ id: translations.id });
    if (!row) {
      const current = await findTranslation(tx, ctx.tenantId, id);
      if (!current) throw notFound('Translation');
      throw versionConflict(current);
    }
    const record = (await findTranslation(tx, ctx.tenantId, id))!;
    await auditWrite(ctx, tx, record, record.locale.code, false);
    return record;
  });
}

async function currentByKey(tx: Transaction, tenantId: string, key: TranslationKey) {
  const [row] = await tx
    .select({ version: translations.version, value: translations.value })
    .from(translations)
    .where(keyWhere(tenantId, key))
    .limit(1);
  return row;
}

const auditWrite = (
  ctx: ServiceCtx,
  tx: Transaction,
  row: TranslationRow,
  localeCode: string,
  created: boolean,
) =>
  audit(ctx, tx, {
    action: created ? 'TRANSLATION_CREATED' : 'TRANSLATION_UPDATED',
    entityType: 'translation',
    entityId: row.id,
    metadata: {
      localeCode,
      contentType: row.contentType,
      contentId: row.contentId,
      fieldName: row.fieldName,
      version: row.version,
    },
  });
