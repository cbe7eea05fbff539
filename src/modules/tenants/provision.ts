import type { Executor } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { randomHex } from '../../platform/crypto.js';
import { AppError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { createSubscription } from '../pricing/index.js';
import { insertMember } from './store/members.js';
import { insertTenant, type TenantRecord } from './store/tenants.js';

interface ProvisionInput {
  name: string;
  owner: { userId: string; email: string };
  /** Plan of the new tenant: sign-ups pass `config.defaultPlan` (DEFAULT_PLAN). */
  plan: string;
}

/**
 * Creates a tenant with its first OWNER, inside the caller's transaction. Used by registration
 * and Google sign-up; whatever every new tenant must have (a subscription) is added here. A name
 * taken in any case trips the unique index (TENANT_EXISTS), which also aborts the transaction.
 */
export async function provisionTenant(exec: Executor, input: ProvisionInput) {
  const name = input.name.trim();
  const tenantId = newId();
  let tenant: TenantRecord;
  try {
    tenant = await insertTenant(exec, { id: tenantId, name, slug: `${slugify(name)}-${randomHex(3)}` });
  } catch (err) {
    if (isUniqueViolation(err, 'tenants_name_lower_key')) throw new AppError('TENANT_EXISTS');
    throw err;
  }
  const member = await insertMember(exec, {
    id: newId(),
    tenantId,
    userId: input.owner.userId,
    email: input.owner.email,
    role: 'OWNER',
  });
  await createSubscription(exec, tenantId, input.plan);
  return { tenant, member };
}

function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return slug || 'company';
}
