import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AiTestApp, configureAi, createAiTestApp } from '../../../test/helpers/ai.js';
import { callAs, createTenant, TEST_SITE_ID, type TenantFixture } from '../../../test/helpers/factories.js';
import { type FakeRequest, type Reply, sentSchema } from '../../../test/helpers/fake-ai-provider.js';
import { minimalInstance } from '../../../test/helpers/wire-instances.js';

/**
 * A provider that answers the smallest object the JSON schema it is sent allows (as strict
 * structured output does when a field is optional), over HTTP, for every generation path: each
 * answer is a useful result, and what is generated can be created.
 */

let env: AiTestApp;
beforeAll(async () => {
  // nothing here tests the deadline: room for a loaded machine
  env = await createAiTestApp({ requestTimeoutMs: 15_000 });
});
afterAll(() => env.close());
beforeEach(() => {
  env.fake.requests.length = 0;
});

/** Answers the minimal instance of the schema the request sent, alternative `pick` of each anyOf. */
const minimalReply =
  (pick = 0) =>
  (request: FakeRequest): Reply => {
    const schema = sentSchema(request);
    if (!schema) throw new Error('the request sent no JSON schema');
    return { json: minimalInstance(schema, pick, 1) };
  };

async function aiTenant(provider: 'OPENAI' | 'CLAUDE' | 'GEMINI' = 'OPENAI'): Promise<TenantFixture> {
  const tenant = await createTenant(env.t);
  await configureAi(env.t, tenant, provider);
  return tenant;
}

/** Leaves of a rule tree. */
const leaves = (node: Record<string, unknown>): Record<string, unknown>[] =>
  Array.isArray(node.rules) ? (node.rules as Record<string, unknown>[]).flatMap(leaves) : [node];

describe('minimal answers over HTTP', { timeout: 120_000 }, () => {
  it.each([
    ['a 1-character description', 'x'],
    ['a 500-character description', 'Customers on the pro plan who use a phone. '.repeat(12).slice(0, 500)],
  ])(
    'suggest-audience with %s answers a rule tree with at least one rule that can be saved',
    async (_, description) => {
      expect(description.length === 1 || description.length === 500).toBe(true);
      const tenant = await aiTenant();
      for (const pick of [0, 1, 2, 3, 4, 5, 6]) {
        env.fake.enqueue('chat', minimalReply(pick));
        const res = await callAs(env.t, tenant, 'POST', '/api/ai/suggest-audience', { description });
        expect(res.statusCode, res.body).toBe(200);
        const { name, ruleTree } = res.json().data;
        expect(leaves(ruleTree).length).toBeGreaterThanOrEqual(1);
        for (const leaf of leaves(ruleTree)) expect(leaf).toMatchObject({ field: expect.any(String) });
        const saved = await callAs(env.t, tenant, 'POST', '/api/audiences', { name, ruleTree });
        expect(saved.statusCode, saved.body).toBe(201);
      }
      expect(env.fake.callsOf('chat')).toHaveLength(7); // no repair round was needed
    },
  );

  it('suggest-flow answers 1 to 20 steps that POST /api/flows accepts', async () => {
    const tenant = await aiTenant();
    for (const pick of [0, 1]) {
      env.fake.enqueue('chat', minimalReply(pick));
      const res = await callAs(env.t, tenant, 'POST', '/api/ai/suggest-flow', { goal: 'x' });
      expect(res.statusCode, res.body).toBe(200);
      const { steps, suggestion } = res.json().data;
      expect(suggestion).toMatch(/\S/);
      expect(steps.length).toBeGreaterThanOrEqual(1);
      expect(steps.length).toBeLessThanOrEqual(20);
      expect(steps[0].content).toEqual({
        title: expect.stringMatching(/\S/),
        body: expect.stringMatching(/\S/),
      });
      const created = await callAs(env.t, tenant, 'POST', '/api/flows', {
        name: 'Suggested',
        siteId: TEST_SITE_ID,
        template: 'CUSTOM',
        steps,
      });
      expect(created.statusCode, created.body).toBe(201);
    }
    expect(env.fake.callsOf('chat')).toHaveLength(2);
  });

  const CHILDREN: Record<string, [string, number] | null> = {
    flow: ['steps', 1],
    survey: ['questions', 1],
    'task-list': ['items', 1],
    tooltip: null,
    beacon: null,
    announcement: null,
  };

  it.each(Object.keys(CHILDREN))(
    'generate-content and commit-content for %s: the minimal answer is generated and committed',
    async (type) => {
      const tenant = await aiTenant();
      for (const pick of [0, 1, 2]) {
        env.fake.enqueue('chat', minimalReply(pick));
        const generated = await callAs(env.t, tenant, 'POST', '/api/ai/generate-content', {
          type,
          siteId: TEST_SITE_ID,
          description: 'x',
        });
        expect(generated.statusCode, generated.body).toBe(200);
        const { aiData, preview } = generated.json().data;
        expect(preview.title).toMatch(/\S/);
        const committed = await callAs(env.t, tenant, 'POST', '/api/ai/commit-content', {
          type,
          siteId: TEST_SITE_ID,
          aiData,
        });
        expect(committed.statusCode, committed.body).toBe(201);
        const children = CHILDREN[type];
        if (children) {
          const [key, least] = children;
          const ids = committed.json().data.createdSubItemIds[key] as unknown[];
          expect(ids.length).toBeGreaterThanOrEqual(least);
          expect(ids.length).toBeLessThanOrEqual(20);
        }
      }
      expect(env.fake.callsOf('chat')).toHaveLength(3);
    },
  );

  it.each(['CLAUDE', 'GEMINI'] as const)(
    'through %s too (the schema in its own wire format)',
    async (provider) => {
      const tenant = await aiTenant(provider);
      env.fake.enqueue('chat', minimalReply(1));
      const res = await callAs(env.t, tenant, 'POST', '/api/ai/generate-content', {
        type: 'task-list',
        siteId: TEST_SITE_ID,
        description: 'x',
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().data.aiData.items).toHaveLength(1);
      // a schema with $defs (the rule leaf, shared by every level) arrives whole
      env.fake.enqueue('chat', minimalReply(3));
      const audience = await callAs(env.t, tenant, 'POST', '/api/ai/suggest-audience', { description: 'x' });
      expect(audience.statusCode, audience.body).toBe(200);
      expect(leaves(audience.json().data.ruleTree).length).toBeGreaterThanOrEqual(1);
      expect(env.fake.callsOf('chat')).toHaveLength(2);
    },
  );

  it('journey drafts: a minimal draft breaks graph rules, which the repair names; the prompt’s example is publishable', async () => {
    const tenant = await aiTenant();
    const exampleOf = (request: FakeRequest): Reply => {
      const prompt = env.fake.callsOf('chat')[0]!.text;
      const line = prompt.split('A small valid answer, for its shape only:\n')[1]!.split('\n')[0]!;
      expect(request.kind).toBe('chat');
      return { json: JSON.parse(line) };
    };
    env.fake.enqueue('chat', minimalReply(0), exampleOf);
    const res = await callAs(env.t, tenant, 'POST', '/api/ai/generate-content', {
      type: 'journey',
      siteId: TEST_SITE_ID,
      description: 'x',
    });
    expect(res.statusCode, res.body).toBe(200);
    const [, repair] = env.fake.callsOf('chat');
    const turn = repair!.text.slice(repair!.text.lastIndexOf('That answer is invalid'));
    expect(turn).toContain('Rules it breaks:');
    expect(turn).toMatch(/- (Every node has its own key|A journey has exactly one TRIGGER)/);
    const committed = await callAs(env.t, tenant, 'POST', '/api/ai/commit-content', {
      type: 'journey',
      siteId: TEST_SITE_ID,
      aiData: res.json().data.aiData,
    });
    expect(committed.statusCode, committed.body).toBe(201);
    const id = committed.json().data.parentId;
    const published = await callAs(env.t, tenant, 'POST', `/api/journeys/${id}/publish`);
    expect(published.statusCode, published.body).toBe(200);
  });
});
