import { eq } from 'drizzle-orm';
import { isUniqueViolation } from '../../db/errors.js';
import { tenants } from '../../db/schema/index.js';
import { audit, type ServiceCtx } from '../../platform/context.js';
import { AppError, notFound, validationError } from '../../platform/errors.js';
import { sameJson } from '../../platform/same-json.js';

/** Upper bound of the stored settings object, serialized as JSON (UTF-8 bytes). */
export const MAX_SETTINGS_BYTES = 64 * 1024;

const tenantColumns = {
  id: tenants.id,
  name: tenants.name,
  slug: tenants.slug,
  settings: tenants.settings,
  createdAt: tenants.createdAt,
  updatedAt: tenants.updatedAt,
};

export async function getCurrentTenant(ctx: ServiceCtx) {
  const [row] = await ctx.db.select(tenantColumns).from(tenants).where(eq(tenants.id, ctx.tenantId)).limit(1);
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
    const [current] = await tx
      .select(tenantColumns)
      .from(tenants)
      .where(eq(tenants.id, ctx.tenantId))
      .for('update');
    if (!current) throw notFound('Tenant');

    const changes: Record<string, unknown> = {};
    const values: Partial<typeof tenants.$inferInsert> = {};

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

    let row: typeof current | undefined;
    try {
      [row] = await tx
        .update(tenants)
        .set({ ...values, updatedAt: ctx.now })
        .where(eq(tenants.id, ctx.tenantId))
        .returning(tenantColumns);
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
