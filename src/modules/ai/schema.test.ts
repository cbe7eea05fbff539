import { getTableConfig } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '../../../test/helpers/database.js';
import * as schema from '../../db/schema/index.js';
import { aiConfigs, aiConversations, aiKbArticles } from '../../db/schema/index.js';
import { AI_CONDITIONAL_SCHEMA } from './vector-support.js';

/** The AI tables as migrated and as declared to drizzle agree: columns, nullability, indexes. */
let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase();
});
afterAll(() => db.close());

describe('AI schema', () => {
  it.each([aiConfigs, aiKbArticles, aiConversations])('$_.name matches its migration', async (table) => {
    const config = getTableConfig(table);
    const columns = await db.handle.query<{ column_name: string; is_nullable: string }>(
      `select column_name, is_nullable from information_schema.columns where table_name = $1 order by column_name`,
      [config.name],
    );
    expect(columns.map((c) => [c.column_name, c.is_nullable === 'NO'])).toEqual(
      config.columns.map((c) => [c.name, c.notNull]).sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
    const indexes = await db.handle.query<{ indexname: string }>(
      `select indexname from pg_indexes where tablename = $1 and indexname not like '%_pkey' order by indexname`,
      [config.name],
    );
    expect(indexes.map((i) => i.indexname)).toEqual(config.indexes.map((i) => i.config.name).sort());
  });

  it('declares none of the objects created only with pgvector', () => {
    const declared = Object.values(schema)
      .filter((v) => typeof v === 'object' && v !== null && Symbol.for('drizzle:IsDrizzleTable') in v)
      .map((t) => getTableConfig(t as typeof aiConfigs).name);
    expect(declared).toContain('ai_kb_articles');
    for (const table of AI_CONDITIONAL_SCHEMA.tables) expect(declared).not.toContain(table);
  });
});
