import { isUniqueViolation } from '../../db/errors.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound, validationError } from '../../platform/errors.js';
import { sameJson } from '../../platform/same-json.js';
import { findTenant, type TenantRecord, updateTenant } from './store/tenants.js';

/** Upper bound of the stored settings object, serialized as JSON (UTF-8 bytes). */
export const MAX_SETTINGS_BYTES = 64 * 1024;

export async function getCurrentTenant(ctx: ServiceCtx) {
  const row = await findTenant(ctx.db, ctx.tenantId);
  if (!row) throw notFound('Tenant');
  return row;
}

interface TenantPatch {
  name?: string | undefined;
  settings?: Record<string, unknown> | undefined;
}

/**
 * Shallow merge: each key given replaces the stored one, `null` removes it, the rest is kept.
 * Returns the merged object and the keys that actually changed (a value equal as JSON, whatever
 * its key order, is no change: jsonb does not keep the order keys were sent in).
 */
export function mergeSettings(stored: Record<string, unknown>, patch: Record<string, unknown>) {
  const merged: Record<string, unknown> = { ...stored };
  const set: string[] = [];
  const removed: string[] = [];
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) {
      if (key in merged) {
        delete merged[key];
        removed.push(key);
      }
    } else if (!(key in merged) || !sameJson(merged[key], value)) {
      merged[key] = value;
      set.push(key);
    }
  }
  return { merged, set, removed };
}

/**
 * PATCH /api/tenants/current. A patch that changes nothing returns the tenant untouched and
 * writes no audit row. Caches of the tenant's config hear of it from the database (change feed).
 */
export async function updateCurrentTenant(ctx: ServiceCtx, input: TenantPatch) {
  const result = await ctx.db.transaction(async (tx) => {
    const current = await findTenant(tx, ctx.tenantId, { lock: true });
    if (!current) throw notFound('Tenant');

    const changes: Record<string, unknown> = {};
    const values: Partial<Pick<TenantRecord, 'name' | 'settings'>> = {};

    // Another tenant's name (in any case) trips the unique index: TENANT_EXISTS below.
    if (input.name !== undefined && input.name !== current.name) {
      values.name = input.name;
      changes.name = { from: current.name, to: input.name };
    }

    if (input.settings !== undefined) {
      const { merged, set, removed } = mergeSettings(current.settings, input.settings);
      if (Buffer.byteLength(JSON.stringify(merged), 'utf8') > MAX_SETTINGS_BYTES) {
        throw validationError([
          { path: 'settings', message: `settings may not exceed ${MAX_SETTINGS_BYTES} bytes of JSON` },
        ]);
      }
      if (set.length || removed.length) {
        values.settings = merged;
        changes.settings = { set, removed };
      }
    }

    if (Object.keys(values).length === 0) return { tenant: current, changed: false };

    let row: TenantRecord | undefined;
    try {
      row = await updateTenant(tx, ctx.tenantId, values, ctx.now);
    } catch (err) {
      if (isUniqueViolation(err, 'tenants_name_lower_key')) throw new AppError('TENANT_EXISTS');
      throw err;
    }
    await audit(ctx, tx, {
      action: 'TENANT_SETTINGS_UPDATED',
      entityType: 'tenant',
      entityId: ctx.tenantId,
      metadata: changes,
    });
    return { tenant: row!, changed: true };
  });
  return result.tenant;
}
