import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

type Done = (err: Error | null, body?: unknown) => void;
export type JsonBodyParser = (request: FastifyRequest, body: string | Buffer, done: Done) => void;

/**
 * The service's JSON body parser (Fastify's own, which refuses `__proto__` keys), plus:
 * - an empty body reads as `{}`: bodiless POSTs that still send `Content-Type:
 *   application/json` (publish, archive, …) are common;
 * - a NUL character (`\u0000`) anywhere is a 400: PostgreSQL can store it in neither text nor
 *   jsonb, and one such value must not fail a statement shared with other requests.
 * `onParsed` sees the body text and its parsed value (the event log keeps the text).
 */
export function jsonBodyParser(
  app: FastifyInstance,
  onParsed?: (request: FastifyRequest, text: string, parsed: unknown) => void,
): JsonBodyParser {
  const parse = app.getDefaultJsonParser('error', 'error');
  return (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString();
    if (text.trim() === '') return done(null, {});
    if (text.includes('\\u0000')) {
      return done(
        new AppError('VALIDATION_ERROR', 'NUL characters (\\u0000) are not accepted', [
          { path: 'body', message: 'contains a NUL character' },
        ]),
      );
    }
    parse(request, text, (err, parsed) => {
      if (!err && onParsed) onParsed(request, text, parsed);
      done(err, parsed);
    });
  };
}

/** Query strings and paths with a NUL (`%00`) are refused for the same reason. */
export function refuseNulInUrls(app: FastifyInstance): void {
  // A callback hook: no promise per request on the hot path.
  app.addHook('onRequest', (request, _reply, done) => {
    if (!request.url.includes('%00')) return done();
    done(
      new AppError('VALIDATION_ERROR', 'NUL characters (%00) are not accepted', [
        { path: 'url', message: 'contains a NUL character' },
      ]),
    );
  });
}
