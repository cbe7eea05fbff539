import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';

/** One request a receiver got. */
export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/**
 * A webhook receiver on loopback (a tiny node:http server): it records every request and answers
 * with what the test scripts (`respond`), by default 200. `failTimes(n, status)` makes the next
 * n requests answer `status`.
 */
export interface WebhookReceiver {
  url: string;
  received: ReceivedWebhook[];
  respond(
    fn: (
      req: ReceivedWebhook,
      index: number,
    ) => { status: number; body?: string; headers?: Record<string, string> },
  ): void;
  failTimes(n: number, status?: number): void;
  /** Holds every answer until `release` (a receiver that hangs). */
  hang(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  let script: Parameters<WebhookReceiver['respond']>[0] = () => ({ status: 200, body: 'ok' });
  let hanging: (() => void)[] | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const entry = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(entry);
      const answer = () => {
        const { status, body = '', headers = {} } = script(entry, received.length - 1);
        res.writeHead(status, headers);
        res.end(body);
      };
      if (hanging) hanging.push(answer);
      else answer();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    respond(fn) {
      script = fn;
    },
    failTimes(n, status = 500) {
      let left = n;
      script = () => (left-- > 0 ? { status, body: 'nope' } : { status: 200, body: 'ok' });
    },
    hang() {
      hanging = [];
    },
    release() {
      const waiting = hanging ?? [];
      hanging = null;
      for (const answer of waiting) answer();
    },
    async close() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close').catch(() => {});
    },
  };
}
