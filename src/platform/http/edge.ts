import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppError } from '../errors.js';

/** The request was answered by the step (a CORS preflight): nothing after it runs. */
export const ANSWERED = Symbol('answered');

/**
 * One step of the request edge: sets headers, refuses (an AppError, answered in the envelope by
 * the error handler), answers (`ANSWERED`), or lets the request go on (`undefined`).
 */
export type EdgeStep = (
  request: FastifyRequest,
  reply: FastifyReply,
) => AppError | typeof ANSWERED | undefined;

/**
 * What every request meets before routing's own hooks: the steps in order, in one synchronous
 * `onRequest` hook. Each hook Fastify runs costs the SDK config path about 1% of its CPU, and
 * these run on every request.
 */
export function installRequestEdge(app: FastifyInstance, steps: EdgeStep[]): void {
  app.addHook('onRequest', (request, reply, done) => {
    for (const step of steps) {
      const outcome = step(request, reply);
      if (outcome === undefined) continue;
      if (outcome === ANSWERED) return;
      return done(outcome);
    }
    done();
  });
}
