import { readdirSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';

/**
 * Which of the service's test files touch no database (the `unit` project of `npm test`): pure
 * rules, codecs, the HTTP edge on a bare Fastify, the SDK's node tests. They run once, with no
 * global setup; the others (the `service` project) are what a PostgreSQL run repeats
 * (`npm test -- --project service`). A file is database-bound when its text mentions one of
 * `DATABASE_BOUND` (a database, Redis, a spawned process) or it imports a test helper that is
 * (test/helpers/app.ts and every helper that imports it, directly or not).
 */
const ROOTS = ['src', 'test', 'packages/sdk/src'];
const HELPERS = 'test/helpers';
const DATABASE_BOUND =
  /DATABASE_URL|REDIS_URL|ioredis|child_process|db\/client|@electric-sql\/pglite|\bpostgres\b|createDatabase/;

const filesUnder = (root: string, suffix: string) =>
  (readdirSync(root, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith(suffix) && !f.includes('node_modules'))
    .map((f) => join(root, f).replaceAll('\\', '/'));

/** The helpers' names (without `.ts`) that reach a database, closed over their imports. */
function databaseBoundHelpers(): Set<string> {
  const helpers = new Map(
    filesUnder(HELPERS, '.ts').map((f) => [basename(f, '.ts'), readFileSync(f, 'utf8')] as const),
  );
  const bound = new Set([...helpers].filter(([, text]) => DATABASE_BOUND.test(text)).map(([name]) => name));
  for (let grew = true; grew; ) {
    grew = false;
    for (const [name, text] of helpers) {
      if (!bound.has(name) && importsAny(text, bound)) {
        bound.add(name);
        grew = true;
      }
    }
  }
  return bound;
}

const importsAny = (text: string, helpers: Set<string>) =>
  [...text.matchAll(/from '[./]*(?:test\/)?(?:helpers\/)?([\w-]+)\.js'/g)].some((m) => helpers.has(m[1]!));

export function databaseFreeSuites(): string[] {
  const bound = databaseBoundHelpers();
  return ROOTS.flatMap((root) => filesUnder(root, '.test.ts'))
    .filter((file) => {
      const text = readFileSync(file, 'utf8');
      return !DATABASE_BOUND.test(text) && !importsAny(text, bound);
    })
    .sort();
}

/**
 * Which database-bound suites need a fresh module graph of their own (the `service-isolated`
 * project): those that replace a module with `vi.mock`, which cannot take effect in a worker
 * that has already loaded the module for an earlier file. The rest share one module graph per
 * worker (`isolate: false`), which saves loading the app's modules again for each file.
 */
export function isolatedSuites(): string[] {
  const unit = new Set(databaseFreeSuites());
  return ROOTS.flatMap((root) => filesUnder(root, '.test.ts'))
    .filter((file) => !unit.has(file) && /\bvi\.mock\(/.test(readFileSync(file, 'utf8')))
    .sort();
}
