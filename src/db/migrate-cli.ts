import { loadConfig } from '../config.js';
import { openDatabase } from './client.js';
import { migrate } from './migrate.js';

const config = loadConfig();
const handle = await openDatabase({ databaseUrl: config.databaseUrl, dataDir: `${config.dataDir}/pg` });
const applied = await migrate(handle).catch(async (err: Error) => {
  console.error(err.message);
  await handle.close();
  process.exit(1);
});
console.log(applied.length ? `applied: ${applied.join(', ')}` : 'database is up to date');
await handle.close();
