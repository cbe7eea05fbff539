import { generateDrizzleJson, generateMigration } from 'drizzle-kit/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listMigrations, migrate } from '../src/db/migrate.js';
import * as schema from '../src/db/schema/index.js';
import { AI_CONDITIONAL_SCHEMA } from '../src/modules/ai/vector-support.js';
import { type Catalog, diffCatalogs, readCatalog } from './helpers/catalog.js';
import { createTestDatabase, type TestDatabase } from './helpers/database.js';

/**
 * The SQL migrations are the schema's source of truth; the drizzle schema (`src/db/schema/`) is
 * what the code's queries are typed against. This test builds one database from each — the
 * migrations applied in order, and the DDL drizzle-kit generates from the drizzle schema — and
 * compares tables, columns (type, nullability, default), indexes and constraints as PostgreSQL
 * prints them. A column, index or check added on one side only fails here.
 */

/** What drizzle cannot express, stated once (the SQL is right; drizzle's line says why). */
const ALLOWED = [
  // Reorders swap step orders within a transaction: the SQL constraint is deferrable.
  'constraint flow_steps UNIQUE (flow_id, "order") DEFERRABLE INITIALLY DEFERRED: only in migrations',
  'constraint flow_steps UNIQUE (flow_id, "order"): only in drizzle',
  // An index-only scan for the overview's completions; drizzle has no INCLUDE.
  'indexes analytics_flow_daily_tenant_day_idx: migrations has CREATE INDEX analytics_flow_daily_tenant_day_idx ON public.analytics_flow_daily USING btree (tenant_id, day) INCLUDE (starts, completed), drizzle has CREATE INDEX analytics_flow_daily_tenant_day_idx ON public.analytics_flow_daily USING btree (tenant_id, day)',
  // Added NOT VALID (migration 0065): existing log rows are not scanned at boot; drizzle has no NOT VALID.
  'constraint event_batches CHECK (((events IS NULL) <> (events_br IS NULL))) NOT VALID: only in migrations',
  'constraint event_batches CHECK (((events IS NULL) <> (events_br IS NULL))): only in drizzle',
];

/** Every `create function … $$;` of the migrations, in order. */
function sqlFunctions(): string[] {
  return listMigrations().flatMap((m) => m.sql.match(/create (or replace )?function[\s\S]*?\$\$;/gi) ?? []);
}

describe('schema truth: the migrations and the drizzle schema describe one database', () => {
  let fromMigrations: TestDatabase;
  let fromDrizzle: TestDatabase;
  let catalogs: [Catalog, Catalog];

  beforeAll(async () => {
    fromMigrations = await createTestDatabase();
    fromDrizzle = await createTestDatabase({ migrated: false });
    const empty = generateDrizzleJson({});
    const statements = await generateMigration(
      empty,
      generateDrizzleJson(schema as Record<string, unknown>, empty.id),
    );
    // Functions are SQL's alone (not compared), but a generated column or a default may call
    // one: the drizzle side gets the functions its DDL names first.
    for (const fn of sqlFunctions()) {
      const name = /function\s+(\w+)/i.exec(fn)![1]!;
      if (statements.some((st) => st.includes(`${name}(`))) await fromDrizzle.handle.query(fn);
    }
    for (const statement of statements) await fromDrizzle.handle.query(statement);
    // Created only where pgvector exists (migration 0036): outside the drizzle schema by design.
    const conditional = AI_CONDITIONAL_SCHEMA.tables;
    catalogs = [
      await readCatalog(fromMigrations.handle, conditional),
      await readCatalog(fromDrizzle.handle, conditional),
    ];
  }, 120_000);
  afterAll(async () => {
    await fromMigrations?.close();
    await fromDrizzle?.close();
  });

  it('has the same tables, columns, indexes and constraints on both sides', () => {
    const differences = diffCatalogs(catalogs[0], catalogs[1], ['migrations', 'drizzle']);
    expect(differences.filter((d) => !ALLOWED.includes(d))).toEqual([]);
  });

  it('compares something: every table of the drizzle schema is there, with its indexes', () => {
    const [migrated] = catalogs;
    expect(migrated.columns.get('flows.tenant_id')).toBe('uuid not null default -');
    expect(migrated.indexes.get('event_batches_new_idx')).toMatch(/WHERE \(\(processed_at IS NULL\)/);
    expect(migrated.indexes.size).toBeGreaterThan(40);
  });

  it('a migration applied twice changes nothing (the runner records what ran)', async () => {
    expect(await migrate(fromMigrations.handle)).toEqual([]);
  });
});
