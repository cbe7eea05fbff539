import Fastify, { type FastifyBaseLogger, LogController } from 'fastify';
import pino from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyRequestLogger } from './request-logger.js';

async function appLoggingTo(lines: Record<string, unknown>[]) {
  const logger = pino(
    { level: 'info' },
    { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    logController: new LogController({ disableRequestLogging: true }),
    childLoggerFactory: lazyRequestLogger,
    genReqId: () => 'req-1',
  });
  app.get('/quiet', async () => ({ ok: true }));
  app.get('/loud', async (request) => {
    request.log.warn({ detail: 42 }, 'something to say');
    request.log.child({ step: 'inner' }).info('from a child');
    request.log.debug('below the level');
    return { ok: true };
  });
  await app.ready();
  // Counted from here: Fastify makes children of its own while it boots.
  const child = vi.spyOn(logger, 'child');
  return { app, child };
}

describe('lazyRequestLogger', () => {
  it('makes no child logger for a request that logs nothing', async () => {
    const { app, child } = await appLoggingTo([]);
    expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(child).not.toHaveBeenCalled();
    await app.close();
  });

  it("writes a request's lines as Fastify's own child would: request id, fields, level", async () => {
    const lines: Record<string, unknown>[] = [];
    const { app, child } = await appLoggingTo(lines);
    expect((await app.inject('/loud')).statusCode).toBe(200);
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, reqId: 'req-1', detail: 42, msg: 'something to say' }),
      expect.objectContaining({ level: 30, reqId: 'req-1', step: 'inner', msg: 'from a child' }),
    ]);
    // Once for the request (made on its first line), once for the route's own child.
    expect(child.mock.calls.map((call) => call[0])).toEqual([{ reqId: 'req-1' }, { step: 'inner' }]);
    await app.close();
  });
});
