import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffCatalogs, readCatalog } from '../../test/helpers/catalog.js';
import { createTestDatabase, type TestDatabase } from '../../test/helpers/database.js';
import { checksumOf, listMigrations, MIGRATIONS_DIR, type MigrationFile, migrate } from './migrate.js';

const opened: TestDatabase[] = [];
async function emptyDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase({ migrated: false });
  opened.push(db);
  return db;
}
afterEach(async () => {
  for (const db of opened.splice(0)) await db.close();
});

const edited = (files: MigrationFile[], name: string, sql: string): MigrationFile[] =>
  files.map((f) => (f.name === name ? { name, sql, checksum: checksumOf(sql) } : f));

// Each test migrates fresh databases from scratch: slow on a loaded machine, not a hang.
describe('migrations: applied files are immutable', { timeout: 120_000 }, () => {
  it('records the sha256 of every file it applies', async () => {
    const db = await emptyDatabase();
    const files = listMigrations();
    expect(await migrate(db.handle, files)).toEqual(files.map((f) => f.name));
    const rows = await db.handle.query<{ name: string; checksum: string }>(
      'select name, checksum from schema_migrations order by name',
    );
    expect(rows).toEqual(files.map((f) => ({ name: f.name, checksum: f.checksum })));
  });

  it('refuses to start when an applied migration was edited, naming the file', async () => {
    const db = await emptyDatabase();
    const files = listMigrations();
    await migrate(db.handle, files);
    const changed = edited(files, '0003_flows.sql', `${files[2]!.sql}\n-- an edit`);
    await expect(migrate(db.handle, changed)).rejects.toThrow(
      /migration 0003_flows\.sql was edited after it was applied/,
    );
  });

  it('refuses to start when an applied migration file is missing', async () => {
    const db = await emptyDatabase();
    const files = listMigrations();
    await migrate(db.handle, files);
    await expect(
      migrate(
        db.handle,
        files.filter((f) => f.name !== '0014_sdk.sql'),
      ),
    ).rejects.toThrow(/migration 0014_sdk\.sql was applied to this database but its file is missing/);
  });

  it('applies only the new files of a later release', async () => {
    const db = await emptyDatabase();
    const files = listMigrations();
    await migrate(db.handle, files.slice(0, 5));
    expect(await migrate(db.handle, files)).toEqual(files.slice(5).map((f) => f.name));
  });

  it('brings a database that applied the first versions of 0004, 0006 and 0008 to the same schema as a new one (0019)', async () => {
    const fixtures = listMigrations(join(MIGRATIONS_DIR, '../../../test/fixtures/migrations-before-0019'));
    expect(fixtures.map((f) => f.name)).toEqual(['0004_content.sql', '0006_pricing.sql', '0008_events.sql']);
    const current = listMigrations();
    const before = current
      .filter((f) => f.name < '0019')
      .map((f) => fixtures.find((old) => old.name === f.name) ?? f);

    const old = await emptyDatabase();
    await migrate(old.handle, before);
    // Databases of that time had no checksums: the first boot of this release records them.
    await old.handle.query('update schema_migrations set checksum = null');
    const [{ source_before }] = (await old.handle.query<{ source_before: number }>(
      `select count(*)::int as source_before from information_schema.columns
       where table_name = 'event_batches' and column_name = 'source'`,
    )) as [{ source_before: number }];
    expect(source_before).toBe(0);
    await migrate(old.handle, current);

    const fresh = await emptyDatabase();
    await migrate(fresh.handle, current);
    expect(
      diffCatalogs(await readCatalog(old.handle), await readCatalog(fresh.handle), ['repaired', 'new']),
    ).toEqual([]);
    const plans = 'select name, features, limits from plans order by name';
    expect(await old.handle.query(plans)).toEqual(await fresh.handle.query(plans));
  });
});
