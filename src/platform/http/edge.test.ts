import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.js';
import { ANSWERED, type EdgeStep, installRequestEdge } from './edge.js';

/** An app whose edge records the steps that ran, with one route that counts its calls. */
async function appWith(steps: Record<string, EdgeStep>) {
  const ran: string[] = [];
  let handled = 0;
  const app = Fastify();
  app.setErrorHandler((err, _request, reply) => {
    reply.code((err as AppError).statusCode ?? 500).send({ code: (err as AppError).code });
  });
  installRequestEdge(
    app,
    Object.entries(steps).map(
      ([name, step]): EdgeStep =>
        (request, reply) => {
          ran.push(name);
          return step(request, reply);
        },
    ),
  );
  app.get('/', async () => {
    handled++;
    return { ok: true };
  });
  await app.ready();
  return { app, ran, handled: () => handled };
}

/** A step that sets a header and lets the request go on. */
const setsHeader: EdgeStep = (_request, reply) => {
  reply.header('x-first', '1');
  return undefined;
};

describe('installRequestEdge', () => {
  it('runs every step in order, then the route', async () => {
    const { app, ran, handled } = await appWith({
      first: setsHeader,
      second: () => undefined,
    });
    const res = await app.inject('/');
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-first']).toBe('1');
    expect(ran).toEqual(['first', 'second']);
    expect(handled()).toBe(1);
  });

  it('stops at a refusal: the later steps and the route do not run, the error handler answers', async () => {
    const { app, ran, handled } = await appWith({
      headers: setsHeader,
      refuse: () => new AppError('VALIDATION_ERROR', 'no'),
      later: () => undefined,
    });
    const res = await app.inject('/');
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ code: 'VALIDATION_ERROR' });
    expect(res.headers['x-first']).toBe('1');
    expect(ran).toEqual(['headers', 'refuse']);
    expect(handled()).toBe(0);
  });

  it('stops at a step that answered: its answer is sent, nothing else runs', async () => {
    const { app, ran, handled } = await appWith({
      answer: (_q, reply) => {
        reply.code(204).send();
        return ANSWERED;
      },
      later: () => undefined,
    });
    const res = await app.inject('/');
    expect(res.statusCode).toBe(204);
    expect(ran).toEqual(['answer']);
    expect(handled()).toBe(0);
  });
});
