import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './helpers/server-process.js';

/**
 * `npm start` runs the compiled service: `prestart` compiles src/ to dist/ (scripts/build-server.mjs,
 * when a source changed) and `node dist/main.js` serves with no TypeScript loader in the process.
 */

const build = (...args: string[]) =>
  execFileSync(process.execPath, ['scripts/build-server.mjs', ...args], { encoding: 'utf8' });

describe('the compiled service (dist/main.js)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'guidance-dist-'));
  const moduleLog = join(dataDir, 'modules.log');
  let server: ServerProcess;

  beforeAll(async () => {
    build('--if-stale');
    // Records every module the process resolves (a resolve hook, registered before main runs).
    const hooks = `import { appendFileSync } from 'node:fs';
      export async function resolve(specifier, context, next) {
        const result = await next(specifier, context);
        appendFileSync(${JSON.stringify(moduleLog)}, result.url + '\\n');
        return result;
      }`;
    const register = `import { register } from 'node:module';
      register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hooks)}`)});`;
    // Embedded, on an empty data directory: the migrations are read from dist/db/migrations.
    server = await startServer(
      { DATABASE_URL: '', REDIS_URL: '', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      { entry: 'dist', nodeArgs: ['--import', `data:text/javascript,${encodeURIComponent(register)}`] },
    );
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const resolved = () => readFileSync(moduleLog, 'utf8').trim().split('\n');

  it('migrates a new database and serves, loading JavaScript only from dist/', async () => {
    const res = await fetch(`${server.url}/api/health`);
    expect(res.status).toBe(200);
    const { version } = JSON.parse(readFileSync('package.json', 'utf8'));
    expect((await res.json()).data).toMatchObject({ version, checks: { database: 'ok' } });
    const ours = resolved().filter((url) => url.startsWith('file:') && !url.includes('/node_modules/'));
    expect(ours.some((url) => url.endsWith('/dist/main.js'))).toBe(true);
    expect(ours.filter((url) => !url.includes('/dist/'))).toEqual([]);
    expect(resolved().filter((url) => /\/node_modules\/(tsx|esbuild)\//.test(url))).toEqual([]);
  });

  it('finds the browser SDK and the dashboard builds from dist/', async () => {
    const sdk = await fetch(`${server.url}/sdk/guidance.js`);
    expect(sdk.status).toBe(200);
    expect(sdk.headers.get('content-type')).toMatch(/javascript/);
    const dashboard = await fetch(`${server.url}/`);
    expect(dashboard.status).toBe(200);
    expect(dashboard.headers.get('content-type')).toMatch(/text\/html/);
  });

  it('has not loaded the AI SDK: no AI request was answered', () => {
    const urls = resolved();
    expect(urls.some((url) => url.includes('/node_modules/fastify/'))).toBe(true);
    expect(urls.filter((url) => /\/node_modules\/(ai|@ai-sdk\/[^/]+)\//.test(url))).toEqual([]);
  });
});

describe('scripts/build-server.mjs --if-stale', () => {
  let root: string;
  const buildFixture = () =>
    build('--if-stale', '--root', root).includes('server built') ? 'built' : 'skipped';
  const write = (path: string, text: string) => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'guidance-build-'));
    write('package.json', '{ "type": "module" }');
    write('tsconfig.json', '{ "compilerOptions": { "target": "ES2022", "verbatimModuleSyntax": true } }');
    write('src/main.ts', "import { greet } from './lib/greet.js';\nconsole.log(greet('you'));\n");
    write('src/lib/greet.ts', "export const greet = (name: string): string => 'hello ' + name;\n");
    write('src/lib/greet.test.ts', "throw new Error('tests are not built');\n");
    write('src/db/migrations/0001_init.sql', 'create table t (id int);\n');
    write('src/README.md', '# not shipped\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('compiles each source beside its directory layout, copies the SQL, leaves tests and docs out', () => {
    expect(buildFixture()).toBe('built');
    const run = execFileSync(process.execPath, [join(root, 'dist/main.js')], { encoding: 'utf8' });
    expect(run).toBe('hello you\n');
    expect(readFileSync(join(root, 'dist/db/migrations/0001_init.sql'), 'utf8')).toBe(
      'create table t (id int);\n',
    );
    expect(existsSync(join(root, 'dist/lib/greet.test.js'))).toBe(false);
    expect(existsSync(join(root, 'dist/README.md'))).toBe(false);
    expect(readdirSync(root).sort()).toEqual(['dist', 'package.json', 'src', 'tsconfig.json']);
  });

  it('skips an unchanged tree and rebuilds on an edit, a touch, a new or a deleted file', () => {
    expect(buildFixture()).toBe('skipped');
    write('src/lib/greet.ts', "export const greet = (name: string): string => 'hi ' + name;\n");
    expect(buildFixture()).toBe('built');
    expect(execFileSync(process.execPath, [join(root, 'dist/main.js')], { encoding: 'utf8' })).toBe(
      'hi you\n',
    );
    expect(buildFixture()).toBe('skipped');

    const later = new Date(Date.now() + 60_000);
    utimesSync(join(root, 'src/db/migrations/0001_init.sql'), later, later);
    expect(buildFixture()).toBe('built');

    write('src/extra.ts', 'export const extra = 1;\n');
    expect(buildFixture()).toBe('built');
    expect(existsSync(join(root, 'dist/extra.js'))).toBe(true);
    rmSync(join(root, 'src/extra.ts'));
    expect(buildFixture()).toBe('built');
    expect(existsSync(join(root, 'dist/extra.js'))).toBe(false);

    write('tsconfig.json', '{ "compilerOptions": { "target": "ES2022" } }');
    expect(buildFixture()).toBe('built');
  });

  it('does not rebuild when only a test changes', () => {
    expect(buildFixture()).toBe('skipped');
    write('src/lib/greet.test.ts', "throw new Error('still not built');\n");
    expect(buildFixture()).toBe('skipped');
  });
});
