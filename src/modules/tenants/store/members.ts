import { and, asc, count, desc, eq, ilike, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { members, type Role, tenants } from '../../../db/schema/index.js';
import type { MailStatus } from '../../../platform/mail.js';
import { containsPattern, listPage, type PageRequest } from '../../../platform/pagination.js';
import { type TenantRef, tenantRefColumns } from './tenants.js';

// A tenant's members, pending invites included. Every query names the tenant except those that
// find it: from an invite token, or as the membership a user signs in to.

/** What a member looks like outside the service: never the invite token hash. */
const memberColumns = {
  id: members.id,
  tenantId: members.tenantId,
  userId: members.userId,
  email: members.email,
  role: members.role,
  invitedBy: members.invitedBy,
  isPending: members.isPending,
  inviteEmailStatus: members.inviteEmailStatus,
  inviteResendCount: members.inviteResendCount,
  inviteExpiresAt: members.inviteExpiresAt,
  createdAt: members.createdAt,
  updatedAt: members.updatedAt,
};
export type MemberRecord = Pick<typeof members.$inferSelect, keyof typeof memberColumns>;

/** Emails match case-insensitively, as the unique index `members_tenant_email_key` does. */
const sameEmail = (email: string): SQL => sql`lower(${members.email}) = lower(${email})`;
const memberOf = (tenantId: string, id: string) => and(eq(members.tenantId, tenantId), eq(members.id, id));

export interface MemberFilter {
  /** Case-insensitive substring of the email. */
  search?: string | undefined;
  role?: Role | undefined;
  isPending?: boolean | undefined;
}

/** The tenant's members and pending invites matching `filter`, newest first. */
export async function listMembersPage(
  exec: Executor,
  tenantId: string,
  filter: MemberFilter,
  page: PageRequest,
) {
  const where = and(
    eq(members.tenantId, tenantId),
    filter.search ? ilike(members.email, containsPattern(filter.search)) : undefined,
    filter.role ? eq(members.role, filter.role) : undefined,
    filter.isPending === undefined ? undefined : eq(members.isPending, filter.isPending),
  );
  return listPage(
    exec.select(memberColumns).from(members).where(where).orderBy(desc(members.createdAt), desc(members.id)),
    exec.select({ n: count() }).from(members).where(where),
    page,
  );
}

/** The member `id` of the tenant; `lock` takes its row FOR UPDATE. */
export async function findMember(
  exec: Executor,
  tenantId: string,
  id: string,
  opts: { lock?: boolean } = {},
): Promise<MemberRecord | undefined> {
  const query = exec.select(memberColumns).from(members).where(memberOf(tenantId, id)).limit(1);
  const [row] = opts.lock ? await query.for('update') : await query;
  return row;
}

/** Locks the tenant's accepted OWNER rows, in id order (two writers never deadlock); returns their ids. */
export async function lockOwners(exec: Executor, tenantId: string): Promise<string[]> {
  const owners = await exec
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.role, 'OWNER'), eq(members.isPending, false)))
    .orderBy(members.id)
    .for('update');
  return owners.map((o) => o.id);
}

/** The emails of the tenant's accepted OWNERs (who is told when something of the tenant's stops working). */
export async function listOwnerEmails(exec: Executor, tenantId: string): Promise<string[]> {
  const owners = await exec
    .select({ email: members.email })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.role, 'OWNER'), eq(members.isPending, false)))
    .orderBy(members.email);
  return owners.map((o) => o.email);
}

/** Whether the email is already a member of the tenant or invited to it. */
export async function memberEmailExists(exec: Executor, tenantId: string, email: string): Promise<boolean> {
  const [row] = await exec
    .select({ id: members.id })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), sameEmail(email)))
    .limit(1);
  return row !== undefined;
}

export async function insertMember(
  exec: Executor,
  member: typeof members.$inferInsert,
): Promise<MemberRecord> {
  const [row] = await exec.insert(members).values(member).returning(memberColumns);
  return row!;
}

export async function updateMember(
  exec: Executor,
  tenantId: string,
  id: string,
  values: Partial<Omit<typeof members.$inferInsert, 'id' | 'tenantId'>>,
): Promise<MemberRecord | undefined> {
  const [row] = await exec.update(members).set(values).where(memberOf(tenantId, id)).returning(memberColumns);
  return row;
}

export async function deleteMember(exec: Executor, tenantId: string, id: string): Promise<void> {
  await exec.delete(members).where(memberOf(tenantId, id));
}

/**
 * Records how the invite mail went, if `inviteTokenHash` is still the member's invite: a
 * concurrent resend or acceptance wins. Undefined when it no longer is.
 */
export async function setInviteEmailStatus(
  exec: Executor,
  tenantId: string,
  id: string,
  inviteTokenHash: string,
  status: MailStatus,
): Promise<MemberRecord | undefined> {
  const [row] = await exec
    .update(members)
    .set({ inviteEmailStatus: status })
    .where(and(memberOf(tenantId, id), eq(members.inviteTokenHash, inviteTokenHash)))
    .returning(memberColumns);
  return row;
}

/**
 * The user's accepted membership a sign-in lands in, with its tenant: the one of `tenantId`
 * when given, otherwise the oldest. Pending invites do not count. (By user: the tenant is what
 * a sign-in decides.)
 */
export async function findAcceptedMembership(
  exec: Executor,
  userId: string,
  tenantId?: string,
): Promise<{ role: Role; tenant: TenantRef } | undefined> {
  const [row] = await exec
    .select({ role: members.role, tenant: tenantRefColumns })
    .from(members)
    .innerJoin(tenants, eq(tenants.id, members.tenantId))
    .where(
      and(
        eq(members.userId, userId),
        eq(members.isPending, false),
        tenantId === undefined ? undefined : eq(members.tenantId, tenantId),
      ),
    )
    .orderBy(asc(members.createdAt), asc(members.id))
    .limit(1);
  return row;
}

/** The role of the user's accepted membership of the tenant, its row locked FOR SHARE. */
export async function lockAcceptedRole(
  exec: Executor,
  tenantId: string,
  userId: string,
): Promise<Role | undefined> {
  const [row] = await exec
    .select({ role: members.role })
    .from(members)
    .where(and(eq(members.tenantId, tenantId), eq(members.userId, userId), eq(members.isPending, false)))
    .limit(1)
    .for('share');
  return row?.role;
}

/** The pending invite an emailed token names, with its tenant (found by the token's hash). */
export async function findPendingInviteByToken(exec: Executor, tokenHash: string) {
  const [row] = await exec
    .select({
      id: members.id,
      email: members.email,
      expiresAt: members.inviteExpiresAt,
      tenant: tenantRefColumns,
    })
    .from(members)
    .innerJoin(tenants, eq(tenants.id, members.tenantId))
    .where(and(eq(members.inviteTokenHash, tokenHash), eq(members.isPending, true)))
    .limit(1);
  return row;
}

/**
 * Accepts a pending invite for `userId`, with `values` (a role, when a link decides it): only
 * the invite `id` still holding `tokenHash`, or, with `email`, the tenant's pending invite of
 * that address. The conditional UPDATE claims it, so a concurrent second accept finds nothing.
 */
export async function acceptPendingInvite(
  exec: Executor,
  tenantId: string,
  which: { id: string; tokenHash: string } | { email: string },
  userId: string,
  now: Date,
  values: { role?: Role } = {},
): Promise<{ memberId: string; role: Role } | undefined> {
  const [row] = await exec
    .update(members)
    .set({ userId, ...values, isPending: false, inviteTokenHash: null, updatedAt: now })
    .where(
      and(
        eq(members.tenantId, tenantId),
        'id' in which
          ? and(eq(members.id, which.id), eq(members.inviteTokenHash, which.tokenHash))
          : sameEmail(which.email),
        eq(members.isPending, true),
      ),
    )
    .returning({ memberId: members.id, role: members.role });
  return row;
}
