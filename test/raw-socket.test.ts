import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publicRoute } from '../src/platform/auth/guard.js';
import { createTestApp, type TestApp } from './helpers/app.js';

/**
 * The server on a real socket (127.0.0.1, an ephemeral port), spoken to byte by byte: what
 * inject() cannot show — framing errors, slow clients, oversized headers, `Expect` — must
 * still answer in the error envelope, and a slow client must not hold a connection.
 */

const REQUEST_TIMEOUT_MS = 1_000;
const HEADERS_TIMEOUT_MS = 500;
const KEEP_ALIVE_TIMEOUT_MS = 400;

let t: TestApp;
let port: number;

beforeAll(async () => {
  t = await createTestApp({
    config: {
      requestTimeoutMs: REQUEST_TIMEOUT_MS,
      headersTimeoutMs: HEADERS_TIMEOUT_MS,
      keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS,
    },
  });
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
});
afterAll(() => t.close());

interface Exchange {
  /** Everything the server sent, as latin1 text. */
  raw: string;
  /** Milliseconds from the first write until the server closed the connection (null: still open). */
  closedAfterMs: number | null;
}

/**
 * Writes `parts` (pausing `pauseMs` between them), then reads until the server closes the
 * connection or `waitMs` passes. The client never closes first.
 */
function exchange(parts: (string | Buffer)[], opts: { pauseMs?: number; waitMs?: number } = {}) {
  const { pauseMs = 0, waitMs = 5_000 } = opts;
  return new Promise<Exchange>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect({ host: '127.0.0.1', port });
    const started = Date.now();
    let settled = false;
    const finish = (closed: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        raw: Buffer.concat(chunks).toString('latin1'),
        closedAfterMs: closed ? Date.now() - started : null,
      });
    };
    const timer = setTimeout(() => finish(false), waitMs);
    socket.on('data', (d) => chunks.push(d));
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // A reset after the answer was read is a close; before it, a failure of the test.
      if (chunks.length) finish(true);
      else if (!settled) {
        settled = true;
        clearTimeout(timer);
        reject(err);
      }
    });
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && pauseMs) await new Promise((r) => setTimeout(r, pauseMs));
        if (socket.destroyed) return;
        socket.write(part);
      }
    });
  });
}

interface Parsed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** The first HTTP response in `raw`. */
function firstResponse(raw: string): Parsed {
  const end = raw.indexOf('\r\n\r\n');
  expect(end, `no complete response in ${JSON.stringify(raw.slice(0, 200))}`).toBeGreaterThan(0);
  const [statusLine, ...lines] = raw.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  return { status: Number(statusLine!.split(' ')[1]), headers, body: raw.slice(end + 4, end + 4 + length) };
}

/** Asserts the error envelope with this status (and code, when given). */
function expectEnvelope(res: Parsed, status: number, code?: string) {
  expect(res.status, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const { error } = JSON.parse(res.body);
  expect(error).toMatchObject({
    statusCode: status,
    code: code ?? expect.any(String),
    category: expect.any(String),
    message: expect.any(String),
  });
  return error as { code: string; details?: unknown };
}

const request = (lines: string[], body = '') => `${lines.join('\r\n')}\r\n\r\n${body}`;

describe('timeouts', () => {
  it('answers 408 and closes when the body stops short of its Content-Length (100 declared, 7 sent)', async () => {
    const res = await exchange([
      request(
        ['POST /api/auth/login HTTP/1.1', 'Host: x', 'Content-Type: application/json', 'Content-Length: 100'],
        '{"emai',
      ),
    ]);
    expectEnvelope(firstResponse(res.raw), 408, 'REQUEST_TIMEOUT');
    expect(res.closedAfterMs).not.toBeNull();
    // the request timeout plus at most one check interval (and some slack for a loaded machine)
    expect(res.closedAfterMs!).toBeLessThan(REQUEST_TIMEOUT_MS + 2_000);
  });

  it('answers 408 and closes when the headers never end (slow headers)', async () => {
    const res = await exchange(['GET /api/health HTTP/1.1\r\n', 'Host: x\r\n', 'X-Slow: 1\r\n'], {
      pauseMs: 100,
    });
    expectEnvelope(firstResponse(res.raw), 408, 'REQUEST_TIMEOUT');
    expect(res.closedAfterMs!).toBeLessThan(HEADERS_TIMEOUT_MS + 2_000);
  });

  it('closes an idle keep-alive connection after the keep-alive timeout', async () => {
    const res = await exchange([request(['GET /api/health HTTP/1.1', 'Host: x'])]);
    expect(firstResponse(res.raw).status).toBe(200);
    expect(res.closedAfterMs).not.toBeNull();
    expect(res.closedAfterMs!).toBeGreaterThanOrEqual(KEEP_ALIVE_TIMEOUT_MS - 50);
    expect(res.closedAfterMs!).toBeLessThan(KEEP_ALIVE_TIMEOUT_MS + 2_000);
  });
});

describe('connection-level errors answer in the envelope', () => {
  it('431 HEADERS_TOO_LARGE for headers over the limit', async () => {
    const res = await exchange([
      request(['GET /api/health HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(20_000)}`]),
    ]);
    expectEnvelope(firstResponse(res.raw), 431, 'HEADERS_TOO_LARGE');
  });

  it('417 EXPECTATION_FAILED for an Expect other than 100-continue', async () => {
    const res = await exchange([
      request(['POST /api/auth/login HTTP/1.1', 'Host: x', 'Expect: teapot', 'Content-Length: 2'], '{}'),
    ]);
    expectEnvelope(firstResponse(res.raw), 417, 'EXPECTATION_FAILED');
  });

  it('still honours Expect: 100-continue', async () => {
    const res = await exchange(
      [
        request([
          'POST /api/auth/login HTTP/1.1',
          'Host: x',
          'Expect: 100-continue',
          'Content-Type: application/json',
          'Content-Length: 2',
        ]),
        '{}',
      ],
      { pauseMs: 100, waitMs: 1_500 },
    );
    expect(res.raw.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    expectEnvelope(
      firstResponse(res.raw.slice('HTTP/1.1 100 Continue\r\n\r\n'.length)),
      400,
      'VALIDATION_ERROR',
    );
  });

  it.each([
    [
      'an invalid chunk size',
      request(
        ['POST /api/auth/login HTTP/1.1', 'Host: x', 'Transfer-Encoding: chunked'],
        'zz\r\n{}\r\n0\r\n\r\n',
      ),
    ],
    [
      'both Content-Length and Transfer-Encoding',
      request(
        ['POST /api/auth/login HTTP/1.1', 'Host: x', 'Content-Length: 2', 'Transfer-Encoding: chunked'],
        '2\r\n{}\r\n0\r\n\r\n',
      ),
    ],
    [
      'a non-numeric Content-Length',
      request(['POST /api/auth/login HTTP/1.1', 'Host: x', 'Content-Length: abc'], '{}'),
    ],
    [
      'two different Content-Lengths',
      request(['POST /api/auth/login HTTP/1.1', 'Host: x', 'Content-Length: 2', 'Content-Length: 3'], '{}'),
    ],
    ['an unknown method', request(['BREW /api/health HTTP/1.1', 'Host: x'])],
    ['a space in the header name', request(['GET /api/health HTTP/1.1', 'Host: x', 'Bad Header: 1'])],
    ['a control character in the URL', request(['GET /api/\x01health HTTP/1.1', 'Host: x'])],
    ['an HTTP/2 preface', 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'],
    ['garbage', '\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03'],
  ])('400 VALIDATION_ERROR for %s', async (_name, payload) => {
    const res = await exchange([Buffer.from(payload, 'latin1')]);
    const error = expectEnvelope(firstResponse(res.raw), 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([
      { path: 'request', message: expect.stringMatching(/^Malformed HTTP request/) },
    ]);
    expect(res.closedAfterMs).not.toBeNull();
  });
});

describe('a request without Host', () => {
  it('HTTP/1.1 without Host: 400 VALIDATION_ERROR in the envelope, not a bare 400', async () => {
    const res = await exchange([request(['GET /api/health HTTP/1.1', 'Connection: close'])]);
    const answer = firstResponse(res.raw);
    const error = expectEnvelope(answer, 400, 'VALIDATION_ERROR');
    expect(error.details).toEqual([{ path: 'request', message: 'the Host header is missing' }]);
    expect(answer.headers['x-content-type-options']).toBe('nosniff');
  });

  it('HTTP/1.1 with an empty Host is accepted (a valid, if unusual, request)', async () => {
    const res = await exchange([request(['GET /api/health HTTP/1.1', 'Host:', 'Connection: close'])]);
    expect(firstResponse(res.raw).status).toBe(200);
  });

  it('HTTP/1.0 needs no Host', async () => {
    const res = await exchange([request(['GET /api/health HTTP/1.0'])]);
    expect(firstResponse(res.raw).status).toBe(200);
  });
});

describe('bad URLs answer in the envelope', () => {
  it.each([
    ['/api/flows/%ff', 404, 'NOT_FOUND', '/api/flows/%ff'],
    ['/api/flows/%E0%A4%A', 404, 'NOT_FOUND', '/api/flows/%E0%A4%A'],
    ['/%', 404, 'NOT_FOUND', '/%'],
    // routed like any id (the route's own auth runs first), not refused as too long
    ['a 5,000-character id', 401, 'AUTH_NO_TOKEN', `/api/flows/${'a'.repeat(5_000)}`],
    ['/api/health?x=%00', 400, 'VALIDATION_ERROR', '/api/health?x=%00'],
    ['//api//health', 404, 'NOT_FOUND', '//api//health'],
  ])('%s → %i %s', async (_label, status, code, url) => {
    const res = await exchange([request([`GET ${url} HTTP/1.1`, 'Host: x', 'Connection: close'])]);
    expectEnvelope(firstResponse(res.raw), status, code);
  });
});

it('answers requests that arrive while the server drains with 503 in the envelope', async () => {
  let entered!: () => void;
  let release!: () => void;
  const inFlight = new Promise<void>((r) => {
    entered = r;
  });
  const released = new Promise<void>((r) => {
    release = r;
  });
  const draining = await createTestApp({
    beforeReady(app) {
      app.get('/api/test/slow', { config: { auth: publicRoute('none') } }, async () => {
        entered();
        await released;
        return { data: 'done' };
      });
    },
  });
  await draining.app.listen({ host: '127.0.0.1', port: 0 });
  const drainingPort = (draining.app.server.address() as AddressInfo).port;
  const socket = connect({ host: '127.0.0.1', port: drainingPort });
  const chunks: Buffer[] = [];
  socket.on('data', (d) => chunks.push(d));
  const ended = new Promise<void>((r) => socket.on('close', () => r()));
  socket.write(request(['GET /api/test/slow HTTP/1.1', 'Host: x']));
  await inFlight;
  const closing = draining.close();
  await new Promise((r) => setTimeout(r, 50));
  // a second request on the busy keep-alive connection, after the drain began
  socket.write(request(['GET /api/health HTTP/1.1', 'Host: x']));
  await new Promise((r) => setTimeout(r, 50));
  release();
  await closing;
  await ended;
  const raw = Buffer.concat(chunks).toString('latin1');
  const first = firstResponse(raw);
  expect(first.status).toBe(200);
  const second = raw.slice(raw.indexOf('HTTP/1.1', 1));
  const error = expectEnvelope(firstResponse(second), 503, 'SERVICE_UNAVAILABLE');
  expect(error.code).toBe('SERVICE_UNAVAILABLE');
});

it('stays healthy after all of it', async () => {
  const res = await exchange([request(['GET /api/health HTTP/1.1', 'Host: x', 'Connection: close'])]);
  const parsed = firstResponse(res.raw);
  expect(parsed.status).toBe(200);
  expect(JSON.parse(parsed.body).data.status).toBe('ok');
});
