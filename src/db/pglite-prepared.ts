import { type PGlite, type Transaction as PGliteTransaction, parse, protocol } from '@electric-sql/pglite';
import { isCachedPlanInvalid } from './errors.js';

const { serialize } = protocol;
const SYNC = serialize.sync();
const EXECUTE = serialize.execute({});
const DESCRIBE_PORTAL = serialize.describe({ type: 'P' });
/** Each message is not synced on its own: `execute` syncs once after the statement, as PGlite.query does. */
const NO_SYNC = { syncToFs: false };

interface Statement {
  name: string;
  /** Parameter type oids, for PGlite's serializers (json, arrays, dates). */
  paramTypes: number[];
}

/**
 * Named prepared statements on PGlite, for the hot path's fixed statements. `PGlite.query` sends
 * every statement as an unnamed one, parsed and planned again each time in six protocol round
 * trips; on the embedded database that runs on the server's own thread, this costs more than
 * the statement itself (the session lookup: ~550 µs unnamed, ~150 µs prepared). Here a statement
 * is parsed once and then bound and executed in one round trip.
 *
 * `query` runs under PGlite's own two locks, in the order `PGlite.query` takes them, so a statement
 * never lands inside another caller's open transaction, and syncs the data directory after it as
 * `PGlite.query` does; `inTransaction` is for the owner of the open transaction (it holds the
 * transaction lock already).
 */
export function pglitePrepared(client: PGlite) {
  const statements = new Map<string, Statement>();
  let prepared = 0;

  async function prepare(text: string): Promise<Statement> {
    const name = `hot_${++prepared}`;
    // Parse and describe in one message: a syntax error is reported and the Sync ends the attempt.
    const messages = await client.execProtocolStream(
      Buffer.concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), SYNC]),
      NO_SYNC,
    );
    const description = messages.find((m) => m.name === 'parameterDescription') as
      | { dataTypeIDs: number[] }
      | undefined;
    const statement = { name, paramTypes: description?.dataTypeIDs ?? [] };
    statements.set(text, statement);
    return statement;
  }

  async function execute<T>(
    statement: Statement,
    params: readonly unknown[],
    inTransaction: boolean,
  ): Promise<T[]> {
    const values = params.map((value, i) => {
      if (value === null || value === undefined) return null;
      if (value instanceof Uint8Array) return value;
      const serializer = client.serializers[statement.paramTypes[i]!];
      return serializer ? serializer(value) : String(value);
    });
    const messages = await client.execProtocolStream(
      Buffer.concat([bindMessage(statement.name, values), DESCRIBE_PORTAL, EXECUTE, SYNC]),
      NO_SYNC,
    );
    // As PGlite.query: the data directory is synced after a statement outside a transaction.
    if (!inTransaction) await client.syncToFs();
    return (parse.parseResults(messages, client.parsers)[0]?.rows ?? []) as T[];
  }

  async function run<T>(text: string, params: readonly unknown[], inTransaction: boolean): Promise<T[]> {
    const statement = statements.get(text) ?? (await prepare(text));
    try {
      return await execute<T>(statement, params, inTransaction);
    } catch (err) {
      // As PGlite.query's errors do, the error names the statement.
      if (err && typeof err === 'object' && !('query' in err)) Object.assign(err, { query: text });
      if (!isCachedPlanInvalid(err)) throw err;
      // A column it returns changed type: the next use prepares it afresh.
      statements.delete(text);
      // In a transaction the error has aborted it: the caller's retry runs the new statement.
      if (inTransaction) throw err;
      await client.execProtocolStream(serialize.query(`deallocate ${statement.name}`), NO_SYNC);
      return run(text, params, false);
    }
  }

  return {
    /** Outside any transaction: waits for an open one to end, as PGlite.query does. */
    async query<T>(text: string, params: readonly unknown[]): Promise<T[]> {
      await client._checkReady();
      return client._runExclusiveTransaction(() =>
        client._runExclusiveQuery(() => run<T>(text, params, false)),
      );
    },
    /** Inside the caller's own open transaction (from PGlite.transaction's callback). */
    inTransaction<T>(text: string, params: readonly unknown[]): Promise<T[]> {
      return client._runExclusiveQuery(() => run<T>(text, params, true));
    },
  };
}

/**
 * The protocol's Bind message, written in one buffer: strings in text format, byte arrays (bytea)
 * in binary format, results in text format. PGlite's own serializer measures and copies a string
 * parameter in JavaScript, character by character and through growing buffers: ~190 µs for an
 * events request's 16 kB body, against ~5 µs here.
 */
export function bindMessage(statement: string, values: readonly (string | Uint8Array | null)[]): Buffer {
  let size = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 * values.length + 2 + 2;
  const lengths = values.map((v) =>
    v === null ? -1 : typeof v === 'string' ? Buffer.byteLength(v) : v.byteLength,
  );
  for (const length of lengths) size += 4 + Math.max(length, 0);
  const message = Buffer.allocUnsafe(1 + size);
  let at = message.writeUInt8(0x42, 0); // 'B'
  at = message.writeInt32BE(size, at);
  at = message.writeUInt8(0, at); // unnamed portal
  at += message.write(statement, at);
  at = message.writeUInt8(0, at);
  // one format code per parameter (0 text, 1 binary), as PGlite's own serializer writes them
  at = message.writeUInt16BE(values.length, at);
  for (const value of values) at = message.writeInt16BE(value instanceof Uint8Array ? 1 : 0, at);
  at = message.writeUInt16BE(values.length, at);
  values.forEach((value, i) => {
    at = message.writeInt32BE(lengths[i]!, at);
    if (typeof value === 'string') at += message.write(value, at);
    else if (value !== null)
      at += Buffer.from(value.buffer, value.byteOffset, value.byteLength).copy(message, at);
  });
  message.writeInt16BE(0, at); // no result format codes: all text
  return message;
}

type Runner = <T>(text: string, params: readonly unknown[]) => Promise<T[]>;

/** PGlite clients (the instance, and each open transaction of it) and how they run a prepared statement. */
const pgliteRunners = new WeakMap<object, Runner>();

/**
 * Lets `preparedQuery` run named statements on this PGlite instance, outside and inside its
 * transactions: each transaction PGlite opens (drizzle's included) is registered with its runner.
 */
export function enablePglitePrepared(client: PGlite): void {
  if (pgliteRunners.has(client)) return;
  const runner = pglitePrepared(client);
  pgliteRunners.set(client, runner.query);
  const transaction = client.transaction.bind(client);
  client.transaction = <T>(callback: (tx: PGliteTransaction) => Promise<T>) =>
    transaction((tx) => {
      pgliteRunners.set(tx, (text, params) => {
        // As tx.query: a statement through a transaction that has ended is refused.
        if (tx.closed) throw new Error('Transaction is closed');
        return runner.inTransaction(text, params);
      });
      return callback(tx);
    });
}

/** The prepared-statement runner of a PGlite client (the instance, or one of its open transactions). */
export const pgliteRunnerOf = (client: object): Runner | undefined => pgliteRunners.get(client);
