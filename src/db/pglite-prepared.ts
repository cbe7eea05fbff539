import {
  messages as backendMessages,
  type PGlite,
  type Transaction as PGliteTransaction,
  parse,
  protocol,
  types,
} from '@electric-sql/pglite';
import { isCachedPlanInvalid } from './errors.js';

const { serialize } = protocol;
const SYNC = serialize.sync();
const EXECUTE = serialize.execute({});
const DESCRIBE_PORTAL = serialize.describe({ type: 'P' });
/** Each message is not synced on its own: `execute` syncs once after the statement, as PGlite.query does. */
const NO_SYNC = { syncToFs: false };

const { BYTEA } = types;

interface Column {
  name: string;
  dataTypeID: number;
}

interface Statement {
  name: string;
  /** Parameter type oids, for PGlite's serializers (json, arrays, dates). */
  paramTypes: number[];
  /**
   * The result columns when one of them is bytea: inside a transaction such a statement asks for
   * its bytea columns in binary format and its rows are decoded here (`binaryRows`).
   */
  byteaColumns?: Column[];
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
    const rowDescription = messages.find((m) => m.name === 'rowDescription') as
      | { fields: Column[] }
      | undefined;
    const statement: Statement = { name, paramTypes: description?.dataTypeIDs ?? [] };
    if (rowDescription?.fields.some((f) => f.dataTypeID === BYTEA))
      statement.byteaColumns = rowDescription.fields.map((f) => ({ name: f.name, dataTypeID: f.dataTypeID }));
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
    if (statement.byteaColumns && inTransaction)
      return executeBinary<T>(statement.name, values, statement.byteaColumns);
    const messages = await client.execProtocolStream(
      Buffer.concat([bindMessage(statement.name, values), DESCRIBE_PORTAL, EXECUTE, SYNC]),
      NO_SYNC,
    );
    // As PGlite.query: the data directory is synced after a statement outside a transaction.
    if (!inTransaction) await client.syncToFs();
    return (parse.parseResults(messages, client.parsers)[0]?.rows ?? []) as T[];
  }

  /**
   * A statement that returns bytea, run inside a transaction: its bytea columns come back in
   * binary format, as the bytes themselves. In text format they arrive as hex (twice the size),
   * which PGlite's protocol parser decodes to a string and its bytea parser back to bytes, one
   * byte at a time: for the events log read back, the largest part of its cost. PGlite's parser
   * would decode binary fields as UTF-8 text, so the raw response is read here. Raw output skips
   * PGlite's handling of notifications, which PostgreSQL sends only between transactions; the
   * notices PGlite drops without a listener are dropped here too.
   */
  async function executeBinary<T>(
    name: string,
    values: readonly (string | Uint8Array | null)[],
    columns: readonly Column[],
  ): Promise<T[]> {
    const formats = columns.map((c) => (c.dataTypeID === BYTEA ? 1 : 0));
    const chunks: Buffer[] = [];
    await client.execProtocolRawStream(Buffer.concat([bindMessage(name, values, formats), EXECUTE, SYNC]), {
      ...NO_SYNC,
      // A view of PGlite's memory, valid only during the callback.
      onRawData: (bytes) => chunks.push(Buffer.from(bytes)),
    });
    return binaryRows<T>(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks), columns, client.parsers);
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
 * in binary format, results in text format unless `resultFormats` (one code per column, 0 text,
 * 1 binary) says otherwise. PGlite's own serializer measures and copies a string
 * parameter in JavaScript, character by character and through growing buffers: ~190 µs for an
 * events request's 16 kB body, against ~5 µs here.
 */
export function bindMessage(
  statement: string,
  values: readonly (string | Uint8Array | null)[],
  resultFormats: readonly number[] = [],
): Buffer {
  let size =
    4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 * values.length + 2 + 2 + 2 * resultFormats.length;
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
  at = message.writeInt16BE(resultFormats.length, at); // none: all text
  for (const format of resultFormats) at = message.writeInt16BE(format, at);
  return message;
}

/**
 * The rows of a raw response to Bind/Execute/Sync whose `columns` were asked in binary format
 * where bytea (as bytes, views of `response`) and in text format otherwise (parsed by `parsers`,
 * as PGlite's `parseResults` does). An error response is thrown as PGlite throws it.
 */
export function binaryRows<T>(
  response: Buffer,
  columns: readonly Column[],
  parsers: Record<number, (text: string, typeId: number) => unknown>,
): T[] {
  const rows: T[] = [];
  for (let at = 0; at < response.length; ) {
    const code = response[at]!;
    const end = at + 1 + response.readInt32BE(at + 1);
    if (code === 0x44) {
      // DataRow: a field count, then each field's length (-1: null) and bytes.
      let p = at + 5 + 2;
      const row: Record<string, unknown> = {};
      for (const { name, dataTypeID } of columns) {
        const length = response.readInt32BE(p);
        p += 4;
        if (length === -1) row[name] = null;
        else if (dataTypeID === BYTEA) row[name] = response.subarray(p, p + length);
        else {
          const text = response.toString('utf8', p, p + length);
          const parser = parsers[dataTypeID];
          row[name] = parser ? parser(text, dataTypeID) : text;
        }
        if (length > 0) p += length;
      }
      rows.push(row as T);
    } else if (code === 0x45) throw databaseErrorIn(response);
    at = end;
  }
  return rows;
}

/**
 * bytea in text format (`\\x` and hex digits) as bytes: PGlite's own parser builds the array
 * one `parseInt` at a time. For `PGlite.create`'s `parsers` (`BYTEA_PARSERS`).
 */
export const byteaFromHex = (text: string): Buffer => Buffer.from(text.slice(2), 'hex');
export const BYTEA_PARSERS = { [BYTEA]: byteaFromHex };

/** The error of a raw response, as PGlite's own parser reads it. */
function databaseErrorIn(response: Buffer): Error {
  let error: Error | undefined;
  new protocol.Parser().parse(response, (message) => {
    if (message instanceof backendMessages.DatabaseError) error ??= message;
  });
  return error ?? new Error('PGlite: an error response that could not be read');
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
