import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { AppError, type ValidationIssue } from '../errors.js';

/** The one place where anything thrown becomes the spec's error envelope. */
export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const appError = toAppError(err);
    if (appError.statusCode >= 500) {
      request.log.error({ err, correlationId: request.correlationId }, 'request failed');
    }
    reply.code(appError.statusCode).send(appError.toEnvelope());
  });

  app.setNotFoundHandler((request, reply) => {
    const e = new AppError('NOT_FOUND', `Route ${request.method} ${request.url.split('?')[0]} not found`);
    reply.code(404).send(e.toEnvelope());
  });
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
