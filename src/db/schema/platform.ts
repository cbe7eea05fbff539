import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, pgTable, text, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { created, ts, updated } from './columns.js';

export const ROLES = ['OWNER', 'ADMIN', 'EDITOR', 'VIEWER'] as const;
export type Role = (typeof ROLES)[number];
const ROLE_CHECK = sql`role in ('OWNER', 'ADMIN', 'EDITOR', 'VIEWER')`;

export const tenants = pgTable(
  'tenants',
  {
    id: uuid('id').primaryKey(),
    name: text('name').notNull(),
    slug: text('slug').notNull(),
    settings: jsonb('settings').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('tenants_slug_key').on(t.slug),
    uniqueIndex('tenants_name_lower_key').on(sql`lower(${t.name})`),
  ],
);

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey(),
    email: text('email').notNull(),
    name: text('name'),
    passwordHash: text('password_hash'),
    /** `password` or `google`: the method the account was registered with. */
    authProvider: text('auth_provider').notNull().default('password'),
    googleSubject: text('google_subject'),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [uniqueIndex('users_email_lower_key').on(sql`lower(${t.email})`)],
);

export const members = pgTable(
  'members',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    userId: uuid('user_id').references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').$type<Role>().notNull(),
    invitedBy: uuid('invited_by'),
    isPending: boolean('is_pending').notNull().default(false),
    inviteTokenHash: text('invite_token_hash'),
    inviteExpiresAt: ts('invite_expires_at'),
    inviteEmailStatus: text('invite_email_status'),
    inviteResendCount: integer('invite_resend_count').notNull().default(0),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    uniqueIndex('members_tenant_email_key').on(t.tenantId, sql`lower(${t.email})`),
    index('members_user_idx').on(t.userId),
    uniqueIndex('members_invite_token_key').on(t.inviteTokenHash),
    check('members_role_check', ROLE_CHECK),
  ],
);

export const inviteLinks = pgTable(
  'invite_links',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    role: text('role').$type<Role>().notNull(),
    tokenHash: text('token_hash').notNull(),
    createdBy: uuid('created_by'),
    expiresAt: ts('expires_at').notNull(),
    createdAt: created(),
    /** Set when revoked (by an admin, or when its creator is removed or demoted); `expiresAt` then moves to the same instant. */
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('invite_links_token_key').on(t.tokenHash),
    index('invite_links_tenant_created_idx').on(t.tenantId, t.createdAt, t.id),
    index('invite_links_tenant_creator_idx').on(t.tenantId, t.createdBy),
    check('invite_links_role_check', ROLE_CHECK),
  ],
);

/** One row per login; refresh tokens rotate within it, and revoking it ends every token it issued. */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    refreshTokenHash: text('refresh_token_hash').notNull(),
    /** sha256 of the secret the last rotation replaced: presenting it again is a replay. */
    previousRefreshTokenHash: text('previous_refresh_token_hash'),
    refreshExpiresAt: ts('refresh_expires_at').notNull(),
    revokedAt: ts('revoked_at'),
    revokedReason: text('revoked_reason'),
    ipAddress: text('ip_address'),
    userAgent: text('user_agent'),
    createdAt: created(),
    rotatedAt: ts('rotated_at'),
  },
  (t) => [index('sessions_user_idx').on(t.userId)],
);

export const passwordResets = pgTable('password_resets', {
  id: uuid('id').primaryKey(),
  userId: uuid('user_id')
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  tokenHash: text('token_hash').notNull().unique(),
  expiresAt: ts('expires_at').notNull(),
  usedAt: ts('used_at'),
  createdAt: created(),
});

/** Password-reset requests queued for the background worker (requests hold the email as typed). */
export const passwordResetRequests = pgTable('password_reset_requests', {
  id: uuid('id').primaryKey(),
  email: text('email').notNull(),
  requestedAt: ts('requested_at').notNull().defaultNow(),
});

export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull(),
    keyPrefix: text('key_prefix').notNull(),
    createdBy: uuid('created_by'),
    createdAt: created(),
    expiresAt: ts('expires_at'),
    lastUsedAt: ts('last_used_at'),
    revokedAt: ts('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_keys_hash_key').on(t.keyHash),
    index('api_keys_tenant_idx').on(t.tenantId, t.createdAt),
  ],
);

/** Append-only: no route updates or deletes a row. */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id').notNull(),
    action: text('action').notNull(),
    entityType: text('entity_type').notNull(),
    entityId: text('entity_id'),
    actorId: uuid('actor_id'),
    ipAddress: text('ip_address'),
    metadata: jsonb('metadata').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: created(),
  },
  (t) => [index('audit_logs_tenant_created_idx').on(t.tenantId, t.createdAt, t.id)],
);

export const mailOutbox = pgTable('mail_outbox', {
  id: uuid('id').primaryKey(),
  tenantId: uuid('tenant_id'),
  recipient: text('recipient').notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  /** SENT (SMTP accepted it), FAILED (SMTP refused or unreachable), LOGGED (no SMTP configured). */
  status: text('status').notNull(),
  error: text('error'),
  createdAt: created(),
});

/** When each lease-guarded periodic job is due next, and who runs it (migration 0097, platform/job-lease.ts). */
export const jobLeases = pgTable('job_leases', {
  name: text('name').primaryKey(),
  dueAt: ts('due_at').notNull(),
  holder: uuid('holder'),
  lastRunAt: ts('last_run_at'),
});
