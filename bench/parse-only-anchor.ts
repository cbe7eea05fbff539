import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { freePort } from '../test/helpers/server-process.js';
import { cpuSeconds } from './process-cpu.js';

/**
 * The side-by-side harness's parse-only events server (`side-by-side/s_events.js`, zod mode:
 * Fastify, JSON.parse and zod validation of a 50-event body, answered 202 without storing),
 * driven by `wrk -t1 -c50` in its own process, as a yardstick for CPU figures measured in-process:
 * its CPU per event (ticks of its process over events answered) on this machine, in this run.
 * The processing goal was set in absolute µs on a machine where this server ran at
 * 483k–546k events/s on one core; dividing by it makes figures of different machines comparable.
 */
export interface ParseOnlyAnchor {
  /** µs of the server's CPU per event answered over a `seconds`-long wrk run (after a 1 s warm-up). */
  usPerEvent(seconds?: number): Promise<{ usPerEvent: number; eventsPerSecond: number }>;
  close(): void;
}

const HARNESS = fileURLToPath(new URL('./side-by-side/', import.meta.url));
const EVENTS_PER_REQUEST = 50;
const run = promisify(execFile);

/** Starts the anchor, or says why it cannot run here (no wrk). */
export async function startParseOnlyAnchor(): Promise<ParseOnlyAnchor | string> {
  try {
    await run('wrk', ['--version']).catch((err: { stdout?: string }) => {
      // wrk --version exits 1 after printing its version.
      if (!err.stdout?.includes('wrk')) throw err;
    });
  } catch {
    return 'wrk not found (apt-get install wrk): no parse-only yardstick';
  }
  const port = await freePort();
  const server = spawn(process.execPath, ['--import', './project-bench/port-shim.mjs', 's_events.js'], {
    cwd: HARNESS,
    env: { ...process.env, BASELINE_PORT: String(port), MODE: 'zod' },
    stdio: 'pipe',
  });
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (d: Buffer) => d.toString().includes('ready') && resolve());
    server.on('exit', (code) => reject(new Error(`parse-only server exited (${code})`)));
  });
  const url = `http://127.0.0.1:${port}/api/sdk/events`;
  const wrk = async (seconds: number) =>
    (await run('wrk', ['-t1', '-c50', `-d${seconds}s`, '-s', 'post.lua', url], { cwd: HARNESS })).stdout;
  return {
    async usPerEvent(seconds = 5) {
      await wrk(1);
      const before = cpuSeconds(server.pid!);
      const out = await wrk(seconds);
      const cpu = cpuSeconds(server.pid!) - before;
      const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);
      const events = requests * EVENTS_PER_REQUEST;
      return { usPerEvent: (cpu * 1e6) / events, eventsPerSecond: events / seconds };
    },
    close: () => server.kill(),
  };
}
