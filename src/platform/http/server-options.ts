import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyHttpOptions, FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import { AppError } from '../errors.js';
import type { EdgeStep } from './edge.js';
import { sendError } from './error-handler.js';

/**
 * Longer than any request line Node accepts (its header limit, 16 KiB, counts the URL): a path
 * id of any length reaches its route, which answers the 404 with its own code (DECISIONS §1).
 */
const MAX_PARAM_LENGTH = 16_384;

/**
 * The HTTP server's own settings: timeouts (so a slow client cannot hold a connection), and the
 * errors that happen before any route runs, routed into the one error envelope.
 *
 * - `requestTimeout`: the whole request (headers and body) must arrive within it, else 408.
 * - `headersTimeout`: the headers must arrive within it (slow-headers clients), else 408.
 * - `keepAliveTimeout`: an idle keep-alive connection is closed after it (longer than the idle
 *   timeout of common load balancers, so they never reuse a connection the server just closed).
 * Node checks the first two every `connectionsCheckingInterval`, 30 s by default: a fraction of
 * the headers timeout keeps them close to what is configured.
 * - `requireHostHeader: false`: Node would answer an HTTP/1.1 request without `Host` with a bare
 *   400 before the app sees it; `refuseMissingHost` refuses it in the envelope instead.
 */
export function httpServerOptions(config: Config): FastifyHttpOptions<Server> {
  const { requestTimeoutMs, headersTimeoutMs, keepAliveTimeoutMs } = config;
  return {
    requestTimeout: requestTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    http: {
      requestTimeout: requestTimeoutMs,
      headersTimeout: headersTimeoutMs,
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.floor(headersTimeoutMs / 4))),
      requireHostHeader: false,
    },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Errors of routing itself (an undecodable path, an overlong id): the envelope, like any
    // other. No hook runs for them, so the security headers are added here.
    frameworkErrors: (err, request, reply) => {
      reply.headers(request.server.securityHeadersFor(request.url));
      sendError(err, request, reply);
    },
    clientErrorHandler,
  };
}

/** HTTP/1.1 requires a `Host` header (RFC 9112 §3.2): without one, 400 in the envelope (a step of the request edge). */
export const refuseMissingHost: EdgeStep = (request) => {
  const { raw } = request;
  if (raw.headers.host !== undefined || raw.httpVersionMajor !== 1 || raw.httpVersionMinor < 1) return;
  return new AppError('VALIDATION_ERROR', 'An HTTP/1.1 request needs a Host header', [
    { path: 'request', message: 'the Host header is missing' },
  ]);
};

/**
 * Errors of the connection before a request exists (bad framing, oversized headers, timeouts):
 * Node has no request to answer, so the envelope is written on the socket, which is then closed.
 */
function clientErrorHandler(this: FastifyInstance, err: Error & { code?: string }, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const appError = connectionError(err.code);
  this.log.debug({ err }, 'client connection error');
  if (socket.writable) {
    const body = JSON.stringify(appError.toEnvelope());
    socket.write(
      `HTTP/1.1 ${appError.statusCode} ${STATUS_CODES[appError.statusCode]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        'X-Content-Type-Options: nosniff\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  }
  socket.destroy();
}

/** The envelope of a connection-level error, by Node's error code. */
export function connectionError(code: string | undefined): AppError {
  switch (code) {
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new AppError('REQUEST_TIMEOUT');
    case 'HPE_HEADER_OVERFLOW':
      return new AppError('HEADERS_TOO_LARGE');
    default: {
      const message = `Malformed HTTP request${code ? ` (${code})` : ''}`;
      return new AppError('VALIDATION_ERROR', message, [{ path: 'request', message }]);
    }
  }
}
