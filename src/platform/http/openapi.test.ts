import Fastify, { type FastifyInstance } from 'fastify';
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { API_KEY, type AuthPolicy, platformAdmin, publicRoute, requireRole } from '../auth/guard.js';
import { installOpenApi, platformErrorStatuses, securityOf } from './openapi.js';
import { errors } from './schemas.js';

/** A bare app with only the OpenAPI setup: the routes a test adds, no database. */
async function bareApp(addRoutes: (app: FastifyInstance) => void) {
  const app = Fastify();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  await installOpenApi(app, {
    title: 'test',
    description: 'test',
    tags: [{ name: 'things', description: 'x' }],
  });
  addRoutes(app);
  await app.ready();
  return app;
}

const ok = async () => ({ ok: true });
const schema = { tags: ['things'], summary: 'A thing', response: { 200: z.object({ ok: z.boolean() }) } };

async function documentOf(addRoutes: (app: FastifyInstance) => void) {
  const app = await bareApp(addRoutes);
  const doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
  await app.close();
  return doc;
}

describe('boot checks', () => {
  const boot = (addRoutes: (app: FastifyInstance) => void) =>
    (async () => (await bareApp(addRoutes)).close())();

  it('refuses two routes whose derived operationIds clash', async () => {
    await expect(
      boot((app) => {
        app.get('/api/things/:id', { schema }, ok);
        app.get('/api/thing/:id', { schema }, ok);
      }),
    ).rejects.toThrow('operationId "getThing" of GET /api/thing/:id is already used by GET /api/things/:id');
  });

  it('refuses an explicit operationId that another route already has', async () => {
    await expect(
      boot((app) => {
        app.get('/api/things', { schema }, ok);
        app.get('/api/stuff', { schema: { ...schema, operationId: 'getThings' } }, ok);
      }),
    ).rejects.toThrow(/operationId "getThings" of GET \/api\/stuff is already used/);
  });

  it('refuses a route that declares its own security (config.auth decides)', async () => {
    await expect(
      boot((app) => app.get('/api/things', { schema: { ...schema, security: [{ apiKey: [] }] } }, ok)),
    ).rejects.toThrow(/schema.security is derived from config.auth/);
  });

  it('refuses one documented route for several methods', async () => {
    await expect(
      boot((app) => app.route({ method: ['GET', 'POST'], url: '/api/things', schema, handler: ok })),
    ).rejects.toThrow(/declare one route per method/);
  });

  it('accepts hidden routes and explicit ids that resolve a clash', async () => {
    await expect(
      boot((app) => {
        app.get('/api/things/:id', { schema }, ok);
        app.get('/api/thing/:id', { schema: { ...schema, operationId: 'getOneThing' } }, ok);
        app.get('/api/things/:id/copy', { schema: { hide: true } }, ok);
        app.get('/api/things/:key/copy/', { schema: { hide: true } }, ok);
      }),
    ).resolves.toBeUndefined();
  });
});

describe('security and platform errors by policy', () => {
  const cases: [string, AuthPolicy | undefined, object[], number[]][] = [
    ['no policy', undefined, [], [400]],
    ['public, not limited', publicRoute('none'), [], [400]],
    ['public, auth scope', publicRoute('auth'), [], [400, 429]],
    [
      'VIEWER session',
      requireRole('VIEWER'),
      [{ bearerAuth: ['VIEWER'] }, { sessionCookie: ['VIEWER'] }],
      [400, 401, 429],
    ],
    [
      'ADMIN session',
      requireRole('ADMIN'),
      [{ bearerAuth: ['ADMIN'] }, { sessionCookie: ['ADMIN'] }],
      [400, 401, 403, 429],
    ],
    ['API key', API_KEY, [{ apiKey: [] }], [400, 401, 429]],
    ['platform admin', platformAdmin('write'), [{ platformAdmin: [] }], [400, 401, 429]],
  ];
  it.each(cases)('%s', (_name, policy, security, statuses) => {
    expect(securityOf(policy)).toEqual(security);
    expect(platformErrorStatuses(policy, false)).toEqual(statuses);
    expect(platformErrorStatuses(policy, true)).toEqual([400, 413, ...statuses.slice(1)]);
  });
});

describe('the document', () => {
  it('gives each operation its id, tags, security and error responses by reference to the Error envelope', async () => {
    const doc = await documentOf((app) => {
      app.post(
        '/api/things/:id/publish',
        {
          config: { auth: requireRole('EDITOR') },
          schema: {
            summary: 'Publish a thing',
            description: 'Publishes.',
            params: z.object({ id: z.string() }),
            body: z.object({ note: z.string() }),
            response: { 200: z.object({ ok: z.boolean() }), ...errors(404, 409) },
          },
        },
        ok,
      );
    });
    const op = doc.paths['/api/things/{id}/publish'].post;
    expect(op).toMatchObject({
      operationId: 'postThingPublish',
      summary: 'Publish a thing',
      description: 'Publishes.\n\nNeeds the EDITOR role or higher.',
      tags: ['things'],
      security: [{ bearerAuth: ['EDITOR'] }, { sessionCookie: ['EDITOR'] }],
    });
    expect(op.responses['200'].description).toBe('OK');
    expect(Object.keys(op.responses)).toEqual([
      '200',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '429',
      'default',
    ]);
    const ref = (name: string) => ({ $ref: `#/components/responses/${name}` });
    expect(op.responses).toMatchObject({
      '400': ref('BadRequest'),
      '401': ref('Unauthorized'),
      '403': ref('Forbidden'),
      '404': ref('NotFound'),
      '409': ref('Conflict'),
      '413': ref('PayloadTooLarge'),
      '429': ref('TooManyRequests'),
      default: ref('UnexpectedError'),
    });
    const notFound = doc.components.responses.NotFound;
    expect(notFound.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Error' });
    expect(notFound.description).toContain('`CONTENT_NOT_FOUND`');
    expect(doc.components.responses.TooManyRequests.headers).toHaveProperty('Retry-After');
    // Only the output direction of the envelope is referenced: its input twin is dropped.
    expect(Object.keys(doc.components.schemas)).toEqual(['Error']);
  });

  it('documents a route without a schema or policy as public, tagged by its first segment', async () => {
    const doc = await documentOf((app) => app.get('/sdk/guidance.js', async () => 'x'));
    expect(doc.paths['/sdk/guidance.js'].get).toMatchObject({
      operationId: 'getSdkGuidanceJs',
      tags: ['sdk'],
      security: [],
      responses: { '400': { $ref: '#/components/responses/BadRequest' } },
    });
  });
});
