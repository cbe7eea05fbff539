import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createOperationIdRegistry, deriveOperationId, OPERATION_ID_PATTERN } from './operation-ids.js';

describe('deriveOperationId', () => {
  it.each([
    ['GET', '/api/flows', 'getFlows'],
    ['POST', '/api/flows', 'postFlows'],
    ['GET', '/api/flows/:id', 'getFlow'],
    ['PATCH', '/api/flows/:id', 'patchFlow'],
    ['GET', '/api/flows/:id/steps', 'getFlowSteps'],
    ['DELETE', '/api/flows/:id/steps/:stepId', 'deleteFlowStep'],
    ['POST', '/api/flows/:id/steps/reorder', 'postFlowStepsReorder'],
    ['POST', '/api/flows/:id/publish', 'postFlowPublish'],
    ['POST', '/api/auth/password-reset/request', 'postAuthPasswordResetRequest'],
    ['GET', '/api/tenants/api-keys/:id', 'getTenantsApiKey'],
    ['GET', '/api/nps-surveys/:id/responses', 'getNpsSurveyResponses'],
    ['PUT', '/api/admin/tenants/:id/subscription', 'putAdminTenantSubscription'],
    ['GET', '/api/analytics/flows/:flowId', 'getAnalyticsFlow'],
    ['GET', '/sdk/guidance.js', 'getSdkGuidanceJs'],
    ['GET', '/api/flows/{id}', 'getFlow'],
    ['GET', '/', 'getRoot'],
  ])('%s %s → %s', (method, url, id) => {
    expect(deriveOperationId(method, url)).toBe(id);
  });

  it('singularises irregular plurals before a parameter, and leaves a word without a plural as it is', () => {
    expect(deriveOperationId('GET', '/api/categories/:id')).toBe('getCategory');
    expect(deriveOperationId('GET', '/api/statuses/:id')).toBe('getStatus');
    expect(deriveOperationId('GET', '/api/content/self-help/:id')).toBe('getContentSelfHelp');
    expect(deriveOperationId('GET', '/api/content/self-help')).toBe('getContentSelfHelp');
  });

  const word = fc.stringMatching(/^[a-z][a-z0-9]{0,8}(-[a-z0-9]{1,6})?$/);
  const param = fc.stringMatching(/^[a-zA-Z]{1,8}$/);
  const path = fc.array(
    fc.oneof(
      word.map((w) => ({ w })),
      param.map((p) => ({ p })),
    ),
    { maxLength: 6 },
  );
  const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE');
  const render = (segments: ({ w: string } | { p: string })[], style: 'colon' | 'brace') =>
    `/api/${segments.map((s) => ('w' in s ? s.w : style === 'colon' ? `:${s.p}` : `{${s.p}}`)).join('/')}`;

  it('always gives a camelCase id that starts with the method', () => {
    fc.assert(
      fc.property(method, path, (m, segments) => {
        const id = deriveOperationId(m, render(segments, 'colon'));
        expect(id).toMatch(OPERATION_ID_PATTERN);
        expect(id.startsWith(m.toLowerCase())).toBe(true);
      }),
    );
  });

  it('does not depend on parameter names or on how parameters are written', () => {
    fc.assert(
      fc.property(method, path, param, (m, segments, other) => {
        const renamed = segments.map((s) => ('p' in s ? { p: other } : s));
        const id = deriveOperationId(m, render(segments, 'colon'));
        expect(deriveOperationId(m, render(renamed, 'colon'))).toBe(id);
        expect(deriveOperationId(m, render(segments, 'brace'))).toBe(id);
      }),
    );
  });

  it('tells methods apart on the same path', () => {
    fc.assert(
      fc.property(path, (segments) => {
        const url = render(segments, 'colon');
        const ids = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].map((m) => deriveOperationId(m, url));
        expect(new Set(ids).size).toBe(5);
      }),
    );
  });
});

describe('the operationId registry', () => {
  it('hands out derived and explicit ids and refuses a clash, naming both routes', () => {
    const ids = createOperationIdRegistry();
    expect(ids.claim('GET', '/api/flows/:id')).toBe('getFlow');
    expect(ids.claim('GET', '/api/flows')).toBe('getFlows');
    expect(ids.claim('POST', '/api/flows/:id/clone', 'cloneFlow')).toBe('cloneFlow');
    expect(() => ids.claim('GET', '/api/flow/:id')).toThrow(
      'operationId "getFlow" of GET /api/flow/:id is already used by GET /api/flows/:id',
    );
    expect(() => ids.claim('POST', '/api/copies', 'cloneFlow')).toThrow(
      /already used by POST \/api\/flows\/:id\/clone/,
    );
  });

  it('refuses an explicit id that is not camelCase', () => {
    const ids = createOperationIdRegistry();
    for (const bad of ['GetFlow', 'get-flow', 'get flow', '', 42]) {
      expect(() => ids.claim('GET', '/api/flows', bad)).toThrow(/is not camelCase/);
    }
  });
});
