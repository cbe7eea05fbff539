import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { openDatabase } from './db/client.js';
import { migrate } from './db/migrate.js';
import { createDeps } from './deps.js';
import { allModules } from './modules/index.js';
import { startWorkers, type WorkerHandle } from './workers/runner.js';

/** Process entry: config → database → migrations → HTTP and workers; SIGTERM/SIGINT drain and exit 0. */
const config = loadConfig();
const database = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: `${config.dataDir}/pg` });
const deps = createDeps(config, database, { modules: allModules });
const { log } = deps;
for (const warning of config.warnings) log.warn(warning);

const applied = await migrate(database).catch(async (err: Error) => {
  // An edited or missing applied migration, or a failing new one: refuse to serve, say which.
  log.fatal(err.message);
  await database.close();
  process.exit(1);
});
if (applied.length) log.info({ applied }, 'migrations applied');
log.info({ database: database.kind, redis: Boolean(config.redisUrl) }, 'database ready');

const app = config.role === 'worker' ? null : await buildApp(deps);
let background: WorkerHandle | null = null;
if (config.role !== 'web') {
  background = startWorkers(deps);
  deps.wakeWorker = background.wake;
}
if (app) {
  const address = await app.listen({ port: config.port, host: config.host });
  log.info(`listening on ${address} (API docs at ${address}/docs)`);
}

let shuttingDown = false;
async function shutdown(signal: string): Promise<void> {
  if (shuttingDown) return;
  shuttingDown = true;
  log.info({ signal }, 'shutting down: draining in-flight requests');
  const force = setTimeout(() => {
    log.error('shutdown took longer than 30 s; exiting');
    process.exit(1);
  }, 30_000);
  force.unref();
  try {
    await app?.close();
    await background?.stop();
    await deps.close();
    await database.close();
    log.info('stopped');
    process.exit(0);
  } catch (err) {
    log.error({ err }, 'shutdown failed');
    process.exit(1);
  }
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
