import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, RouteOptions } from 'fastify';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { SESSION_COOKIE } from '../auth/cookies.js';
import { type AuthPolicy, ROLE_RANK } from '../auth/guard.js';
import { SERVICE_VERSION } from '../version.js';
import { ERROR_SCHEMA_REF, finishDocument, type OpenApiDocument } from './openapi-document.js';
import { createOperationIdRegistry, deriveOperationId } from './operation-ids.js';

/**
 * The OpenAPI document at /docs/json (UI at /docs), generated from the route schemas. What every
 * operation has in common is decided here, once, rather than in 130 route declarations:
 * - `operationId`: the route's `schema.operationId`, else derived from method and path
 *   (operation-ids.ts); a clash stops the boot.
 * - `security`: from the route's `config.auth` policy (auth/guard.ts), the one source of truth.
 * - the error responses the platform itself can answer (validation, auth, rate limits, body
 *   size, anything unexpected), next to those the route declares; all reference one `Error`
 *   schema through named responses (openapi-document.ts).
 * Routes bring their own `summary`, `description`, `tags` and schemas. See docs/openapi.md.
 */

export interface OpenApiOptions {
  title: string;
  description: string;
  /** Every tag an operation uses, with what it groups. */
  tags: { name: string; description: string }[];
}

type SecurityRequirement = Record<string, string[]>;

export const SECURITY_SCHEMES = {
  bearerAuth: {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'Dashboard session: the `accessToken` from login, register or refresh, as `Authorization: Bearer <token>`. ' +
      'The role listed on an operation is the least it needs (VIEWER < EDITOR < ADMIN < OWNER).',
  },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: SESSION_COOKIE,
    description: `Dashboard session, the same access token in the \`${SESSION_COOKIE}\` cookie that sign-in sets.`,
  },
  apiKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-API-Key',
    description:
      'SDK routes: a tenant API key in `X-API-Key`. Where a header cannot be set, the key may travel as ' +
      '`_apiKey` in the JSON body (navigator.sendBeacon) or as the `apiKey` query parameter; it is removed ' +
      'before validation and never stored. `Authorization` is ignored on these routes.',
  },
  platformAdmin: {
    type: 'http',
    scheme: 'bearer',
    description:
      'Platform administration: `Authorization: Bearer <PLATFORM_ADMIN_TOKEN>` (the admin routes answer 401 while the ' +
      'token is not configured).',
  },
} as const;

/** A route without a policy is outside /api (the guard refuses those inside): nothing guards it. */
export function securityOf(policy: AuthPolicy | undefined): SecurityRequirement[] {
  switch (policy?.kind) {
    case undefined:
    case 'public':
      return [];
    case 'session':
      // OpenAPI 3.1 lets a non-OAuth requirement list role names: the least role the route needs.
      return [{ bearerAuth: [policy.role] }, { sessionCookie: [policy.role] }];
    case 'apiKey':
      return [{ apiKey: [] }];
    case 'platformAdmin':
      return [{ platformAdmin: [] }];
  }
}

/**
 * The error statuses any route with this policy can answer, whatever it declares: 400 (a NUL in
 * the URL is refused everywhere, and any schema may reject its input), 413 for a body past the
 * limit, 401/403 from the guard, 429 from the rate limits.
 */
export function platformErrorStatuses(policy: AuthPolicy | undefined, hasBody: boolean): number[] {
  const statuses = [400];
  if (hasBody) statuses.push(413);
  switch (policy?.kind) {
    case 'session':
      statuses.push(401);
      if (ROLE_RANK[policy.role] > ROLE_RANK.VIEWER) statuses.push(403);
      statuses.push(429);
      break;
    case 'apiKey':
    case 'platformAdmin':
      statuses.push(401, 429);
      break;
    case 'public':
      if (policy.rateScope !== 'none') statuses.push(429);
      break;
  }
  return statuses;
}

const documentedMethods = (route: Pick<RouteOptions, 'method'>) =>
  [route.method].flat().filter((m) => m !== 'HEAD');

/** The first path segment after `/api`: where a route sets no tags. */
function defaultTag(url: string): string {
  const segments = url.split('/').filter(Boolean);
  return (segments[0] === 'api' ? segments[1] : segments[0]) ?? 'service';
}

function roleNote(policy: AuthPolicy | undefined): string | undefined {
  return policy?.kind === 'session' ? `Needs the ${policy.role} role or higher.` : undefined;
}

export async function installOpenApi(app: FastifyInstance, opts: OpenApiOptions): Promise<void> {
  const operationIds = createOperationIdRegistry();

  // At registration, like the guard: a bad route stops the boot with its name in the message.
  app.addHook('onRoute', (route) => {
    if (route.schema?.hide) return;
    const url = route.url ?? route.path ?? '';
    const methods = documentedMethods(route);
    if (methods.length > 1) {
      throw new Error(`route ${methods.join('/')} ${url}: declare one route per method (one operation each)`);
    }
    if (route.schema && 'security' in route.schema) {
      throw new Error(`route ${methods[0]} ${url}: schema.security is derived from config.auth; remove it`);
    }
    for (const method of methods) operationIds.claim(method, url, route.schema?.operationId);
  });

  const zodTransform = createJsonSchemaTransform({});
  const zodTransformObject = createJsonSchemaTransformObject({});

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: opts.title,
        version: SERVICE_VERSION,
        description: opts.description,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // Relative: the service that served this document, wherever it runs (and the generated
      // types do not change with the deployment's URL).
      servers: [{ url: '/', description: 'The service that serves this document' }],
      tags: opts.tags,
      components: { securitySchemes: SECURITY_SCHEMES },
    },
    transform: (input) => {
      const { schema, url } = zodTransform(input);
      if (schema?.hide) return { schema, url };
      const route = input.route;
      const policy = route.config?.auth;
      const method = documentedMethods(route)[0] ?? 'GET';
      const response: Record<string, unknown> = { ...(schema?.response as Record<string, unknown>) };
      for (const status of platformErrorStatuses(policy, schema?.body !== undefined)) {
        response[status] ??= { $ref: ERROR_SCHEMA_REF };
      }
      response.default ??= { $ref: ERROR_SCHEMA_REF };
      const description = [schema?.description, roleNote(policy)].filter(Boolean).join('\n\n');
      return {
        url,
        schema: {
          ...schema,
          operationId: (schema?.operationId as string | undefined) ?? deriveOperationId(method, url),
          tags: (schema?.tags as string[] | undefined) ?? [defaultTag(url)],
          security: securityOf(policy),
          ...(description ? { description } : {}),
          response,
        },
      };
    },
    transformObject: (input) => finishDocument(zodTransformObject(input) as OpenApiDocument),
  });
  await app.register(swaggerUi, { routePrefix: '/docs' });
}
