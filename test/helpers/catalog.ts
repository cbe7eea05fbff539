import type { DatabaseHandle } from '../../src/db/client.js';

/**
 * The shape of a database's public schema as PostgreSQL itself prints it (so two databases
 * built different ways compare like with like): columns with type, nullability and default;
 * indexes that back no constraint, with their definitions; constraints by table and
 * definition (names aside: drizzle and SQL name primary and foreign keys differently).
 * Triggers and functions are not tables' shape and are left out; so are partitions (a partition
 * has its parent's shape: event_batches on PostgreSQL, migration 0096).
 */
export interface Catalog {
  columns: Map<string, string>;
  indexes: Map<string, string>;
  constraints: Set<string>;
}

const IGNORED_TABLES = new Set(['schema_migrations']);
const PARTITIONS = `select relname from pg_class where relispartition and relnamespace = 'public'::regnamespace`;

/** `ignoring`: tables left out (besides the migrations' own bookkeeping). */
export async function readCatalog(db: DatabaseHandle, ignoring: readonly string[] = []): Promise<Catalog> {
  const columns = await db.query<{ k: string; v: string }>(
    `select table_name || '.' || column_name as k,
            format('%s %s default %s%s', udt_name, case when is_nullable = 'YES' then 'null' else 'not null' end,
                   coalesce(column_default, '-'),
                   case when is_generated = 'ALWAYS' then ' generated as ' || generation_expression else '' end) as v
     from information_schema.columns where table_schema = 'public'
       and table_name not in (${PARTITIONS})`,
  );
  const indexes = await db.query<{ t: string; k: string; v: string }>(
    `select i.tablename as t, i.indexname as k, i.indexdef as v from pg_indexes i
     where i.schemaname = 'public'
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname and c.connamespace = 'public'::regnamespace)
       and i.tablename not in (${PARTITIONS})`,
  );
  const constraints = await db.query<{ t: string; k: string }>(
    `select conrelid::regclass::text as t, conrelid::regclass::text || ' ' || pg_get_constraintdef(oid) as k
     from pg_constraint where connamespace = 'public'::regnamespace and contype <> 't'
       and conrelid not in (select oid from pg_class where relispartition)`,
  );
  const keep = (table: string) => !IGNORED_TABLES.has(table) && !ignoring.includes(table);
  return {
    columns: new Map(columns.filter((r) => keep(r.k.split('.')[0]!)).map((r) => [r.k, r.v])),
    // A partitioned table's index prints `ON ONLY` (it is built on each partition): same shape.
    indexes: new Map(indexes.filter((r) => keep(r.t)).map((r) => [r.k, r.v.replace(' ON ONLY ', ' ON ')])),
    constraints: new Set(constraints.filter((r) => keep(r.t)).map((r) => r.k)),
  };
}

/** Human-readable differences (empty when the catalogs agree). */
export function diffCatalogs(a: Catalog, b: Catalog, names = ['a', 'b']): string[] {
  const out: string[] = [];
  const [an, bn] = names;
  for (const kind of ['columns', 'indexes'] as const) {
    for (const [k, v] of a[kind]) {
      if (!b[kind].has(k)) out.push(`${kind} ${k}: only in ${an} (${v})`);
      else if (b[kind].get(k) !== v) out.push(`${kind} ${k}: ${an} has ${v}, ${bn} has ${b[kind].get(k)}`);
    }
    for (const [k, v] of b[kind]) if (!a[kind].has(k)) out.push(`${kind} ${k}: only in ${bn} (${v})`);
  }
  for (const k of a.constraints) if (!b.constraints.has(k)) out.push(`constraint ${k}: only in ${an}`);
  for (const k of b.constraints) if (!a.constraints.has(k)) out.push(`constraint ${k}: only in ${bn}`);
  return out.sort();
}
