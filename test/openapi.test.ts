import { readFile } from 'node:fs/promises';
import type {
  paths,
  SchemaError,
  SchemaFlow,
  SchemaRuleTreeInput,
  SchemaSdkEventInput,
  SchemaSdkSession,
} from '@guidance/api-types';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  API_TYPES_FILE,
  fetchDocument,
  formatProblems,
  generateApiTypes,
  lintDocument,
  type OpenApiDocument,
} from '../scripts/openapi-tools.js';
import type { EventType } from '../src/modules/events/types.js';
import type { ErrorCode } from '../src/platform/errors.js';
import { securityOf } from '../src/platform/http/openapi.js';
import { OPERATION_ID_PATTERN } from '../src/platform/http/operation-ids.js';
import { createTestApp, type TestApp } from './helpers/app.js';

/**
 * The live document at /docs/json, as a client generator sees it: Redocly's recommended rules
 * (and ours, redocly.yaml) find no error, openapi-typescript generates types from it, and those
 * are the types committed in packages/api-types.
 */

interface Operation {
  operationId?: string;
  summary?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  requestBody?: { content: Record<string, { schema: unknown }> };
  responses: Record<string, { $ref?: string }>;
}

let t: TestApp;
let doc: OpenApiDocument & {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Record<string, unknown>>; responses: Record<string, unknown> };
};

const operations = () =>
  Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ route: `${method.toUpperCase()} ${path}`, op })),
  );

beforeAll(async () => {
  t = await createTestApp();
  doc = (await fetchDocument((url) => t.inject({ method: 'GET', url }))) as typeof doc;
});
afterAll(() => t.close());

describe('the OpenAPI document', () => {
  it('passes redocly lint (recommended rules and redocly.yaml) without errors', async () => {
    const result = await lintDocument(doc);
    console.info(`redocly lint of /docs/json: ${result.errors} errors, ${result.warnings} warnings`);
    expect(formatProblems(result.problems.filter((p) => p.severity === 'error'))).toBe('');
    expect(result.errors).toBe(0);
  }, 120_000);

  it('generates types with openapi-typescript, and they are the committed @guidance/api-types', async () => {
    const generated = await generateApiTypes(doc);
    expect(generated).toContain('export interface paths');
    expect(generated).toContain('"/api/audiences": {');
    const committed = await readFile(API_TYPES_FILE, 'utf8');
    // On a difference: run `npm run generate:api-types` and commit packages/api-types/index.d.ts.
    expect(committed === generated, `${API_TYPES_FILE} is out of date: run npm run generate:api-types`).toBe(
      true,
    );
  }, 120_000);

  it('gives every operation a summary, a tag and a unique camelCase operationId', () => {
    const ops = operations();
    expect(ops.length).toBeGreaterThan(100);
    const missing = ops.filter(({ op }) => !op.summary?.trim()).map(({ route }) => route);
    expect(missing, 'operations without a summary').toEqual([]);
    for (const { route, op } of ops) {
      expect(op.operationId, route).toMatch(OPERATION_ID_PATTERN);
      expect(op.tags?.length, route).toBeGreaterThan(0);
    }
    const ids = ops.map(({ op }) => op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('gives every /api route the security of its declared policy (none for public routes)', () => {
    expect(t.app.routePolicies.length).toBeGreaterThan(100);
    for (const { method, url, policy } of t.app.routePolicies) {
      const path = url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[method.toLowerCase()];
      expect(op?.security, `${method} ${url}`).toEqual(securityOf(policy));
    }
    expect(doc.paths['/api/health']?.get?.security).toEqual([]);
    expect(doc.paths['/api/auth/login']?.post?.security).toEqual([]);
    expect(doc.paths['/api/sdk/events']?.post?.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths['/api/flows']?.post?.security).toEqual([
      { bearerAuth: ['EDITOR'] },
      { sessionCookie: ['EDITOR'] },
    ]);
    expect(doc.paths['/api/admin/tenants/{id}/subscription']?.put?.security).toEqual([{ platformAdmin: [] }]);
  });

  it('documents error answers as named responses that share the Error envelope', () => {
    for (const { route, op } of operations()) {
      expect(op.responses.default, route).toEqual({ $ref: '#/components/responses/UnexpectedError' });
      expect(op.responses['400'], route).toEqual({ $ref: '#/components/responses/BadRequest' });
      for (const [status, response] of Object.entries(op.responses)) {
        // The health check answers 503 with its own report (which check is down), not an error.
        if (route === 'GET /api/health' && status === '503') continue;
        if (status === 'default' || Number(status) >= 400) {
          expect(response.$ref, `${route} ${status}`).toMatch(/^#\/components\/responses\/[A-Za-z]+$/);
        }
      }
    }
    for (const [name, response] of Object.entries(doc.components.responses)) {
      expect(response, name).toMatchObject({
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      });
    }
    expect(doc.paths['/api/flows/{id}']?.get?.responses['404']).toEqual({
      $ref: '#/components/responses/NotFound',
    });
    const error = doc.components.schemas.Error as {
      properties: { error: { properties: Record<string, unknown> } };
    };
    expect(error.properties.error.properties.code).toMatchObject({
      enum: expect.arrayContaining(['VALIDATION_ERROR', 'CONTENT_NOT_FOUND', 'INVALID_STATE_TRANSITION']),
    });
  });

  it('names the recursive rule tree, and the audience bodies and records reference it', () => {
    const input = doc.components.schemas.RuleTreeInput as { properties: { rules: { items: unknown } } };
    expect(input.properties.rules.items).toEqual({ $ref: '#/components/schemas/RuleTreeInput' });
    const output = doc.components.schemas.RuleTree as { properties: { rules: { items: unknown } } };
    expect(output.properties.rules.items).toEqual({ $ref: '#/components/schemas/RuleTree' });
    const bodyRuleTree = (method: 'post' | 'patch', path: string) => {
      const body = doc.paths[path]![method]!.requestBody!.content['application/json']!.schema;
      return (body as { properties: { ruleTree: unknown } }).properties.ruleTree;
    };
    expect(bodyRuleTree('post', '/api/audiences')).toEqual({ $ref: '#/components/schemas/RuleTreeInput' });
    expect(bodyRuleTree('patch', '/api/audiences/{id}')).toEqual({
      $ref: '#/components/schemas/RuleTreeInput',
    });
    expect(JSON.stringify(doc.paths['/api/audiences/{id}']?.get?.responses['200'])).toContain(
      '"ruleTree":{"$ref":"#/components/schemas/RuleTree"}',
    );
  });

  it('resolves every $ref', () => {
    const refs = new Set<string>();
    JSON.stringify(doc, (key, value) => {
      if (key === '$ref') refs.add(value);
      return value;
    });
    expect(refs.size).toBeGreaterThan(5);
    for (const ref of refs) {
      const [, kind, name] = ref.match(/^#\/components\/(schemas|responses)\/(.+)$/) ?? [];
      expect(kind && name && doc.components[kind as 'schemas' | 'responses'][name], ref).toBeTruthy();
    }
  });

  it('names its server, license and tags', () => {
    expect(doc.servers).toEqual([{ url: '/', description: expect.any(String) }]);
    expect(doc.info).toMatchObject({
      license: { name: 'MIT', identifier: 'MIT' },
      version: expect.any(String),
    });
    const declared = new Set((doc.tags as { name: string }[]).map((tag) => tag.name));
    for (const { route, op } of operations())
      for (const tag of op.tags ?? []) expect(declared, route).toContain(tag);
  });
});

// Checked by `npm run typecheck`: the committed types are importable and say what the code says.
describe('@guidance/api-types', () => {
  it('types error codes and operations as the service defines them', () => {
    expectTypeOf<SchemaError['error']['code']>().toEqualTypeOf<ErrorCode>();
    expectTypeOf<SchemaSdkEventInput['type']>().toEqualTypeOf<EventType>();
    expectTypeOf<SchemaSdkSession['flows']>().toEqualTypeOf<SchemaFlow[]>();
    type CreateAudience = paths['/api/audiences']['post']['requestBody']['content']['application/json'];
    expectTypeOf<CreateAudience['ruleTree']>().toEqualTypeOf<SchemaRuleTreeInput>();
    type Health = paths['/api/health']['get']['responses'][200]['content']['application/json'];
    expectTypeOf<Health['data']['status']>().toEqualTypeOf<'ok' | 'degraded'>();
  });
});
