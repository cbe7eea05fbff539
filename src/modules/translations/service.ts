import type { Transaction } from '../../db/client.js';
import { isForeignKeyViolation } from '../../db/errors.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound, validationError } from '../../platform/errors.js';
import { isUuid, newId } from '../../platform/ids.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import { resolveLocale } from './locales.js';
import type { ListTranslationsQuery, UpsertTranslationInput } from './schemas.js';
import {
  findTranslation,
  findTranslationAtKey,
  insertTranslationIfAbsent,
  listTranslationsPage,
  type Translation,
  type TranslationKey,
  type TranslationWithLocale,
  updateTranslationAtKey,
  updateTranslationById,
  upsertTranslationRow,
} from './store/translations.js';

/**
 * Translations: one value per (locale, contentType, contentId, fieldName). Every write bumps
 * `version` (a new row starts at 1). A client that sends the version it last read gets a 409
 * VERSION_CONFLICT instead of overwriting someone else's change; the check is part of the
 * write itself (conditional UPDATE / INSERT ... ON CONFLICT DO NOTHING), so of two concurrent
 * writers with the same expected version exactly one wins.
 */

export type TranslationRecord = TranslationWithLocale;

export const listTranslations = (ctx: ServiceCtx, query: ListTranslationsQuery) =>
  listTranslationsPage(ctx.db, ctx.tenantId, query, query);

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
      let row: Translation | undefined;
      let created: boolean;
      if (input.version === undefined) {
        ({ row, created } = await upsertTranslationRow(tx, fresh));
      } else if (input.version === 0) {
        row = await insertTranslationIfAbsent(tx, fresh);
        if (!row) throw versionConflict(await findTranslationAtKey(tx, ctx.tenantId, key));
        created = true;
      } else {
        row = await updateTranslationAtKey(tx, ctx.tenantId, key, input.value, input.version);
        if (!row) throw versionConflict(await findTranslationAtKey(tx, ctx.tenantId, key));
        created = false;
      }
      await auditWrite(ctx, tx, row, locale.code, created);
      return { record: { ...row, locale: { code: locale.code, name: locale.name } }, created };
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
    const written = await updateTranslationById(tx, ctx.tenantId, id, input.value, input.version);
    if (!written) {
      const current = await findTranslation(tx, ctx.tenantId, id);
      if (!current) throw notFound('Translation');
      throw versionConflict(current);
    }
    const record = (await findTranslation(tx, ctx.tenantId, id))!;
    await auditWrite(ctx, tx, record, record.locale.code, false);
    return record;
  });
}

const auditWrite = (
  ctx: ServiceCtx,
  tx: Transaction,
  row: Translation,
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
