import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page, Request } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../../examples/demo/server.js';
import {
  hostPage,
  launchBrowser,
  onPath,
  publishFlow,
  type Stack,
  serveHost,
  startStack,
  watch,
} from './helpers.js';

/**
 * The element picker (issue 40), SDK side, in Chromium on a page of another origin: the page is
 * opened with `#guidance-pick=<token>`, the SDK verifies the token and loads its picker, which
 * outlines elements through shadow roots and iframes, proposes a selector, and sends the pick.
 * The service's two pick endpoints are stubbed here (page.route); everything else is the real
 * service. Takes docs/sdk/picker.png.
 */
const DOCS = fileURLToPath(new URL('../../docs/sdk/', import.meta.url));
const TOKEN = 'pk_test.0123456789abcdef';

let stack: Stack;
let browser: Browser;
let host: DemoServer;
let context: BrowserContext;
const pages: Record<string, string> = {};

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  host = await serveHost(stack, pages);
  pages['/t/pick'] = hostPage(stack, {
    body: `<header style="display:flex;gap:12px;align-items:center"><h1 style="margin:0">Acme settings</h1>
      <button id="help" onclick="window.clicks = (window.clicks || 0) + 1">Help</button></header>
      <main><p>Your workspace.</p><settings-panel></settings-panel>
      <iframe id="editor" title="Editor" style="width:420px;height:90px;border:1px solid #ccc"
        srcdoc="<div class=toolbar><button class=bold aria-label=Bold>B</button><button aria-label=Italic>I</button></div>"></iframe></main>
      <script>
        customElements.define('settings-panel', class extends HTMLElement { constructor() { super();
          this.attachShadow({ mode: 'open' }).innerHTML = '<style>button{padding:8px 14px;margin:8px 8px 8px 0}</style><h2>Profile</h2><button class="css-1x2y3z-Save">Save</button><button>Reset</button>'; } });
      </script>`,
  });
  await publishFlow(stack, {
    name: 'Shown when not picking',
    trigger: onPath('/t/pick'),
    steps: [{ type: 'MODAL', content: { title: 'Welcome to settings' } }],
  });
});
afterAll(async () => {
  await browser?.close();
  await host?.close();
  await stack?.close();
});
afterEach(async () => {
  await context?.close();
});

interface Stubs {
  verify: { body: unknown; headers: Record<string, string> }[];
  result: { body: Record<string, unknown>; headers: Record<string, string> }[];
  sessions: number;
  chunks: string[];
}

/** Opens the pick link with the two pick endpoints stubbed (answering `verifyStatus`, `resultStatus`). */
async function openPick(
  verifyStatus = 200,
  resultStatus = 204,
): Promise<{ page: Page; stubs: Stubs; seen: ReturnType<typeof watch> }> {
  context = await browser.newContext({ viewport: { width: 1000, height: 640 } });
  const page = await context.newPage();
  const seen = watch(page);
  const stubs: Stubs = { verify: [], result: [], sessions: 0, chunks: [] };
  await page.route(`${stack.service.url}/api/sdk/pick/verify`, async (route) => {
    const req = route.request();
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors() });
    stubs.verify.push({ body: req.postDataJSON(), headers: req.headers() });
    if (verifyStatus !== 200) {
      return route.fulfill({
        status: verifyStatus,
        headers: cors(),
        json: { error: { code: 'PICK_TOKEN_USED', message: 'This pick link was already used.' } },
      });
    }
    return route.fulfill({
      status: 200,
      headers: cors(),
      json: {
        data: {
          stepId: 'step-1',
          itemKind: 'flow',
          itemId: 'flow-1',
          expiresAt: new Date(Date.now() + 600_000).toISOString(),
        },
      },
    });
  });
  await page.route(`${stack.service.url}/api/sdk/pick/result`, async (route) => {
    const req = route.request();
    if (req.method() === 'OPTIONS') return route.fulfill({ status: 204, headers: cors() });
    stubs.result.push({ body: req.postDataJSON(), headers: req.headers() });
    if (resultStatus !== 204) {
      return route.fulfill({
        status: resultStatus,
        headers: cors(),
        json: { error: { code: 'INTERNAL_ERROR', message: 'x' } },
      });
    }
    return route.fulfill({ status: 204, headers: cors() });
  });
  page.on('request', (r: Request) => {
    if (r.url().endsWith('/api/sdk/session')) stubs.sessions++;
    if (r.url().includes('/sdk/chunks/')) stubs.chunks.push(r.url().split('/').pop()!.split('-')[0]!);
  });
  await page.goto(`${host.url}/t/pick#guidance-pick=${TOKEN}`);
  await page.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
  return { page, stubs, seen };
}

const cors = () => ({
  'access-control-allow-origin': '*',
  'access-control-allow-headers': 'content-type, x-api-key, x-correlation-id',
  'access-control-allow-methods': 'POST, OPTIONS',
});

const sdk = (page: Page) => page.locator('[data-guidance-root]');

/** The centre of an element found by a script (shadow roots and iframes included), in page pixels. */
async function centre(page: Page, find: string): Promise<{ x: number; y: number }> {
  return page.evaluate((code) => {
    const el = new Function(`return ${code}`)() as Element;
    const r = el.getBoundingClientRect();
    const frame = el.ownerDocument.defaultView?.frameElement?.getBoundingClientRect();
    return {
      x: r.left + r.width / 2 + (frame?.left ?? 0) + 1,
      y: r.top + r.height / 2 + (frame?.top ?? 0) + 1,
    };
  }, find);
}

const SAVE = "document.querySelector('settings-panel').shadowRoot.querySelector('button')";
const BOLD = "document.getElementById('editor').contentDocument.querySelector('.bold')";

describe('the element picker', () => {
  it('verifies the token, outlines through shadow roots, proposes a selector, and sends the pick', async () => {
    const { page, stubs, seen } = await openPick();
    expect(await page.evaluate(() => location.hash)).toBe(''); // the token left the URL
    expect(stubs.verify).toEqual([
      { body: { token: TOKEN }, headers: expect.objectContaining({ 'x-api-key': stack.apiKey }) },
    ]);
    const bar = sdk(page).getByRole('region', { name: 'Element picker' });
    await bar.waitFor();
    expect(stubs.sessions).toBe(0); // nothing else runs while picking
    expect(await page.getByRole('dialog').count()).toBe(0);

    const save = await centre(page, SAVE);
    await page.mouse.move(save.x, save.y);
    await expect
      .poll(() => bar.locator('code').textContent())
      .toBe('settings-panel >>> button::-p-text("Save")');
    const [outline, target] = await Promise.all([
      sdk(page).locator('.g-pick-box').boundingBox(),
      page.evaluate((code) => {
        const r = (new Function(`return ${code}`)() as Element).getBoundingClientRect();
        return { x: r.x, y: r.y, width: r.width, height: r.height };
      }, SAVE),
    ]);
    expect(Math.abs(outline!.x - (target.x - 2))).toBeLessThan(2);
    expect(Math.abs(outline!.width - (target.width + 4))).toBeLessThan(2);
    await page.screenshot({ path: `${DOCS}picker.png` });

    await page.mouse.click(save.x, save.y);
    await expect.poll(() => stubs.result.length).toBe(1);
    expect(stubs.result[0]!.headers['x-api-key']).toBe(stack.apiKey);
    expect(stubs.result[0]!.body).toEqual({
      token: TOKEN,
      selector: 'settings-panel >>> button::-p-text("Save")',
      fingerprint: expect.objectContaining({
        v: 1,
        tag: 'button',
        name: 'Save',
        scope: ['settings-panel'],
        heading: 'Profile',
      }),
    });
    expect(JSON.stringify(stubs.result[0]!.body)).not.toContain('1x2y3z'); // no hashed class
    await bar.getByText('Sent to the dashboard').waitFor();
    await bar.waitFor({ state: 'detached', timeout: 5_000 });
    expect(stubs.chunks).toContain('picker');
    // the page never saw the pick's click, and works as before once the picker is gone
    const help = await centre(page, "document.getElementById('help')");
    expect(await page.evaluate(() => (window as unknown as { clicks?: number }).clicks ?? 0)).toBe(0);
    await page.mouse.click(help.x, help.y);
    expect(await page.evaluate(() => (window as unknown as { clicks?: number }).clicks ?? 0)).toBe(1);
    expect(seen.errors).toEqual([]);
  });

  it('picks inside a same-origin iframe; Escape cancels without sending, and the page gets its clicks back', async () => {
    const { page, stubs } = await openPick();
    const bar = sdk(page).getByRole('region', { name: 'Element picker' });
    await bar.waitFor();
    const bold = await centre(page, BOLD);
    await page.mouse.move(bold.x, bold.y);
    await expect.poll(() => bar.locator('code').textContent()).toBe('#editor >>> button[aria-label="Bold"]');
    // a click on the page while picking does not reach it
    const help = await centre(page, "document.getElementById('help')");
    await page.mouse.move(help.x, help.y);
    await expect.poll(() => bar.locator('code').textContent()).toBe('#help');
    await page.keyboard.press('Escape');
    await bar.waitFor({ state: 'detached' });
    expect(stubs.result).toEqual([]);
    await page.mouse.click(help.x, help.y);
    expect(await page.evaluate(() => (window as unknown as { clicks?: number }).clicks ?? 0)).toBe(1);
  });

  it('says so when the pick cannot be sent, and closes', async () => {
    const { page, stubs } = await openPick(200, 500);
    const bar = sdk(page).getByRole('region', { name: 'Element picker' });
    await bar.waitFor();
    const help = await centre(page, "document.getElementById('help')");
    await page.mouse.move(help.x, help.y);
    await page.mouse.click(help.x, help.y);
    await bar.getByText('Could not send it (500)').waitFor();
    expect(stubs.result).toHaveLength(1);
    expect(stubs.result[0]!.body.selector).toBe('#help');
    await bar.waitFor({ state: 'detached', timeout: 8_000 });
    expect(await page.evaluate(() => (window as unknown as { clicks?: number }).clicks ?? 0)).toBe(0);
  });

  it('runs nothing with a refused token: no picker chunk, guidance as usual, one warning', async () => {
    const { page, stubs, seen } = await openPick(410);
    await page.getByRole('dialog', { name: 'Welcome to settings' }).waitFor();
    expect(stubs.verify).toHaveLength(1);
    expect(stubs.chunks).not.toContain('picker');
    expect(await sdk(page).getByRole('region', { name: 'Element picker' }).count()).toBe(0);
    expect(seen.scriptConsole()).toEqual([
      { type: 'warning', text: expect.stringContaining('the pick link was refused (410)') },
    ]);
    expect(seen.errors).toEqual([]);
  });
});
