import { setImmediate as nextTurn } from 'node:timers/promises';
import type { PGlite } from '@electric-sql/pglite';

/**
 * Makes every statement on this PGlite instance end with a turn of the event loop.
 *
 * PGlite runs each statement synchronously on this thread and answers through promises that
 * settle without any I/O, so a transaction of many statements, or a group commit followed by its
 * processing, runs as one long turn of the event loop. Since libuv 1.45 (Node.js 20) a listening
 * socket accepts one new connection per turn: fifty connections opened at once waited fifty such
 * turns with the events path busy (measured: bench/RESULTS.md, "Where the embedded tail came
 * from"). Ending each statement with `setImmediate` lets the loop
 * accept, read and answer between statements; the statements and their order stay the same.
 */
export function yieldAfterStatements(client: PGlite): void {
  const execProtocolStream = client.execProtocolStream.bind(client);
  client.execProtocolStream = async (...args: Parameters<PGlite['execProtocolStream']>) => {
    const messages = await execProtocolStream(...args);
    await nextTurn();
    return messages;
  };
  // The prepared statements that read bytea in binary format (pglite-prepared.ts) run through this.
  const execProtocolRawStream = client.execProtocolRawStream.bind(client);
  client.execProtocolRawStream = async (...args: Parameters<PGlite['execProtocolRawStream']>) => {
    await execProtocolRawStream(...args);
    await nextTurn();
  };
}
