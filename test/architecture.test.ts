import { readdirSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { cruise, type ICruiseResult } from 'dependency-cruiser';
import { is } from 'drizzle-orm';
import { PgTable } from 'drizzle-orm/pg-core';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import * as schema from '../src/db/schema/index.js';
import { allModules } from '../src/modules/index.js';

/**
 * The layering of ARCHITECTURE.md, checked on the real import graph (dependency-cruiser, type-only
 * imports included): every import runs down the layers, and nothing imports in a circle — not
 * between files, not between module folders.
 *
 *   main.ts, app.ts, modules/index.ts    composition
 *   workers/                             schedules the modules' jobs
 *   modules/<domain>/                    one folder per domain (lower modules below higher ones)
 *   deps.ts, config.ts                   the per-app container and the config
 *   platform/, db/, engine/              cross-cutting parts, storage, pure logic
 *
 * A module is used through its `index.ts` (its public surface), never through its other files,
 * and the pure rules in a module's `engine/` folder do no I/O; a module reaches its tables only
 * through its store files (`store.ts` or `store/`). Each rule is a function of the edges (or of a
 * file's text), so a planted violation proves it would catch one.
 */

interface Edge {
  from: string;
  to: string;
}

const edges: Edge[] = [];
/** Imports of packages and Node's built-ins: `to` is the package name (`pg`, `node:fs`). */
const externalEdges: Edge[] = [];
let circular: Edge[] = [];

beforeAll(async () => {
  const { output } = await cruise(
    ['src'],
    {
      tsPreCompilationDeps: true,
      tsConfig: { fileName: 'tsconfig.json' },
      exclude: { path: '\\.test\\.ts$' },
      doNotFollow: { path: 'node_modules' },
      validate: true,
      ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
    },
    {},
    { tsConfig: { fileName: 'tsconfig.json' } } as never,
  );
  const result = output as ICruiseResult;
  for (const module of result.modules) {
    for (const dep of module.dependencies) {
      if (
        dep.resolved.startsWith('src/') ||
        dep.resolved.startsWith('test/') ||
        dep.resolved.startsWith('bench/')
      )
        edges.push({ from: module.source, to: dep.resolved });
      else if (dep.coreModule || dep.resolved.includes('node_modules/'))
        externalEdges.push({ from: module.source, to: dep.module });
    }
  }
  circular = result.summary.violations
    .filter((v) => v.rule.name === 'no-circular')
    .map((v) => ({ from: v.from, to: v.to }));
}, 120_000);

const under = (prefix: string) => (e: Edge) => e.from.startsWith(prefix);
const into =
  (...prefixes: string[]) =>
  (e: Edge) =>
    prefixes.some((p) => e.to.startsWith(p));
const show = (list: Edge[]) => list.map((e) => `${e.from} -> ${e.to}`);

/** `src/modules/<domain>` of a file, else null. */
const moduleOf = (file: string) => /^src\/modules\/([^/]+)\//.exec(file)?.[1] ?? null;
const surfaceOf = (module: string) => `src/modules/${module}/index.ts`;

/** Imports of another module's files other than its `index.ts`. */
const pastSurfaces = (list: Edge[]) =>
  list.filter((e) => {
    const a = moduleOf(e.from);
    const b = moduleOf(e.to);
    return a !== null && b !== null && a !== b && e.to !== surfaceOf(b);
  });

/** A module's own files importing its `index.ts` (the surface is for others; inside, it would be a cycle). */
const ownSurfaceImports = (list: Edge[]) =>
  list.filter((e) => {
    const a = moduleOf(e.from);
    return a !== null && e.to === surfaceOf(a) && e.from !== surfaceOf(a);
  });

/** A file in a module's `engine/` folder: its pure rules. */
const isModuleEngine = (file: string) => /^src\/modules\/[^/]+\/engine\//.test(file);
const engineFolderOf = (file: string) => file.slice(0, file.indexOf('/engine/') + '/engine/'.length);

/** A module engine imports only its own engine folder and the shared `src/engine/`. */
const impureEngineImports = (list: Edge[]) =>
  list.filter(
    (e) =>
      isModuleEngine(e.from) && !e.to.startsWith(engineFolderOf(e.from)) && !e.to.startsWith('src/engine/'),
  );

/** Packages that reach a database, the network, the disk or another process. */
const IO_PACKAGES = [
  /^(node:)?(fs|fs\/promises|net|http|https|http2|dgram|dns|child_process|worker_threads|tls)$/,
  /^(pg|ioredis|nodemailer|fastify|drizzle-orm|ai)(\/|$)/,
  /^@electric-sql\//,
  /^@ai-sdk\//,
];
const ioPackageImports = (list: Edge[]) =>
  list.filter(
    (e) =>
      (isModuleEngine(e.from) || e.from.startsWith('src/engine/')) && IO_PACKAGES.some((p) => p.test(e.to)),
  );

describe('architecture: imports run down the layers', () => {
  it('sees the import graph (the checks below are not vacuous)', () => {
    expect(edges.length).toBeGreaterThan(300);
    expect(edges).toContainEqual({ from: 'src/modules/sdk/routes.ts', to: 'src/modules/delivery/index.ts' });
    expect(externalEdges).toContainEqual({ from: 'src/db/client.ts', to: 'pg' });
  });

  it('has no import cycle between files', () => {
    expect(show(circular)).toEqual([]);
  });

  it('has no import cycle between module folders', () => {
    const graph = new Map<string, Set<string>>();
    for (const e of edges) {
      const a = moduleOf(e.from);
      const b = moduleOf(e.to);
      if (a && b && a !== b) graph.set(a, (graph.get(a) ?? new Set()).add(b));
    }
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const visit = (node: string, path: string[]) => {
      if (state.get(node) === 'done') return;
      if (state.get(node) === 'open') {
        cycles.push([...path.slice(path.indexOf(node)), node].join(' > '));
        return;
      }
      state.set(node, 'open');
      for (const next of graph.get(node) ?? []) visit(next, [...path, node]);
      state.set(node, 'done');
    };
    for (const node of graph.keys()) visit(node, []);
    expect(cycles).toEqual([]);
  });

  it('never imports workers/ from modules/ or platform/ (workers only schedule)', () => {
    expect(
      show(
        edges.filter(
          (e) => (under('src/modules/')(e) || under('src/platform/')(e)) && into('src/workers/')(e),
        ),
      ),
    ).toEqual([]);
  });

  it('keeps engine/ pure: it imports only engine/', () => {
    expect(show(edges.filter((e) => under('src/engine/')(e) && !into('src/engine/')(e)))).toEqual([]);
  });

  it('keeps platform/ and db/ free of domains and of the composition', () => {
    const upward = into('src/modules/', 'src/workers/', 'src/deps.ts', 'src/app.ts', 'src/main.ts');
    // A table may take its constants (the values a status column allows) from its module's pure engine.
    const constantsOfEngine = (e: Edge) => e.from.startsWith('src/db/schema/') && isModuleEngine(e.to);
    expect(
      show(
        edges.filter(
          (e) => (under('src/platform/')(e) || under('src/db/')(e)) && upward(e) && !constantsOfEngine(e),
        ),
      ),
    ).toEqual([]);
    expect(show(edges.filter((e) => under('src/db/')(e) && into('src/platform/')(e)))).toEqual([]);
  });

  it('lets nothing import main.ts or app.ts, and only the composition import the module list', () => {
    expect(show(edges.filter(into('src/main.ts')))).toEqual([]);
    expect(show(edges.filter((e) => into('src/app.ts')(e) && e.from !== 'src/main.ts'))).toEqual([]);
    const composition = ['src/main.ts', 'src/app.ts'];
    expect(
      show(edges.filter((e) => e.to === 'src/modules/index.ts' && !composition.includes(e.from))),
    ).toEqual([]);
  });

  describe('no hooks for tests or benchmarks in production code', () => {
    /** The names a file exports (declarations and export lists; not `export *`). */
    function exportedNames(file: string): string[] {
      const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
      const names: string[] = [];
      for (const st of source.statements) {
        if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause))
          names.push(...st.exportClause.elements.map((e) => e.name.text));
        const exportedHere =
          ts.canHaveModifiers(st) && ts.getModifiers(st)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
        if (!exportedHere) continue;
        if (ts.isVariableStatement(st))
          for (const d of st.declarationList.declarations)
            if (ts.isIdentifier(d.name)) names.push(d.name.text);
        if (
          (ts.isFunctionDeclaration(st) ||
            ts.isClassDeclaration(st) ||
            ts.isInterfaceDeclaration(st) ||
            ts.isTypeAliasDeclaration(st) ||
            ts.isEnumDeclaration(st)) &&
          st.name
        )
          names.push(st.name.text);
      }
      return names;
    }

    /** Every import of the production files and of the benchmarks: resolved paths, `node_modules/…`, `node:…`. */
    const imports: Edge[] = [];
    /** The production files' exported names. */
    const exported: { file: string; name: string }[] = [];
    beforeAll(async () => {
      const { output } = await cruise(
        ['src', 'bench'],
        {
          tsPreCompilationDeps: true,
          tsConfig: { fileName: 'tsconfig.json' },
          exclude: { path: '\\.test\\.ts$' },
          doNotFollow: { path: 'node_modules' },
        },
        {},
        { tsConfig: { fileName: 'tsconfig.json' } } as never,
      );
      for (const module of (output as ICruiseResult).modules) {
        for (const dep of module.dependencies)
          imports.push({
            from: module.source,
            to: dep.coreModule ? `node:${dep.module.replace(/^node:/, '')}` : dep.resolved,
          });
        if (module.source.startsWith('src/') && module.source.endsWith('.ts'))
          exported.push(...exportedNames(module.source).map((name) => ({ file: module.source, name })));
      }
    }, 120_000);

    /** Production code importing the tests' or the benchmarks' code. */
    const intoTestsOrBenchmarks = (list: Edge[]) =>
      list.filter((e) => e.from.startsWith('src/') && /^(test|bench)\//.test(e.to));
    /** What a benchmark may import: its own files, test helpers, a module's index.ts, packages. */
    const benchmarkMayImport = (to: string) =>
      to.startsWith('bench/') ||
      to.startsWith('test/helpers/') ||
      /^src\/modules\/[^/]+\/index\.ts$/.test(to) ||
      to.includes('node_modules/') ||
      to.startsWith('node:');
    const benchmarksPastSurfaces = (list: Edge[]) =>
      list.filter(
        (e) => e.from.startsWith('bench/') && !e.from.includes('node_modules/') && !benchmarkMayImport(e.to),
      );
    /** Names that say an export exists for tests or benchmarks. */
    const HOOK_NAME = /(ForTests?|ForTesting|ForBench(marks?)?)$|^testConfig$/;
    const hookExports = (list: { file: string; name: string }[]) =>
      list.filter((x) => HOOK_NAME.test(x.name)).map((x) => `${x.file}: ${x.name}`);

    it('sees the imports and exports it checks', () => {
      expect(imports).toContainEqual({ from: 'bench/events-cpu.ts', to: 'test/helpers/in-process.ts' });
      expect(exported).toContainEqual({ file: 'src/deps.ts', name: 'createDeps' });
      expect(exported).toContainEqual({ file: 'src/modules/events/index.ts', name: 'eventsModule' });
    });

    it('never imports test/ or bench/ from src/', () => {
      expect(show(intoTestsOrBenchmarks(imports))).toEqual([]);
    });

    it('lets benchmarks reach the service only through test helpers, module surfaces and HTTP', () => {
      expect(show(benchmarksPastSurfaces(imports))).toEqual([]);
    });

    it('exports nothing named for tests or benchmarks from src/', () => {
      expect(hookExports(exported)).toEqual([]);
    });

    it('catches a planted violation of each of these rules', () => {
      const planted = (from: string, to: string) => [{ from, to }];
      expect(intoTestsOrBenchmarks(planted('src/config.ts', 'test/helpers/config.ts'))).toHaveLength(1);
      expect(intoTestsOrBenchmarks(planted('src/app.ts', 'bench/run.ts'))).toHaveLength(1);
      expect(benchmarksPastSurfaces(planted('bench/run.ts', 'src/modules/events/processor.ts'))).toHaveLength(
        1,
      );
      expect(benchmarksPastSurfaces(planted('bench/run.ts', 'src/deps.ts'))).toHaveLength(1);
      expect(benchmarksPastSurfaces(planted('bench/run.ts', 'src/modules/events/index.ts'))).toHaveLength(0);
      expect(benchmarksPastSurfaces(planted('bench/run.ts', 'node_modules/pg/lib/index.js'))).toHaveLength(0);
      expect(benchmarksPastSurfaces(planted('bench/run.ts', 'node:fs'))).toHaveLength(0);
      const names = (...list: string[]) => list.map((name) => ({ file: 'src/x.ts', name }));
      expect(
        hookExports(names('testConfig', 'resetForTests', 'clockForTesting', 'optionsForBenchmarks')),
      ).toHaveLength(4);
      expect(hookExports(names('createTestApp', 'testimonials', 'contest'))).toHaveLength(0);
    });
  });

  it('lists every module folder in modules/index.ts, each with its manifest', () => {
    const folders = new Set(edges.map((e) => moduleOf(e.from)).filter((m): m is string => m !== null));
    expect([...folders].sort()).toEqual(allModules.map((m) => m.name).sort());
  });
});

describe('architecture: modules as units', () => {
  it('uses every other module through its index.ts, never its other files', () => {
    expect(show(pastSurfaces(edges))).toEqual([]);
  });

  it("never imports a module's own index.ts from inside the module", () => {
    expect(show(ownSurfaceImports(edges))).toEqual([]);
  });

  it("keeps each module's engine/ pure: it imports only itself and src/engine/", () => {
    expect(edges.some((e) => isModuleEngine(e.from))).toBe(true);
    expect(show(impureEngineImports(edges))).toEqual([]);
  });

  it('lets no engine import a package that does I/O', () => {
    expect(show(ioPackageImports(externalEdges))).toEqual([]);
  });

  it('catches a planted violation of each rule', () => {
    const planted = (from: string, to: string) => [{ from, to }];
    expect(
      pastSurfaces(planted('src/modules/ai/generation.ts', 'src/modules/flows/service.ts')),
    ).toHaveLength(1);
    expect(pastSurfaces(planted('src/modules/ai/generation.ts', 'src/modules/flows/index.ts'))).toHaveLength(
      0,
    );
    expect(
      ownSurfaceImports(planted('src/modules/flows/service.ts', 'src/modules/flows/index.ts')),
    ).toHaveLength(1);
    expect(
      impureEngineImports(planted('src/modules/journeys/engine/machine.ts', 'src/modules/journeys/store.ts')),
    ).toHaveLength(1);
    expect(
      impureEngineImports(planted('src/modules/journeys/engine/machine.ts', 'src/db/client.ts')),
    ).toHaveLength(1);
    expect(
      impureEngineImports(planted('src/modules/journeys/engine/machine.ts', 'src/engine/rules.ts')),
    ).toHaveLength(0);
    expect(ioPackageImports(planted('src/modules/experiments/engine/stats.ts', 'node:fs'))).toHaveLength(1);
    expect(ioPackageImports(planted('src/engine/rules.ts', 'pg'))).toHaveLength(1);
    expect(ioPackageImports(planted('src/engine/rules.ts', 'zod'))).toHaveLength(0);
  });
});

/** A module's store file: `src/modules/<m>/store.ts` or a file under `src/modules/<m>/store/`. */
const isStoreFile = (file: string) => /^src\/modules\/[^/]+\/(store\.ts|store\/.+\.ts)$/.test(file);

/** The names src/db/schema exports that are drizzle tables (values: what a query is built on). */
const TABLES = new Set(Object.entries(schema).flatMap(([name, value]) => (is(value, PgTable) ? [name] : [])));

/** The database helpers that run or build statements: only stores import them (types aside). */
const QUERY_HELPERS = new Map<string, 'all' | readonly string[]>([
  ['src/db/statements.ts', 'all'],
  ['src/db/prepared.ts', 'all'],
  ['src/db/pglite-prepared.ts', 'all'],
  ['src/db/text-rows.ts', 'all'],
  ['src/db/client.ts', 'all'],
  // raw.ts also holds row-key helpers (SEP, sortedByKey) that aggregations use.
  ['src/db/raw.ts', ['rawQuery', 'sqlRows']],
]);

/** A relative import of `file` as a path from the repository root (`.js` written for `.ts`). */
const resolveImport = (file: string, specifier: string) =>
  specifier.startsWith('.')
    ? posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\.js$/, '.ts')
    : specifier;

/**
 * How a module file other than a store reaches the database, if it does: a value import of
 * drizzle-orm (its query builders and `sql`), of a database helper that runs statements, or of
 * a table; or a call of `.query(` / `.execute(` (raw SQL on the database or a transaction).
 * `import type` stays allowed: passing an `Executor` along or naming a row type is no query.
 */
function queryViolations(file: string, text: string): string[] {
  if (!file.startsWith('src/modules/') || isStoreFile(file)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const st of source.statements) {
    if (!ts.isImportDeclaration(st) || !ts.isStringLiteral(st.moduleSpecifier)) continue;
    const clause = st.importClause;
    if (!clause || clause.isTypeOnly) continue;
    const target = resolveImport(file, st.moduleSpecifier.text);
    const bindings = clause.namedBindings;
    const named =
      bindings && ts.isNamedImports(bindings)
        ? bindings.elements.filter((e) => !e.isTypeOnly).map((e) => (e.propertyName ?? e.name).text)
        : [];
    const wholeModule =
      clause.name !== undefined || (bindings !== undefined && ts.isNamespaceImport(bindings));
    const values = wholeModule ? ['*', ...named] : named;
    if (values.length === 0) continue;
    const helper = QUERY_HELPERS.get(target);
    const offending =
      target === 'drizzle-orm' || target.startsWith('drizzle-orm/')
        ? values
        : helper === 'all'
          ? values
          : helper
            ? values.filter((v) => v === '*' || helper.includes(v))
            : target.startsWith('src/db/schema/')
              ? values.filter((v) => v === '*' || TABLES.has(v))
              : [];
    if (offending.length > 0) found.push(`${file}: imports ${offending.join(', ')} from ${target}`);
  }
  const visit = (node: ts.Node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      ['query', 'execute'].includes(node.expression.name.text)
    ) {
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}: calls ${node.expression.getText(source)}(…)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The tables no owner's text names (a store or platform file): declared, but queried by no code. */
const unusedTables = (tables: readonly string[], ownerTexts: readonly string[]) =>
  tables.filter((table) => !ownerTexts.some((text) => new RegExp(`\\b${table}\\b`).test(text)));

/** Every production file of the modules (tests aside). */
const moduleFiles = (readdirSync('src/modules', { recursive: true }) as string[])
  .map((f) => `src/modules/${f.split('\\').join('/')}`)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('architecture: stores own the queries', () => {
  it('sees the files and tables it checks', () => {
    expect(moduleFiles).toContain('src/modules/events/processor.ts');
    expect(moduleFiles.filter(isStoreFile)).toContain('src/modules/events/store.ts');
    expect(moduleFiles.filter(isStoreFile)).toContain('src/modules/journeys/store/timers.ts');
    expect(TABLES.has('eventBatches')).toBe(true);
    expect(TABLES.has('FLOW_STATUSES')).toBe(false);
  });

  it('lets only store files build or run queries (value imports of drizzle-orm, db helpers, tables; .query/.execute)', () => {
    expect(moduleFiles.flatMap((f) => queryViolations(f, readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('uses every drizzle table in a store (or in platform/, which owns its own tables)', () => {
    const owners = [
      ...moduleFiles.filter(isStoreFile),
      ...(readdirSync('src/platform', { recursive: true }) as string[])
        .map((f) => `src/platform/${f}`)
        .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts')),
    ].map((f) => readFileSync(f, 'utf8'));
    expect(unusedTables([...TABLES], owners)).toEqual([]);
  });

  it('catches a planted violation of each rule', () => {
    const service = 'src/modules/ai/assistant.ts';
    const store = 'src/modules/ai/store/conversations.ts';
    expect(queryViolations(service, "import { and, eq, sql } from 'drizzle-orm';")).toHaveLength(1);
    expect(queryViolations(service, "import { type SQL, sql } from 'drizzle-orm';")).toHaveLength(1);
    expect(queryViolations(service, "import type { SQL } from 'drizzle-orm';")).toHaveLength(0);
    expect(queryViolations(service, "import { type SQL } from 'drizzle-orm';")).toHaveLength(0);
    expect(queryViolations(service, "import { rawQuery } from '../../db/raw.js';")).toHaveLength(1);
    expect(queryViolations(service, "import { sortedByKey } from '../../db/raw.js';")).toHaveLength(0);
    expect(queryViolations(service, "import { runPrepared } from '../../db/statements.js';")).toHaveLength(1);
    expect(queryViolations(service, "import { preparedQuery } from '../../db/prepared.js';")).toHaveLength(1);
    expect(
      queryViolations(service, "import { aiConversations } from '../../db/schema/index.js';"),
    ).toHaveLength(1);
    expect(
      queryViolations(
        service,
        "import { type AiProviderName, AI_PROVIDERS } from '../../db/schema/index.js';",
      ),
    ).toHaveLength(0);
    expect(queryViolations(service, "import type { Executor } from '../../db/client.js';")).toHaveLength(0);
    expect(queryViolations(service, "import { openDatabase } from '../../db/client.js';")).toHaveLength(1);
    expect(queryViolations(service, "await deps.database.query('select 1');")).toHaveLength(1);
    expect(queryViolations(service, 'await ctx.db.execute(statement);')).toHaveLength(1);
    expect(queryViolations(service, "app.delete('/x', handler); cache.delete(key);")).toHaveLength(0);
    expect(queryViolations(store, "import { and, eq, sql } from 'drizzle-orm';")).toHaveLength(0);
    expect(queryViolations(store, "await deps.database.query('select 1');")).toHaveLength(0);
    expect(queryViolations('src/modules/events/store.ts', "import { sql } from 'drizzle-orm';")).toHaveLength(
      0,
    );
    expect(
      queryViolations('src/modules/events/stores.ts', "import { sql } from 'drizzle-orm';"),
    ).toHaveLength(1);
    const storeText = "import { eventBatches } from '../../db/schema/index.js';";
    expect(unusedTables(['eventBatches', 'eventDeadLetters'], [storeText])).toEqual(['eventDeadLetters']);
    expect(unusedTables(['eventBatches'], ['const eventBatchesSeen = 0;'])).toEqual(['eventBatches']);
  });
});
