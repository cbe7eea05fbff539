import type { Executor, Transaction } from '../../db/client.js';
import { isForeignKeyViolation, isUniqueViolation } from '../../db/errors.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound, validationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { assertFeatureEnabled } from '../pricing/index.js';
import type { CreateLocaleInput, UpdateLocaleInput } from './schemas.js';
import {
  deleteLocaleRow,
  findLocale,
  findLocaleByCode,
  findOldestLocale,
  hasLocales,
  insertLocale,
  type Locale,
  listLocales,
  lockTenantLocales,
  unsetDefaultLocale,
  updateLocaleRow,
} from './store/locales.js';
import { countTranslationsOfLocale, deleteTranslationsOfLocale } from './store/translations.js';

/**
 * Locales of a tenant. Invariant: once a tenant has locales, exactly one is the default.
 * Every locale write takes a per-tenant advisory lock first, so the "first locale becomes
 * default", "setting a default unsets the others" and "keep one default" rules hold under
 * concurrent requests (they run one after the other); the partial unique index
 * `locales_tenant_default_key` is the backstop in the database.
 */

/** The tenant's locale with this code (case-insensitive), or a 400 at `path`. */
export async function resolveLocale(exec: Executor, tenantId: string, code: string, path: string) {
  const row = await findLocaleByCode(exec, tenantId, code);
  if (!row) throw validationError([{ path, message: `unknown locale "${code}"` }]);
  return row;
}

/** The tenant's locales, the default first, then by code. */
export const listTenantLocales = (ctx: ServiceCtx): Promise<Locale[]> => listLocales(ctx.db, ctx.tenantId);

/** The tenant's locale `id`, locked for the rest of the transaction with `lock`; 404 otherwise. */
async function mustFindLocale(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<Locale> {
  const row = await findLocale(exec, tenantId, id, opts);
  if (!row) throw notFound('Locale');
  return row;
}

export const getLocale = (ctx: ServiceCtx, id: string): Promise<Locale> =>
  mustFindLocale(ctx.db, ctx.tenantId, id);

const duplicateCode = () => validationError([{ path: 'code', message: 'locale already exists' }]);

/** The tenant's first locale becomes its default whatever `isDefault` says. */
export async function createLocale(ctx: ServiceCtx, input: CreateLocaleInput): Promise<Locale> {
  try {
    return await ctx.db.transaction(async (tx) => {
      await assertFeatureEnabled(tx, ctx.tenantId, 'translations', ctx.now);
      await lockTenantLocales(tx, ctx.tenantId);
      // A code the tenant already has fails the insert on `locales_tenant_code_key` (caught below).
      const isDefault = input.isDefault === true || !(await hasLocales(tx, ctx.tenantId));
      if (isDefault) await unsetDefaultLocale(tx, ctx.tenantId);
      const row = await insertLocale(tx, {
        id: newId(),
        tenantId: ctx.tenantId,
        code: input.code,
        name: input.name,
        isDefault,
        isRtl: input.isRtl,
      });
      await audit(ctx, tx, {
        action: 'LOCALE_CREATED',
        entityType: 'locale',
        entityId: row.id,
        metadata: { code: row.code, name: row.name, isDefault: row.isDefault, isRtl: row.isRtl },
      });
      return row;
    });
  } catch (err) {
    if (isUniqueViolation(err, 'locales_tenant_code_key')) throw duplicateCode();
    throw err;
  }
}

/**
 * `isDefault: true` makes this locale the default and unsets the previous one; `isDefault: false`
 * on the default is refused (400 at `isDefault`): make another locale the default instead.
 */
export async function updateLocale(ctx: ServiceCtx, id: string, input: UpdateLocaleInput): Promise<Locale> {
  return ctx.db.transaction(async (tx) => {
    await lockTenantLocales(tx, ctx.tenantId);
    const current = await mustFindLocale(tx, ctx.tenantId, id);
    if (input.isDefault === false && current.isDefault) {
      throw validationError([
        {
          path: 'isDefault',
          message: 'a tenant keeps one default locale: make another locale the default instead',
        },
      ]);
    }
    const changes: Partial<Pick<Locale, 'name' | 'isRtl' | 'isDefault'>> = {};
    if (input.name !== undefined && input.name !== current.name) changes.name = input.name;
    if (input.isRtl !== undefined && input.isRtl !== current.isRtl) changes.isRtl = input.isRtl;
    if (input.isDefault === true && !current.isDefault) changes.isDefault = true;
    if (Object.keys(changes).length === 0) return current;
    if (changes.isDefault) await unsetDefaultLocale(tx, ctx.tenantId);
    const row = await updateLocaleRow(tx, ctx.tenantId, current.id, changes);
    await audit(ctx, tx, {
      action: 'LOCALE_UPDATED',
      entityType: 'locale',
      entityId: id,
      metadata: { code: current.code, changes },
    });
    return row!;
  });
}

/**
 * Hard delete. Refused with 409 LOCALE_IN_USE while translations use the locale, unless `force`
 * (then they go in the same transaction). Deleting the default locale makes the oldest remaining
 * locale (createdAt, then code) the default in the same transaction.
 */
export async function deleteLocale(ctx: ServiceCtx, id: string, force: boolean): Promise<void> {
  try {
    await ctx.db.transaction(async (tx) => {
      await lockTenantLocales(tx, ctx.tenantId);
      // FOR UPDATE also waits for, and then blocks, translation writes referencing this locale
      // (their foreign-key check takes a KEY SHARE lock on it), so the count below is exact.
      const current = await mustFindLocale(tx, ctx.tenantId, id, { lock: true });
      const inUse = await countTranslationsOfLocale(tx, ctx.tenantId, current.id);
      if (inUse > 0 && !force) throw localeInUse(inUse);
      if (inUse > 0) await deleteTranslationsOfLocale(tx, ctx.tenantId, current.id);
      await deleteLocaleRow(tx, ctx.tenantId, current.id);
      await audit(ctx, tx, {
        action: 'LOCALE_DELETED',
        entityType: 'locale',
        entityId: id,
        metadata: { code: current.code, force, translationsDeleted: force ? inUse : 0 },
      });
      if (current.isDefault) await promoteOldestToDefault(ctx, tx);
    });
  } catch (err) {
    // a translation written between the check and the delete (backstop; the row lock prevents it)
    if (isForeignKeyViolation(err)) throw localeInUse(null);
    throw err;
  }
}

const localeInUse = (n: number | null) =>
  new AppError(
    'LOCALE_IN_USE',
    'Locale still has translations: delete them first or pass force=true',
    n === null ? undefined : { translations: n },
  );

/** After the default was deleted: the oldest remaining locale (createdAt, then code), if any, becomes the default. */
async function promoteOldestToDefault(ctx: ServiceCtx, tx: Transaction): Promise<void> {
  const next = await findOldestLocale(tx, ctx.tenantId);
  if (!next) return;
  await updateLocaleRow(tx, ctx.tenantId, next.id, { isDefault: true });
  await audit(ctx, tx, {
    action: 'LOCALE_UPDATED',
    entityType: 'locale',
    entityId: next.id,
    metadata: { code: next.code, changes: { isDefault: true }, reason: 'default locale deleted' },
  });
}
