// Tables of the translations domain (mirror of migrations/0005_translations.sql).
import { sql } from 'drizzle-orm';
import {
  boolean,
  check,
  foreignKey,
  index,
  integer,
  pgTable,
  text,
  unique,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { created, updated } from './columns.js';
import { tenants } from './platform.js';

export const locales = pgTable(
  'locales',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    code: text('code').notNull(),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    isRtl: boolean('is_rtl').notNull().default(false),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    unique('locales_tenant_id_key').on(t.tenantId, t.id),
    uniqueIndex('locales_tenant_code_key').on(t.tenantId, sql`lower(${t.code})`),
    uniqueIndex('locales_tenant_default_key').on(t.tenantId).where(sql`is_default`),
    check('locales_code_check', sql`char_length(code) between 2 and 10`),
  ],
);

export const translations = pgTable(
  'translations',
  {
    id: uuid('id').primaryKey(),
    tenantId: uuid('tenant_id')
      .notNull()
      .references(() => tenants.id, { onDelete: 'cascade' }),
    localeId: uuid('locale_id').notNull(),
    contentType: text('content_type').notNull(),
    contentId: text('content_id').notNull(),
    fieldName: text('field_name').notNull(),
    value: text('value').notNull(),
    version: integer('version').notNull().default(1),
    createdAt: created(),
    updatedAt: updated(),
  },
  (t) => [
    foreignKey({
      name: 'translations_locale_fkey',
      columns: [t.tenantId, t.localeId],
      foreignColumns: [locales.tenantId, locales.id],
    }).onDelete('no action'),
    uniqueIndex('translations_key').on(t.localeId, t.contentType, t.contentId, t.fieldName),
    index('translations_tenant_created_idx').on(
      t.tenantId,
      t.createdAt.desc().nullsFirst(),
      t.id.desc().nullsFirst(),
    ),
    check('translations_version_check', sql`version >= 1`),
    index('translations_tenant_content_idx').on(t.tenantId, t.contentType, t.contentId, t.fieldName),
  ],
);

export type Locale = typeof locales.$inferSelect;
export type Translation = typeof translations.$inferSelect;
