import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, type ValidationIssue } from '../errors.js';
import type { EdgeStep } from './edge.js';

/** The one place where anything thrown becomes the spec's error envelope. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler(sendError);

  app.setNotFoundHandler((request, reply) => {
    sendEnvelope(
      reply,
      new AppError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`),
    );
  });

  // An `Expect` other than 100-continue: Node would answer 417 with an empty body.
  app.server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify(new AppError('EXPECTATION_FAILED').toEnvelope());
    res.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    res.end(body);
  });
}

/**
 * While the server drains (SIGTERM), new requests answer 503 in the envelope (Fastify's own
 * return503OnClosing would answer with a body of its own); load balancers retry elsewhere.
 * A step of the request edge.
 */
export function refuseWhileClosing(app: FastifyInstance): EdgeStep {
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  return (_request, reply) => {
    if (!closing) return;
    reply.header('connection', 'close');
    return new AppError('SERVICE_UNAVAILABLE', 'The server is shutting down');
  };
}

/** Sends anything thrown as the envelope; 5xx are logged with their cause (never sent). */
export function sendError(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const appError = toAppError(err);
  if (appError.statusCode >= 500) {
    request.log.error({ err, correlationId: request.correlationId }, 'request failed');
  }
  sendEnvelope(reply, appError);
}

/**
 * Sent as JSON text: the route's response schemas are not applied to errors, so a route that
 * declares another body for the same status (health's 503) cannot turn an error into a
 * serialization failure outside the envelope.
 */
function sendEnvelope(reply: FastifyReply, error: AppError): void {
  reply
    .code(error.statusCode)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(error.toEnvelope()));
}

const CONTEXT_PREFIX: Record<string, string> = {
  body: '',
  querystring: 'query.',
  params: 'params.',
  headers: 'headers.',
};

export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  const e = err as FastifyError & { validationContext?: string };
  if (hasZodFastifySchemaValidationErrors(e)) {
    const prefix = CONTEXT_PREFIX[e.validationContext ?? 'body'] ?? '';
    const issues: ValidationIssue[] = e.validation.map((v) => ({
      path:
        prefix + v.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.') ||
        prefix.replace(/\.$/, '') ||
        'body',
      message: v.message ?? 'invalid',
    }));
    return new AppError('VALIDATION_ERROR', issues.map((i) => `${i.path}: ${i.message}`).join('; '), issues);
  }
  if (isResponseSerializationError(e)) return new AppError('INTERNAL_ERROR');
  switch (e.code) {
    // A path that cannot be decoded (`%ff`) or an id beyond any length Node accepts names no
    // route or record: 404, as for any unknown or malformed id (DECISIONS §1).
    case 'FST_ERR_BAD_URL':
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new AppError('NOT_FOUND');
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new AppError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new AppError('VALIDATION_ERROR', 'Malformed JSON body', [{ path: 'body', message: e.message }]);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new AppError('VALIDATION_ERROR', e.message, [{ path: 'body', message: e.message }]);
  }
  if (err instanceof SyntaxError && e.statusCode === 400) {
    return new AppError('VALIDATION_ERROR', 'Malformed JSON body', [{ path: 'body', message: e.message }]);
  }
  const status = typeof e.statusCode === 'number' ? e.statusCode : 500;
  if (status === 404) return new AppError('NOT_FOUND');
  if (status === 413) return new AppError('PAYLOAD_TOO_LARGE');
  if (status >= 400 && status < 500) {
    return new AppError('VALIDATION_ERROR', e.message, [{ path: 'body', message: e.message }]);
  }
  return new AppError('INTERNAL_ERROR');
}
