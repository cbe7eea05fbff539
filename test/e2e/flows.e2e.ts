import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../../examples/demo/server.js';
import {
  eventually,
  flush,
  hostPage,
  launchBrowser,
  onPath,
  publishFlow,
  type Stack,
  serveHost,
  startStack,
  watch,
} from './helpers.js';

/** Flows in a real browser: targeting, steps and buttons, keyboard, missing targets, SPA, reloads, isolation. */
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

async function open(path: string, html: string): Promise<{ page: Page; seen: ReturnType<typeof watch> }> {
  pages[path] = html;
  context = await browser.newContext({ viewport: { width: 1200, height: 800 } });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(host.url + path);
  await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
  return { page, seen };
}

const TOUR_BODY = `
  <h1>Dashboard</h1>
  <button id="first">First target</button>
  <p style="margin-top:400px"><button id="second">Second target</button></p>
  <input id="before" placeholder="focused before the tour">`;

const tourSteps = [
  { type: 'MODAL', content: { title: 'Welcome aboard', body: 'A short tour.' } },
  { type: 'TOOLTIP', targetSelector: '#first', content: { title: 'Step two', body: 'The first button.' } },
  {
    type: 'TOOLTIP',
    targetSelector: '#second',
    content: { title: 'Step three', body: 'The second button.' },
  },
];

describe('a published flow', () => {
  it('shows to a user the audience matches, and not to another', async () => {
    const audience = await stack.call('POST', '/api/audiences', {
      name: 'Pro users',
      ruleTree: { field: 'traits.plan', operator: 'eq', value: 'pro' },
    });
    const flow = await publishFlow(stack, {
      name: 'Pro tour',
      audienceId: audience.id,
      trigger: onPath('/t/audience'),
      steps: [{ type: 'MODAL', content: { title: 'Pro features', body: 'Only for pro.' } }],
    });
    const pro = await open(
      '/t/audience',
      hostPage(stack, { init: { userId: 'ana-pro', traits: { plan: 'pro' } } }),
    );
    await expect(pro.page.getByRole('dialog', { name: 'Pro features' }).isVisible()).resolves.toBe(true);
    await flush(pro.page);
    expect(pro.seen.of('FLOW_STARTED')).toEqual([
      expect.objectContaining({
        userId: 'ana-pro',
        properties: expect.objectContaining({ flowId: flow.id }),
      }),
    ]);
    await context.close();

    const free = await open(
      '/t/audience',
      hostPage(stack, { init: { userId: 'bob-free', traits: { plan: 'free' } } }),
    );
    await free.page.waitForTimeout(1000);
    expect(await free.page.getByRole('dialog').count()).toBe(0);
    await flush(free.page);
    expect(free.seen.of('FLOW_STARTED')).toEqual([]);
    // the page view still arrives: the SDK works, there is just nothing for this user
    expect(free.seen.of('PAGE_VIEW')).toHaveLength(1);
  });

  it('walks Next / Back / Done with accessible names, reports every step, and shows in analytics', async () => {
    const flow = await publishFlow(stack, {
      name: 'Main tour',
      trigger: onPath('/t/steps'),
      steps: tourSteps,
    });
    const { page, seen } = await open(
      '/t/steps',
      hostPage(stack, { body: TOUR_BODY, init: { userId: 'walker' } }),
    );

    const first = page.getByRole('dialog', { name: 'Welcome aboard' });
    await first.waitFor();
    expect(await first.getAttribute('aria-modal')).toBe('true');
    expect(await first.textContent()).toContain('1 of 3');
    expect(await page.getByRole('button', { name: 'Back' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Next' }).click();

    const second = page.getByRole('dialog', { name: 'Step two' });
    await second.waitFor();
    expect(await second.getAttribute('aria-modal')).toBeNull();
    // anchored next to its target
    const [tip, target] = await Promise.all([second.boundingBox(), page.locator('#first').boundingBox()]);
    expect(Math.abs(tip!.y - (target!.y + target!.height))).toBeLessThan(40);
    await page.getByRole('button', { name: 'Back' }).click();
    await first.waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await second.waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    const third = page.getByRole('dialog', { name: 'Step three' });
    await third.waitFor();
    // the off-screen target was scrolled into view
    expect(await page.locator('#second').isVisible()).toBe(true);
    expect(await page.getByRole('button', { name: 'Next' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Done' }).click();
    await third.waitFor({ state: 'detached' });
    await flush(page);

    const props = (type: string) => seen.of(type).map((e) => e.properties);
    expect(props('FLOW_STARTED')).toEqual([
      expect.objectContaining({ flowId: flow.id, flowName: 'Main tour', totalSteps: 3 }),
    ]);
    expect(props('STEP_VIEWED').map((p) => p?.stepIndex)).toEqual([0, 1, 0, 1, 2]);
    expect(props('STEP_VIEWED')[2]).toMatchObject({ stepType: 'MODAL', stepId: expect.any(String) });
    expect(props('STEP_COMPLETED').map((p) => p?.stepIndex)).toEqual([0, 0, 1, 2]);
    expect(props('STEP_COMPLETED')[0]).toMatchObject({ duration: expect.any(Number), flowId: flow.id });
    expect(props('FLOW_COMPLETED')).toEqual([
      expect.objectContaining({
        flowId: flow.id,
        stepsCompleted: 3,
        totalSteps: 3,
        duration: expect.any(Number),
      }),
    ]);
    // every event has a client id (a retry is never counted twice) and the session
    expect(seen.events.every((e) => typeof e.id === 'string' && e.sessionId && e.userId === 'walker')).toBe(
      true,
    );
    expect(new Set(seen.events.map((e) => e.id)).size).toBe(seen.events.length);
    expect(seen.batches.every((b) => b.size <= 50)).toBe(true);

    // processed by the service: the flow's analytics count the start and the completion
    const stats = await eventually(async () => {
      const s = await stack.call('GET', `/api/analytics/flows/${flow.id}`);
      return (s.totalStarts as number) >= 1 && (s.completed as number) >= 1 ? s : undefined;
    });
    expect(stats).toMatchObject({ totalStarts: 1, completed: 1, completionRate: 1 });
    expect(seen.errors).toEqual([]);
    expect(seen.scriptConsole()).toEqual([]);
  });

  it('is keyboard-only usable: focus goes in, Tab is trapped in a modal, Escape dismisses and gives focus back', async () => {
    const flow = await publishFlow(stack, {
      name: 'Keyboard tour',
      trigger: onPath('/t/keys'),
      steps: tourSteps,
    });
    // the user was typing in the page when the tour arrived: focus is taken before the SDK loads,
    // so the tour always finds it there (focusing it from the test could land after the tour)
    const focusFirst = "<script>document.getElementById('before').focus();</script>";
    pages['/t/keys'] = hostPage(stack, { body: TOUR_BODY + focusFirst });
    context = await browser.newContext();
    const page = await context.newPage();
    const seen = watch(page);
    await page.goto(`${host.url}/t/keys`);
    const dialog = page.getByRole('dialog', { name: 'Welcome aboard' });
    await dialog.waitFor();
    const focused = () =>
      page.evaluate(() => {
        const root = document.querySelector('[data-guidance-root]')?.shadowRoot;
        const el = root?.activeElement;
        return el
          ? `${el.tagName.toLowerCase()}:${el.getAttribute('aria-label') ?? el.textContent}`
          : `page:${document.activeElement?.id}`;
      });
    expect(await focused()).toBe('button:Next');
    const cycle: string[] = [];
    for (let i = 0; i < 4; i++) {
      await page.keyboard.press('Tab');
      cycle.push(await focused());
    }
    // Close and Next only, round and round: focus never reaches the page behind
    expect(cycle).toEqual(['button:Close', 'button:Next', 'button:Close', 'button:Next']);
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('button:Close');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('button:Next');
    // Enter on Next moves on; the tooltip step takes focus too
    await page.keyboard.press('Enter');
    await page.getByRole('dialog', { name: 'Step two' }).waitFor();
    expect(await focused()).toBe('button:Next');
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
    expect(await focused()).toBe('page:before');
    await flush(page);
    expect(seen.of('FLOW_DISMISSED')).toEqual([
      expect.objectContaining({ properties: expect.objectContaining({ flowId: flow.id, stepIndex: 1 }) }),
    ]);
  });

  it('waits for a target that appears late, and skips gracefully (SELECTOR_NOT_FOUND) when one never does', async () => {
    const late = await publishFlow(stack, {
      name: 'Late target',
      trigger: onPath('/t/late'),
      steps: [
        {
          type: 'TOOLTIP',
          targetSelector: '#late-chart',
          content: { title: 'Your chart', body: 'Loaded late.' },
        },
      ],
    });
    const body = `<div id="slot"></div><script>
      setTimeout(() => { document.getElementById('slot').innerHTML = '<div id="late-chart" style="width:200px;height:80px;background:#ddd">chart</div>'; }, 2500);
    </script>`;
    const { page, seen } = await open('/t/late', hostPage(stack, { body }));
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.getByRole('dialog', { name: 'Your chart' }).waitFor({ timeout: 8000 });
    await flush(page);
    expect(seen.of('STEP_VIEWED')).toHaveLength(1);
    expect(seen.of('SELECTOR_NOT_FOUND')).toEqual([]);
    expect(late.id).toBeDefined();
    await context.close();

    const never = await publishFlow(stack, {
      name: 'Missing target',
      trigger: onPath('/t/missing'),
      steps: [{ type: 'TOOLTIP', targetSelector: '#does-not-exist', content: { title: 'Never shown' } }],
    });
    const started = Date.now();
    const missing = await open(
      '/t/missing',
      hostPage(stack, { body: '<button id="ok">The page still works</button>' }),
    );
    await eventually(async () => {
      await flush(missing.page);
      return missing.seen.of('FLOW_SKIPPED').length > 0;
    }, 20_000);
    expect(Date.now() - started).toBeGreaterThanOrEqual(9_000);
    expect(missing.seen.of('SELECTOR_NOT_FOUND')).toEqual([
      expect.objectContaining({
        properties: expect.objectContaining({ flowId: never.id, stepIndex: 0, selector: '#does-not-exist' }),
      }),
    ]);
    expect(missing.seen.of('FLOW_SKIPPED')[0]!.properties).toMatchObject({ reason: 'SELECTOR_NOT_FOUND' });
    expect(await missing.page.getByRole('dialog').count()).toBe(0);
    expect(missing.seen.errors).toEqual([]);
    const skipped = await eventually(async () => {
      const s = await stack.call('GET', `/api/analytics/flows/${never.id}`);
      return (s.skipped as number) >= 1 ? s : undefined;
    });
    expect(skipped.skipped).toBe(1);
  }, 60_000);

  it('asks for a new session on SPA navigation and shows what the new URL matches', async () => {
    await publishFlow(stack, {
      name: 'Pricing tour',
      trigger: onPath('/t/spa/pricing'),
      steps: [{ type: 'MODAL', content: { title: 'Plans explained' } }],
    });
    const body = `<nav><button id="go" onclick="history.pushState(null, '', '/t/spa/pricing')">Pricing</button>
      <a id="hash" href="#section">Section</a></nav>`;
    const { page, seen } = await open('/t/spa/home', hostPage(stack, { body }));
    const sessions: string[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/api/sdk/session')) sessions.push(JSON.parse(r.postData() ?? '{}').url);
    });
    expect(await page.getByRole('dialog').count()).toBe(0);
    await page.locator('#go').click();
    await page.getByRole('dialog', { name: 'Plans explained' }).waitFor();
    expect(sessions).toEqual([`${host.url}/t/spa/pricing`]);
    await page.keyboard.press('Escape');
    await page.goBack();
    await eventually(async () => sessions.length === 2);
    expect(sessions[1]).toBe(`${host.url}/t/spa/home`);
    await flush(page);
    expect(seen.of('PAGE_VIEW').map((e) => e.properties?.path)).toEqual([
      '/t/spa/home',
      '/t/spa/pricing',
      '/t/spa/home',
    ]);
  });

  it('keeps its progress across a reload, without starting again; what the page queued leaves by sendBeacon', async () => {
    const flow = await publishFlow(stack, {
      name: 'Reload tour',
      trigger: onPath('/t/reload'),
      steps: tourSteps,
    });
    pages['/t/reload'] = hostPage(stack, { body: TOUR_BODY });
    context = await browser.newContext();
    // Records every sendBeacon call in sessionStorage, which survives the reload.
    await context.addInitScript(() => {
      const original = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, data) => {
        const log = JSON.parse(sessionStorage.getItem('beacons') ?? '[]');
        log.push({ url: String(url), body: String(data) });
        sessionStorage.setItem('beacons', JSON.stringify(log));
        return original(url, data);
      };
    });
    const page = await context.newPage();
    const seen = watch(page);
    await page.goto(`${host.url}/t/reload`);
    await page.getByRole('dialog', { name: 'Welcome aboard' }).waitFor();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('dialog', { name: 'Step two' }).waitFor();
    // queued a moment before leaving: only sendBeacon can still deliver it
    await page.evaluate(() =>
      (window as unknown as { Guidance: { track(n: string): void } }).Guidance.track('leaving now'),
    );
    await page.reload();
    await page.getByRole('dialog', { name: 'Step two' }).waitFor();
    expect(await page.getByRole('dialog', { name: 'Welcome aboard' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Done' }).click();
    await flush(page);
    expect(seen.of('FLOW_STARTED')).toEqual([]); // not again after the reload
    expect(seen.of('FLOW_COMPLETED')).toEqual([
      expect.objectContaining({ properties: expect.objectContaining({ flowId: flow.id }) }),
    ]);
    // What the first page still had queued went by sendBeacon, the key in the body.
    const beacons: { url: string; body: string }[] = await page.evaluate(() =>
      JSON.parse(sessionStorage.getItem('beacons') ?? '[]'),
    );
    expect(beacons.length).toBeGreaterThanOrEqual(1);
    const beaconed = beacons.map((b) => JSON.parse(b.body));
    expect(beacons.every((b) => b.url === `${stack.service.url}/api/sdk/events`)).toBe(true);
    expect(beaconed.every((b) => b._apiKey === stack.apiKey)).toBe(true);
    expect(beaconed.flatMap((b) => b.events.map((e: { name?: string }) => e.name))).toContain('leaving now');
    // ...and the service got them: one start, one completion, nothing lost, nothing twice
    const stats = await eventually(async () => {
      const s = await stack.call('GET', `/api/analytics/flows/${flow.id}`);
      return (s.totalStarts as number) >= 1 && (s.completed as number) >= 1 ? s : undefined;
    });
    expect(stats).toMatchObject({ totalStarts: 1, completed: 1 });
    // once completed, a reload does not show it again
    await page.reload();
    await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    await page.waitForTimeout(800);
    expect(await page.getByRole('dialog').count()).toBe(0);
  });

  it('lays a right-to-left locale out RTL, in its translation', async () => {
    await stack.call('POST', '/api/translations/locales', {
      code: 'en',
      name: 'English',
      isDefault: true,
      isRtl: false,
    });
    await stack.call('POST', '/api/translations/locales', {
      code: 'ar',
      name: 'العربية',
      isDefault: false,
      isRtl: true,
    });
    const flow = await publishFlow(stack, {
      name: 'Localized',
      trigger: onPath('/t/rtl'),
      steps: [{ type: 'MODAL', content: { title: 'Welcome', body: 'Hello' } }],
    });
    const stepId = (flow.steps as { id: string }[])[0]!.id;
    await stack.call('POST', '/api/translations/bulk', {
      translations: [
        {
          contentType: 'flow-step',
          contentId: stepId,
          fieldName: 'content.title',
          localeCode: 'ar',
          value: 'مرحبا',
        },
        {
          contentType: 'flow-step',
          contentId: stepId,
          fieldName: 'content.body',
          localeCode: 'ar',
          value: 'أهلا بك',
        },
      ],
    });
    const { page } = await open(
      '/t/rtl',
      hostPage(stack, { init: { locale: 'ar', labels: { done: 'تم', close: 'إغلاق' } }, lang: 'ar' }),
    );
    const dialog = page.getByRole('dialog', { name: 'مرحبا' });
    await dialog.waitFor();
    expect(await dialog.textContent()).toContain('أهلا بك');
    const layout = await page.evaluate(() => {
      const root = document.querySelector('[data-guidance-root]')!.shadowRoot!;
      const ui = root.querySelector('.g-ui') as HTMLElement;
      const card = root.querySelector('[role=dialog]') as HTMLElement;
      const close = root.querySelector('.g-x') as HTMLElement;
      return {
        dir: ui.dir,
        direction: getComputedStyle(card).direction,
        closeOnLeft: close.getBoundingClientRect().left < card.getBoundingClientRect().left + 60,
      };
    });
    expect(layout).toEqual({ dir: 'rtl', direction: 'rtl', closeOnLeft: true });
    expect(await page.getByRole('button', { name: 'تم' }).count()).toBe(1);
  });
});
