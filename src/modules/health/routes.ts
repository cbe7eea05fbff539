import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { publicRoute } from '../../platform/auth/guard.js';
import { SERVICE_VERSION } from '../../platform/version.js';

const healthResponse = z.object({
  data: z.object({
    status: z.enum(['ok', 'degraded']),
    version: z.string(),
    uptimeSeconds: z.number().int(),
    checks: z.object({
      database: z.enum(['ok', 'down']),
      redis: z.enum(['ok', 'down', 'disabled']),
    }),
  }),
});

const startedAt = Date.now();
const PING_TIMEOUT_MS = 2000;

/** DECISIONS §4: 200 when the database answers, 503 `degraded` when it does not. Redis is reported, not required. */
export const healthRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/api/health',
    {
      config: { auth: publicRoute('none') },
      schema: {
        tags: ['health'],
        summary: 'Liveness and dependency checks',
        response: { 200: healthResponse, 503: healthResponse },
      },
    },
    async (_request, reply) => {
      const { database, redis } = app.deps;
      const db = await withTimeout(database.ping());
      const cache = redis ? await withTimeout(redis.ping()) : 'disabled';
      const status = db === 'ok' ? 'ok' : 'degraded';
      return reply.code(status === 'ok' ? 200 : 503).send({
        data: {
          status,
          version: SERVICE_VERSION,
          uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
          checks: { database: db, redis: cache },
        },
      });
    },
  );
};

async function withTimeout(check: Promise<unknown>): Promise<'ok' | 'down'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'down'>((resolve) => {
    timer = setTimeout(() => resolve('down'), PING_TIMEOUT_MS);
  });
  try {
    return await Promise.race([check.then(() => 'ok' as const), timeout]);
  } catch {
    return 'down';
  } finally {
    clearTimeout(timer);
  }
}
