import { and, count, desc, eq, gt, inArray, isNull } from 'drizzle-orm';
import type { Executor } from '../../../db/client.js';
import { inviteLinks, members, type Role, tenants } from '../../../db/schema/index.js';
import { listPage, type PageRequest } from '../../../platform/pagination.js';
import { tenantRefColumns } from './tenants.js';

/** What an invite link looks like outside the service: never the token or its hash. */
const inviteLinkColumns = {
  id: inviteLinks.id,
  role: inviteLinks.role,
  createdBy: inviteLinks.createdBy,
  expiresAt: inviteLinks.expiresAt,
  createdAt: inviteLinks.createdAt,
};
export type InviteLinkRecord = Pick<typeof inviteLinks.$inferSelect, keyof typeof inviteLinkColumns>;

/** A link is usable while it is neither revoked nor expired at `now`. */
const usableLinks = (tenantId: string, now: Date) =>
  and(eq(inviteLinks.tenantId, tenantId), isNull(inviteLinks.revokedAt), gt(inviteLinks.expiresAt, now));

export async function insertInviteLink(
  exec: Executor,
  link: Omit<typeof inviteLinks.$inferInsert, 'createdAt' | 'revokedAt'>,
): Promise<void> {
  await exec.insert(inviteLinks).values(link);
}

/** The tenant's links usable at `now`, newest first. */
export async function listUsableInviteLinksPage(
  exec: Executor,
  tenantId: string,
  now: Date,
  page: PageRequest,
) {
  const where = usableLinks(tenantId, now);
  return listPage(
    exec
      .select(inviteLinkColumns)
      .from(inviteLinks)
      .where(where)
      .orderBy(desc(inviteLinks.createdAt), desc(inviteLinks.id)),
    exec.select({ n: count() }).from(inviteLinks).where(where),
    page,
  );
}

/** The link `id` if it is usable at `now`, its row locked FOR UPDATE. */
export async function lockUsableInviteLink(
  exec: Executor,
  tenantId: string,
  id: string,
  now: Date,
): Promise<InviteLinkRecord | undefined> {
  const [row] = await exec
    .select(inviteLinkColumns)
    .from(inviteLinks)
    .where(and(usableLinks(tenantId, now), eq(inviteLinks.id, id)))
    .for('update');
  return row;
}

/**
 * Revokes links at `now`: the link `id`, or the usable links `createdBy` created (only those
 * granting one of `roles`, when given). Acceptance checks only the token and `expiresAt`, so
 * the expiry moves to now as well as `revokedAt` being set. Returns how many it revoked.
 */
export async function revokeInviteLinks(
  exec: Executor,
  tenantId: string,
  which: { id: string } | { createdBy: string; roles?: readonly Role[] },
  now: Date,
): Promise<number> {
  const where =
    'id' in which
      ? and(eq(inviteLinks.tenantId, tenantId), eq(inviteLinks.id, which.id))
      : and(
          usableLinks(tenantId, now),
          eq(inviteLinks.createdBy, which.createdBy),
          which.roles ? inArray(inviteLinks.role, [...which.roles]) : undefined,
        );
  const revoked = await exec
    .update(inviteLinks)
    .set({ expiresAt: now, revokedAt: now })
    .where(where)
    .returning({ id: inviteLinks.id });
  return revoked.length;
}

/**
 * The link a token names (found by the token's hash), with its tenant and the role of its
 * creator's accepted membership there (null when the creator is no longer a member).
 */
export async function findInviteLinkByToken(exec: Executor, tokenHash: string) {
  const [row] = await exec
    .select({
      id: inviteLinks.id,
      role: inviteLinks.role,
      createdBy: inviteLinks.createdBy,
      expiresAt: inviteLinks.expiresAt,
      creatorRole: members.role,
      tenant: tenantRefColumns,
    })
    .from(inviteLinks)
    .innerJoin(tenants, eq(tenants.id, inviteLinks.tenantId))
    .leftJoin(
      members,
      and(
        eq(members.tenantId, inviteLinks.tenantId),
        eq(members.userId, inviteLinks.createdBy),
        eq(members.isPending, false),
      ),
    )
    .where(eq(inviteLinks.tokenHash, tokenHash))
    .limit(1);
  return row;
}
