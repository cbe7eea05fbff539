import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../../examples/demo/server.js';
import { freePort } from '../helpers/server-process.js';
import {
  eventually,
  flush,
  hostPage,
  type InitOptions,
  launchBrowser,
  onPath,
  publishContent,
  publishFlow,
  SITE,
  type Stack,
  serveHost,
  startStack,
  watch,
} from './helpers.js';

/** Content in a real browser: answers recorded, isolation from hostile CSS, a service that is down, click analytics. */
let stack: Stack;
let browser: Browser;
let host: DemoServer;
let context: BrowserContext;
const pages: Record<string, string> = {};

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  host = await serveHost(stack, pages);
});
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await stack?.close();
});
afterEach(async () => {
  await context?.close();
});

async function open(path: string, opts: { body?: string; head?: string; init?: InitOptions } = {}) {
  pages[path] = hostPage(stack, opts);
  context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(host.url + path);
  await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
  return { page, seen };
}

const urlMatch = (path: string) => ({ type: 'url_match', matchType: 'contains', pattern: path });

describe('surveys and NPS', () => {
  it('records a survey answered in the page', async () => {
    const survey = await publishContent(stack, 'surveys', {
      name: 'Editor feedback',
      triggerConfig: urlMatch('/c/survey'),
      questions: [
        { key: 'rating', type: 'RATING', question: 'How do you rate the editor?', required: true },
        {
          key: 'role',
          type: 'SINGLE_CHOICE',
          question: 'Your role?',
          options: { choices: ['Design', 'Engineering'] },
        },
        {
          key: 'likes',
          type: 'MULTIPLE_CHOICE',
          question: 'What do you use?',
          options: { choices: ['Docs', 'Boards', 'Chat'] },
        },
        { key: 'recommend', type: 'BOOLEAN', question: 'Would you recommend it?' },
        { key: 'comment', type: 'TEXT', question: 'Anything else?' },
      ],
    });
    const { page, seen } = await open('/c/survey', { init: { userId: 'surveyed' } });
    const dialog = page.getByRole('dialog', { name: 'Editor feedback' });
    await dialog.waitFor();
    // a required question left out is pointed at, not sent
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('alert').filter({ hasText: 'Please answer this question' }).waitFor();
    await page.getByRole('button', { name: '4', exact: true }).click();
    await page.getByLabel('Design').check();
    await page.getByLabel('Docs').check();
    await page.getByLabel('Chat').check();
    await page.getByRole('button', { name: 'Yes' }).click();
    await page.getByRole('textbox', { name: 'Anything else?' }).fill('Dark mode please');
    await page.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('dialog', { name: 'Thank you!' }).waitFor();
    await flush(page);
    expect(seen.of('SURVEY_RESPONSE')).toEqual([
      expect.objectContaining({
        userId: 'surveyed',
        properties: expect.objectContaining({
          surveyId: survey.id,
          contentId: survey.id,
          answers: {
            rating: 4,
            role: 'Design',
            likes: ['Docs', 'Chat'],
            recommend: true,
            comment: 'Dark mode please',
          },
        }),
      }),
    ]);
    const responses = await eventually(async () => {
      const res = await fetch(`${stack.service.url}/api/content/surveys/${survey.id}/responses`, {
        headers: { authorization: `Bearer ${stack.store.ownerToken}` },
      });
      const list = (await res.json()).data as { response: Record<string, unknown> }[];
      return list.length > 0 ? list : undefined;
    });
    expect(responses[0]!.response).toEqual({
      rating: 4,
      role: 'Design',
      likes: ['Docs', 'Chat'],
      recommend: true,
      comment: 'Dark mode please',
    });
  });

  it('records an NPS score (buttons named 0…10) with its follow-up comment', async () => {
    const nps = await stack.call('POST', '/api/nps-surveys', {
      name: 'NPS',
      siteId: SITE,
      question: 'How likely are you to recommend us?',
      followUpQuestion: 'Why that score?',
      triggerConfig: urlMatch('/c/nps'),
    });
    await stack.call('POST', `/api/nps-surveys/${nps.id}/publish`);
    const { page, seen } = await open('/c/nps', { init: { userId: 'promoter' } });
    const dialog = page.getByRole('dialog', { name: 'How likely are you to recommend us?' });
    await dialog.waitFor();
    for (let score = 0; score <= 10; score++) {
      expect(await dialog.getByRole('button', { name: String(score), exact: true }).count()).toBe(1);
    }
    await dialog.getByRole('button', { name: '9', exact: true }).click();
    await dialog.getByRole('textbox', { name: 'Why that score?' }).fill('Fast and friendly');
    await dialog.getByRole('button', { name: 'Submit' }).click();
    await page.getByRole('dialog', { name: 'Thank you!' }).waitFor();
    await flush(page);
    expect(seen.of('NPS_RESPONSE')[0]!.properties).toMatchObject({
      npsSurveyId: nps.id,
      score: 9,
      comment: 'Fast and friendly',
    });
    const responses = await eventually(async () => {
      const list = (await stack.call('GET', `/api/nps-surveys/${nps.id}/responses`)) as unknown as {
        score: number;
        comment: string;
      }[];
      return list.length > 0 ? list : undefined;
    });
    expect(responses[0]).toMatchObject({ score: 9, comment: 'Fast and friendly' });
  });
});

describe('content', () => {
  it('shows tooltips, beacons and announcements where their URL matches, and reports render and dismissal', async () => {
    const tip = await publishContent(stack, 'tooltips', {
      name: 'Save tip',
      targetSelector: '#save',
      targetUrl: '/c/items',
      position: 'RIGHT',
      content: { text: 'Saves a draft every minute.' },
    });
    const beacon = await publishContent(stack, 'beacons', {
      name: 'Export beacon',
      targetSelector: '#export',
      targetUrl: '/c/items',
      content: { title: 'Exports', message: 'CSV or PDF.' },
    });
    const news = await publishContent(stack, 'announcements', {
      name: 'News',
      type: 'SLIDEOUT',
      triggerConfig: urlMatch('/c/items'),
      content: { title: 'Fresh features', body: 'Have a look.' },
    });
    await publishContent(stack, 'announcements', {
      name: 'Elsewhere',
      type: 'MODAL',
      triggerConfig: urlMatch('/c/other-page'),
      content: { title: 'Not on this page' },
    });
    const body =
      '<button id="save">Save</button> <button id="export" style="margin-left:300px">Export</button>';
    const { page, seen } = await open('/c/items', { body });
    const tooltip = page.getByRole('dialog', { name: 'Saves a draft every minute.' });
    await tooltip.waitFor();
    const [t, target] = await Promise.all([tooltip.boundingBox(), page.locator('#save').boundingBox()]);
    expect(t!.x).toBeGreaterThan(target!.x + target!.width); // placed on the RIGHT
    await page.getByRole('dialog', { name: 'Fresh features' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Not on this page' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Exports' }).click();
    const hint = page.getByRole('dialog', { name: 'Exports' });
    await hint.waitFor();
    await hint.getByRole('button', { name: 'Close' }).click();
    await tooltip.getByRole('button', { name: 'Close' }).click();
    await page
      .getByRole('dialog', { name: 'Fresh features' })
      .getByRole('button', { name: 'Got it' })
      .click();
    await eventually(async () => (await page.getByRole('dialog').count()) === 0);
    await flush(page);
    // (this tenant's checklist and help widget, from other tests, render on every page too)
    const rendered = seen
      .of('CONTENT_RENDERED')
      .filter((e) => ['tooltips', 'beacons', 'announcements'].includes(e.properties?.contentType as string))
      .map((e) => e.properties?.contentId);
    expect(new Set(rendered)).toEqual(new Set([tip.id, beacon.id, news.id]));
    expect(
      seen
        .of('FLOW_DISMISSED')
        .map((e) => e.properties?.contentId)
        .sort(),
    ).toEqual([tip.id, beacon.id].sort());
    expect(seen.of('FLOW_COMPLETED')[0]!.properties).toMatchObject({
      contentId: news.id,
      contentType: 'announcements',
    });
    // dismissed and completed items are not shown again
    await page.reload();
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    await page.waitForTimeout(800);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('opens a task list from its launcher and ticks items as they are done', async () => {
    const flow = await publishFlow(stack, {
      name: 'Profile tour',
      trigger: { type: 'MANUAL', config: {} },
      steps: [{ type: 'MODAL', content: { title: 'Your profile' } }],
    });
    const list = await publishContent(stack, 'task-lists', {
      name: 'Setup checklist',
      description: 'Three steps.',
      items: [
        { title: 'Take the profile tour', actionType: 'COMPLETE_FLOW', actionConfig: { flowId: flow.id } },
        { title: 'Fill in your name', actionType: 'FILL_FORM', actionConfig: { selector: '#name' } },
        { title: 'Open settings', actionType: 'NAVIGATE', actionConfig: { url: '/c/tasks#settings' } },
      ],
    });
    const { page, seen } = await open('/c/tasks', { body: '<input id="name" placeholder="Name">' });
    const launcher = page.getByRole('button', { name: /Setup checklist/ });
    const panel = page.getByRole('dialog', { name: 'Setup checklist' });
    expect(await launcher.textContent()).toContain('0/3');
    expect(await launcher.getAttribute('aria-expanded')).toBe('false');
    // NAVIGATE: to the url (here a new #fragment: an SPA navigation, so a new session); the tick stays
    await launcher.click();
    expect(await launcher.getAttribute('aria-expanded')).toBe('true');
    await panel.getByRole('checkbox', { name: 'Open settings' }).click();
    expect(page.url()).toContain('#settings');
    await eventually(async () => ((await launcher.textContent()) ?? '').includes('1/3'));
    // FILL_FORM: focuses the field
    await launcher.click();
    await panel.getByRole('checkbox', { name: 'Fill in your name' }).click();
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('name');
    // COMPLETE_FLOW: starts the flow; ticked when it completes
    await launcher.click();
    await panel.getByRole('checkbox', { name: 'Take the profile tour' }).click();
    expect(await launcher.textContent()).toContain('2/3');
    await page.getByRole('dialog', { name: 'Your profile' }).getByRole('button', { name: 'Done' }).click();
    expect(await launcher.textContent()).toContain('3/3');
    await launcher.click();
    for (const name of ['Take the profile tour', 'Fill in your name', 'Open settings']) {
      expect(await panel.getByRole('checkbox', { name }).getAttribute('aria-checked')).toBe('true');
    }
    await flush(page);
    expect(seen.of('CONTENT_SUBMISSION_PERSISTED')).toEqual([
      expect.objectContaining({
        properties: expect.objectContaining({ contentId: list.id, itemsCompleted: 3 }),
      }),
    ]);
    expect(seen.of('ELEMENT_INTERACTION').map((e) => e.properties?.actionType)).toEqual([
      'NAVIGATE',
      'FILL_FORM',
      'COMPLETE_FLOW',
    ]);
    expect(seen.of('FLOW_COMPLETED')[0]!.properties).toMatchObject({ flowId: flow.id });
    // a completed list is not offered again
    await page.reload();
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    await page.waitForTimeout(800);
    expect(await launcher.count()).toBe(0);
  });

  it('opens self-help, filters its articles, and asks the knowledge-base search hook', async () => {
    await publishContent(stack, 'self-help', {
      name: 'Help',
      config: { position: 'left', title: 'Need a hand?' },
      items: {
        articles: [
          { title: 'Invite a teammate', body: 'Use the Invite button.' },
          { title: 'Export to CSV', body: 'Projects → Export.' },
        ],
      },
    });
    const head = `<script>window.kb = async (q) => [{ title: 'KB: ' + q, body: 'From the knowledge base.' }];</script>`;
    pages['/c/help'] = hostPage(stack, { head }).replace(
      'Guidance.init({',
      'Guidance.init({"searchKnowledgeBase": (q) => window.kb(q),',
    );
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${host.url}/c/help`);
    await page.getByRole('button', { name: 'Help' }).click();
    const panel = page.getByRole('dialog', { name: 'Need a hand?' });
    await panel.waitFor();
    expect(await panel.getByRole('listitem').count()).toBe(2);
    await panel.getByRole('searchbox', { name: 'Search help' }).fill('export');
    await eventually(async () => (await panel.getByRole('listitem').count()) === 2);
    expect(await panel.getByRole('listitem').allInnerTexts()).toEqual(['Export to CSV', 'KB: export']);
    await panel.getByRole('button', { name: 'Export to CSV' }).click();
    expect(await panel.textContent()).toContain('Projects → Export.');
  });
});

describe('journeys and experiments as the session delivers them', () => {
  // The journey and experiment modules are not built yet (the service answers empty arrays):
  // the session answer is extended in the browser, as those modules will fill it.
  it('shows a journey item now with its journey context, and tags an experiment variant’s flow', async () => {
    const flow = await publishFlow(stack, {
      name: 'Variant B tour',
      trigger: onPath('/c/journey'),
      steps: [{ type: 'SLIDEOUT', content: { title: 'Variant B' } }],
    });
    const news = await publishContent(stack, 'announcements', {
      name: 'Journey step',
      type: 'MODAL',
      // on its own it would wait a minute on the page; as a journey step it shows now
      triggerConfig: { type: 'time_on_page', delay: 60_000 },
      content: { title: 'Step of a journey' },
    });
    const ids = {
      journeyId: '0190a000-0000-7000-8000-00000000a001',
      enrollmentId: '0190a000-0000-7000-8000-00000000a002',
      nodeId: '0190a000-0000-7000-8000-00000000a003',
      experimentId: '0190a000-0000-7000-8000-00000000b001',
      variantId: '0190a000-0000-7000-8000-00000000b002',
    };
    const missing = {
      ...ids,
      nodeId: '0190a000-0000-7000-8000-00000000a009',
      contentType: 'tooltips',
      contentId: '0190a000-0000-7000-8000-0000000000ff',
    };
    pages['/c/journey'] = hostPage(stack, { init: { userId: 'enrolled' } });
    context = await browser.newContext();
    await context.route('**/api/sdk/session', async (route) => {
      const response = await route.fetch();
      const body = await response.json();
      body.data.journeys = [
        {
          journeyId: ids.journeyId,
          enrollmentId: ids.enrollmentId,
          nodeId: ids.nodeId,
          contentType: 'announcements',
          contentId: news.id,
        },
        missing,
      ];
      body.data.experiments = [{ experimentId: ids.experimentId, variantId: ids.variantId, flowId: flow.id }];
      await route.fulfill({ response, json: body });
    });
    const page = await context.newPage();
    const seen = watch(page);
    await page.goto(`${host.url}/c/journey`);
    await page.getByRole('dialog', { name: 'Step of a journey' }).waitFor({ timeout: 5000 });
    await page.getByRole('dialog', { name: 'Variant B' }).waitFor();
    await page
      .getByRole('dialog', { name: 'Step of a journey' })
      .getByRole('button', { name: 'Got it' })
      .click();
    await page.getByRole('dialog', { name: 'Variant B' }).getByRole('button', { name: 'Done' }).click();
    await page.evaluate(
      (id) => (window as unknown as { Guidance: { conversion(id: string): void } }).Guidance.conversion(id),
      ids.experimentId,
    );
    await flush(page);
    const journey = { journeyId: ids.journeyId, enrollmentId: ids.enrollmentId, nodeId: ids.nodeId };
    expect(seen.of('CONTENT_RENDERED').find((e) => e.properties?.contentId === news.id)!.properties).toEqual({
      contentId: news.id,
      contentType: 'announcements',
      ...journey,
    });
    expect(seen.of('FLOW_COMPLETED').find((e) => e.properties?.contentId)!.properties).toMatchObject(journey);
    const experiment = { experimentId: ids.experimentId, variantId: ids.variantId };
    for (const type of ['FLOW_STARTED', 'STEP_VIEWED', 'STEP_COMPLETED']) {
      expect(seen.of(type)[0]!.properties, type).toMatchObject({ flowId: flow.id, ...experiment });
    }
    expect(seen.of('FLOW_COMPLETED').find((e) => e.properties?.flowId)!.properties).toMatchObject(experiment);
    expect(seen.of('EXPERIMENT_CONVERSION')[0]!.properties).toEqual(experiment);
    expect(seen.of('CONTENT_RENDER_FAILED')[0]!.properties).toMatchObject({
      ...missing,
      reason: 'NOT_IN_SESSION',
    });
    expect(seen.errors).toEqual([]);
  });
});

describe('isolation', () => {
  it('is not broken by hostile page CSS, and its own CSS does not leak into the page', async () => {
    await publishFlow(stack, {
      name: 'Styled tour',
      trigger: onPath('/c/hostile'),
      steps: [
        { type: 'MODAL', content: { title: 'Still readable', body: 'Whatever the page does.' } },
        { type: 'TOOLTIP', targetSelector: '#target', content: { title: 'Still anchored' } },
      ],
    });
    const head = `<style>
      * { font-family: "Comic Sans MS", cursive !important; color: red !important; line-height: 4 !important;
          letter-spacing: 4px !important; box-sizing: content-box !important; }
      div { display: none !important; }
      body > *:last-child, [data-guidance-root] { opacity: 0 !important; visibility: hidden !important; transform: scale(0.1) !important; }
      button { background: lime !important; padding: 30px !important; font-size: 28px !important; border: 5px dashed blue !important; }
      [role=dialog], .g-card, .g-btn { display: none !important; }
      h2 { font-size: 60px !important; }
    </style>`;
    const body = `<p id="target">Target paragraph</p>
      <section><button class="g-btn" id="page-button">Page button</button><p class="g-body" id="page-text">Page text</p></section>`;
    const { page } = await open('/c/hostile', { head, body });
    const dialog = page.getByRole('dialog', { name: 'Still readable' });
    await dialog.waitFor({ state: 'visible' });
    const box = await dialog.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    const styles = await page.evaluate(() => {
      const root = document.querySelector('[data-guidance-root]')!;
      const shadow = root.shadowRoot!;
      const next = shadow.querySelector('.g-btn') as HTMLElement;
      const title = shadow.querySelector('.g-title') as HTMLElement;
      const s = getComputedStyle(next);
      const t = getComputedStyle(title);
      const hostStyle = getComputedStyle(root);
      const pageButton = getComputedStyle(document.getElementById('page-button')!);
      const pageText = getComputedStyle(document.getElementById('page-text')!);
      return {
        host: { opacity: hostStyle.opacity, visibility: hostStyle.visibility, display: hostStyle.display },
        button: { background: s.backgroundColor, padding: s.padding, font: s.fontFamily, color: s.color },
        title: { size: t.fontSize, color: t.color, spacing: t.letterSpacing },
        pageButton: { background: pageButton.backgroundColor, position: pageButton.position },
        pageText: { margin: pageText.marginTop, whiteSpace: pageText.whiteSpace },
      };
    });
    expect(styles.host).toEqual({ opacity: '1', visibility: 'visible', display: 'inline' });
    expect(styles.button).toEqual({
      background: 'rgb(79, 70, 229)',
      padding: '7px 14px',
      font: expect.not.stringContaining('Comic'),
      color: 'rgb(255, 255, 255)',
    });
    expect(styles.title).toEqual({ size: '20px', color: 'rgb(31, 41, 55)', spacing: 'normal' });
    // the SDK's classes mean nothing outside its shadow root
    expect(styles.pageButton).toEqual({ background: 'rgb(0, 255, 0)', position: 'static' });
    expect(styles.pageText).toEqual({ margin: '16px', whiteSpace: 'normal' });
    await page.getByRole('button', { name: 'Next' }).click();
    const tip = page.getByRole('dialog', { name: 'Still anchored' });
    await tip.waitFor({ state: 'visible' });
    const [tipBox, target] = await Promise.all([tip.boundingBox(), page.locator('#target').boundingBox()]);
    expect(tipBox!.y).toBeGreaterThan(target!.y);
  });
});

describe('a service that is down or failing', () => {
  it('leaves the page working: no uncaught error, at most one console warning', async () => {
    const closed = await freePort();
    const body = `<button id="count" onclick="this.textContent = String(Number(this.textContent) + 1)">0</button>`;
    const { page, seen } = await open('/c/down', {
      body,
      init: { apiUrl: `http://127.0.0.1:${closed}`, userId: 'someone' },
    });
    await page.evaluate(async () => {
      type Api = {
        track(n: string, p: object): void;
        page(): void;
        startFlow(id: string): boolean;
        identify(u: string, t: object): Promise<void>;
        flush(): Promise<void>;
        reset(): void;
      };
      const g = (window as unknown as { Guidance: Api }).Guidance;
      g.track('clicked', { n: 1 });
      g.page();
      g.startFlow('0190a000-0000-7000-8000-000000000000');
      await g.identify('someone-else', { plan: 'pro' });
      await g.flush();
      g.reset();
      await g.flush();
    });
    await page.locator('#count').click();
    await page.locator('#count').click();
    expect(await page.locator('#count').textContent()).toBe('2');
    expect(seen.errors).toEqual([]);
    const ours = seen.scriptConsole();
    expect(ours.length).toBeLessThanOrEqual(1);
    expect(ours.every((m) => m.type === 'warning' && m.text.startsWith('[guidance]'))).toBe(true);
  });

  it('retries failed batches with backoff, honouring Retry-After, with the same event ids', async () => {
    const { page, seen } = await open('/c/retry', { init: { userId: 'retrier' } });
    // what the page shows by itself (this tenant's checklist and help widget) is reported first
    await page.waitForTimeout(1500);
    await flush(page);
    const attempts: { at: number; ids: string[] }[] = [];
    let refusals = 2;
    await page.route('**/api/sdk/events', async (route) => {
      const ids = (JSON.parse(route.request().postData() ?? '{}').events ?? []).map(
        (e: { id: string }) => e.id,
      );
      attempts.push({ at: Date.now(), ids });
      if (refusals-- > 0) {
        await route.fulfill({
          status: 503,
          headers: {
            'retry-after': '2',
            'access-control-allow-origin': '*',
            'access-control-expose-headers': 'retry-after',
            'content-type': 'application/json',
          },
          body: '{"error":{"code":"SERVICE_UNAVAILABLE"}}',
        });
      } else {
        await route.continue();
      }
    });
    await page.evaluate(() => {
      (window as unknown as { Guidance: { track(n: string): void; flush(): Promise<void> } }).Guidance.track(
        'retry me',
      );
      return (window as unknown as { Guidance: { flush(): Promise<void> } }).Guidance.flush();
    });
    await eventually(async () => attempts.length >= 3, 15_000);
    expect(attempts[0]!.ids).toHaveLength(1);
    expect(new Set(attempts.map((a) => a.ids.join()))).toEqual(new Set([attempts[0]!.ids.join()]));
    expect(attempts[1]!.at - attempts[0]!.at).toBeGreaterThanOrEqual(1900);
    expect(attempts[2]!.at - attempts[1]!.at).toBeGreaterThanOrEqual(1900);
    expect(seen.errors).toEqual([]);
    expect(seen.scriptConsole().length).toBeLessThanOrEqual(1);
  });
});

describe('click analytics', () => {
  it('reports clicks, rage clicks and dead clicks, and the heatmap counts them', async () => {
    const body = `<div id="stuck" style="width:200px;height:60px;background:#eee">Not a button</div>
      <button id="real" onclick="document.getElementById('out').textContent='done'">Real</button><p id="out"></p>`;
    const { page, seen } = await open('/c/clicks', { body });
    const stuck = page.locator('#stuck');
    for (let i = 0; i < 4; i++) await stuck.click({ delay: 0 });
    // nothing happens for a second after those clicks: dead
    await page.waitForTimeout(1300);
    await page.locator('#real').click();
    await page.waitForTimeout(1300);
    await flush(page);
    expect(seen.of('CLICK').length).toBe(5);
    expect(seen.of('CLICK')[0]!.properties).toMatchObject({
      selector: '#stuck',
      tagName: 'div',
      x: expect.any(Number),
      y: expect.any(Number),
    });
    expect(seen.of('RAGE_CLICK')).toEqual([
      expect.objectContaining({
        properties: expect.objectContaining({
          selector: '#stuck',
          clickCount: 3,
          timeSpanMs: expect.any(Number),
        }),
      }),
    ]);
    expect(seen.of('DEAD_CLICK').map((e) => e.properties?.selector)).toContain('#stuck');
    expect(seen.of('DEAD_CLICK').map((e) => e.properties?.selector)).not.toContain('#real');
    const heatmap = await eventually(async () => {
      const res = await fetch(
        `${stack.service.url}/api/analytics/heatmaps?url=${encodeURIComponent(`${host.url}/c/clicks`)}`,
        { headers: { authorization: `Bearer ${stack.store.ownerToken}` } },
      );
      const data = (await res.json()).data as { elements: { selector: string; rageClicks: number }[] };
      return data.elements.find((e) => e.selector === '#stuck' && e.rageClicks > 0);
    });
    expect(heatmap.rageClicks).toBe(1);
  });
});
