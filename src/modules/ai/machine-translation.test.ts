import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type AiTestApp, configureAi, createAiTestApp } from '../../../test/helpers/ai.js';
import { expectError } from '../../../test/helpers/app.js';
import {
  type Actor,
  callAs,
  createFlow,
  createTenant,
  TEST_SITE_ID,
  type TenantFixture,
} from '../../../test/helpers/factories.js';
import type { FakeRequest, Reply } from '../../../test/helpers/fake-ai-provider.js';

let env: AiTestApp;
beforeAll(async () => {
  env = await createAiTestApp();
});
afterAll(() => env.close());
beforeEach(() => {
  env.fake.requests.length = 0;
});

/** A model that "translates" each text it is given by prefixing it with FR:. */
const frenchModel = (request: FakeRequest): Reply => {
  const texts = [...request.text.matchAll(/<text id="(t\d+)">([\s\S]*?)<\/text>/g)];
  return { json: { translations: texts.map(([, id, text]) => ({ id, text: `FR: ${text}` })) } };
};

async function tenantWithLocales() {
  const tenant = await createTenant(env.t);
  await configureAi(env.t, tenant);
  for (const [code, name] of [
    ['en', 'English'],
    ['fr', 'French'],
  ]) {
    const res = await callAs(env.t, tenant, 'POST', '/api/translations/locales', {
      code,
      name,
      isDefault: code === 'en',
      isRtl: false,
    });
    expect(res.statusCode, res.body).toBe(201);
  }
  return tenant;
}

const translate = (who: TenantFixture | Actor, body: Record<string, unknown>) =>
  callAs(env.t, who, 'POST', '/api/ai/translate', body);

async function tooltip(tenant: TenantFixture) {
  const res = await callAs(env.t, tenant, 'POST', '/api/content/tooltips', {
    name: 'Export tip',
    siteId: TEST_SITE_ID,
    targetSelector: '#export',
    content: { text: 'Export your report as CSV' },
  });
  return res.json().data.id as string;
}

describe('POST /api/ai/translate', () => {
  it('writes the translations of a tooltip, which the translations API then lists', async () => {
    const tenant = await tenantWithLocales();
    const id = await tooltip(tenant);
    env.fake.enqueue('chat', frenchModel);
    const res = await translate(tenant, { contentType: 'tooltip', contentId: id, locale: 'fr' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data).toEqual({
      locale: 'fr',
      translated: [
        {
          contentType: 'tooltip',
          contentId: id,
          fieldName: 'content.text',
          value: 'FR: Export your report as CSV',
          version: 1,
        },
      ],
      skipped: [],
      tokensUsed: 150,
    });
    const [call] = env.fake.callsOf('chat');
    expect(call!.text).toContain('French (fr)');
    const listed = await callAs(env.t, tenant, 'GET', `/api/translations?contentId=${id}&localeCode=fr`);
    expect(
      listed.json().data.map((t: { fieldName: string; value: string }) => [t.fieldName, t.value]),
    ).toEqual([['content.text', 'FR: Export your report as CSV']]);
  });

  it('translates every step text of a flow, under flow-step', async () => {
    const tenant = await tenantWithLocales();
    const flow = await createFlow(env.t, tenant, {
      steps: [
        { type: 'MODAL', content: { title: 'Welcome', body: 'Let us look around' } },
        {
          type: 'TOOLTIP',
          targetSelector: '#a',
          content: { title: 'Projects', buttons: [{ label: 'Next' }] },
        },
      ],
    });
    env.fake.enqueue('chat', frenchModel);
    const res = await translate(tenant, { contentType: 'flow', contentId: flow.id, locale: 'FR' });
    expect(res.statusCode, res.body).toBe(200);
    const rows = res
      .json()
      .data.translated.map(
        (t: { contentType: string; contentId: string; fieldName: string; value: string }) => [
          t.contentType,
          t.contentId,
          t.fieldName,
          t.value,
        ],
      );
    // jsonb keeps its own key order: compare as sets.
    expect(rows.sort()).toEqual(
      [
        ['flow-step', flow.steps[0]!.id, 'content.title', 'FR: Welcome'],
        ['flow-step', flow.steps[0]!.id, 'content.body', 'FR: Let us look around'],
        ['flow-step', flow.steps[1]!.id, 'content.title', 'FR: Projects'],
        ['flow-step', flow.steps[1]!.id, 'content.buttons.0.label', 'FR: Next'],
      ].sort(),
    );
  });

  it('keeps existing translations unless asked to overwrite them', async () => {
    const tenant = await tenantWithLocales();
    const id = await tooltip(tenant);
    env.fake.enqueue('chat', frenchModel);
    await translate(tenant, { contentType: 'tooltip', contentId: id, locale: 'fr' });
    env.fake.requests.length = 0;

    const again = await translate(tenant, { contentType: 'tooltip', contentId: id, locale: 'fr' });
    expect(again.json().data).toEqual({
      locale: 'fr',
      translated: [],
      skipped: [{ contentId: id, fieldName: 'content.text', reason: 'already translated' }],
      tokensUsed: 0,
    });
    expect(env.fake.callsOf('chat')).toHaveLength(0);

    env.fake.enqueue('chat', {
      json: { translations: [{ id: 't1', text: 'Exportez votre rapport en CSV' }] },
    });
    const overwritten = await translate(tenant, {
      contentType: 'tooltip',
      contentId: id,
      locale: 'fr',
      overwrite: true,
    });
    expect(overwritten.json().data.translated).toEqual([
      expect.objectContaining({ value: 'Exportez votre rapport en CSV', version: 2 }),
    ]);
  });

  it('respects versions: a translation written while the model ran is not overwritten', async () => {
    const tenant = await tenantWithLocales();
    const id = await tooltip(tenant);
    env.fake.enqueue('chat', async (request) => {
      // Someone translates the field by hand while the model is working.
      const human = await callAs(env.t, tenant, 'POST', '/api/translations', {
        contentType: 'tooltip',
        contentId: id,
        fieldName: 'content.text',
        localeCode: 'fr',
        value: 'Exportez (humain)',
      });
      expect(human.statusCode).toBe(201);
      return frenchModel(request);
    });
    const res = await translate(tenant, { contentType: 'tooltip', contentId: id, locale: 'fr' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.translated).toEqual([]);
    expect(res.json().data.skipped).toEqual([
      { contentId: id, fieldName: 'content.text', reason: 'changed meanwhile' },
    ]);
    const listed = await callAs(env.t, tenant, 'GET', `/api/translations?contentId=${id}`);
    expect(listed.json().data.map((t: { value: string }) => t.value)).toEqual(['Exportez (humain)']);
  });

  it('repairs an answer that misses a text, and writes nothing when the repair fails too', async () => {
    const tenant = await tenantWithLocales();
    const res = await callAs(env.t, tenant, 'POST', '/api/content/surveys', {
      name: 'Feedback',
      siteId: TEST_SITE_ID,
      questions: [
        { type: 'SINGLE_CHOICE', question: 'Your role?', options: { choices: ['PM', 'Developer'] } },
      ],
    });
    const id = res.json().data.id;
    env.fake.enqueue('chat', { json: { translations: [{ id: 't1', text: 'Votre rôle ?' }] } }, frenchModel);
    const ok = await translate(tenant, { contentType: 'survey', contentId: id, locale: 'fr' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json().data.translated.map((t: { fieldName: string }) => t.fieldName)).toEqual([
      'questions.0.question',
      'questions.0.options.choices.0',
      'questions.0.options.choices.1',
    ]);
    const [, repair] = env.fake.callsOf('chat');
    expect(repair!.text).toMatch(/missing: t2, t3/);

    const other = await tooltip(tenant);
    env.fake.enqueue('chat', { json: { translations: [] } }, { json: { nope: 1 } });
    expectError(
      await translate(tenant, { contentType: 'tooltip', contentId: other, locale: 'fr' }),
      500,
      'EXTERNAL_SERVICE_ERROR',
    );
    expect((await callAs(env.t, tenant, 'GET', `/api/translations?contentId=${other}`)).json().data).toEqual(
      [],
    );
  });

  it('answers 400 for an unknown locale and 404 for content it cannot see, before calling the provider', async () => {
    const tenant = await tenantWithLocales();
    const id = await tooltip(tenant);
    const err = expectError(
      await translate(tenant, { contentType: 'tooltip', contentId: id, locale: 'de' }),
      400,
      'VALIDATION_ERROR',
    );
    expect(err.details).toEqual([expect.objectContaining({ path: 'locale' })]);
    expectError(
      await translate(tenant, { contentType: 'tooltip', contentId: 'nope', locale: 'fr' }),
      404,
      'CONTENT_NOT_FOUND',
    );
    expectError(
      await translate(tenant, { contentType: 'beacon', contentId: id, locale: 'fr' }),
      404,
      'CONTENT_NOT_FOUND',
    );
    const other = await tenantWithLocales();
    expectError(
      await translate(other, { contentType: 'tooltip', contentId: id, locale: 'fr' }),
      404,
      'CONTENT_NOT_FOUND',
    );
    const viewer = await tenant.as('VIEWER');
    expectError(
      await translate(viewer, { contentType: 'tooltip', contentId: id, locale: 'fr' }),
      403,
      'INSUFFICIENT_ROLE',
    );
    expect(env.fake.callsOf('chat')).toHaveLength(0);
  });
});
