import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../../examples/demo/server.js';
import {
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

/**
 * Pages built the way real apps are (issue 40), with the SDK loaded by script tag: a React-style
 * SPA (renders after its bundle, an autofocused field, a list fetched late, hashed classes), a
 * Lit-style app of nested open shadow roots (the TodoMVC case that used to skip the whole tour),
 * and an app inside a same-origin iframe. Each: the app still works, looks the same with the SDK
 * (screenshots compared pixel for pixel, the SDK's layer hidden), every step anchors next to its
 * target, and typing into the pointed-at field is never interrupted.
 */
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

/** The same page with and without the SDK's two script tags. */
function both(path: string, body: string): void {
  const withSdk = hostPage(stack, { body });
  pages[path] = withSdk;
  pages[`${path}/plain`] = withSdk.replace(
    /<script src="[^"]*\/sdk\/guidance\.js"><\/script>\s*<script>window\.ready[^<]*<\/script>/,
    '',
  );
  if (pages[`${path}/plain`] === withSdk) throw new Error('could not strip the SDK');
}

async function newPage(): Promise<Page> {
  context = await browser.newContext({ viewport: { width: 1100, height: 720 } });
  return context.newPage();
}

/**
 * Pixels of the page as the user sees it, the SDK's own layer (if any) hidden from inside its
 * shadow root (the host cannot be restyled from the page: `:host { all: initial !important }`).
 */
async function appPixels(page: Page): Promise<Buffer> {
  const ui = () =>
    document.querySelector('[data-guidance-root]')?.shadowRoot?.querySelector<HTMLElement>('.g-ui') ?? null;
  await page.evaluate(`(${ui})()?.style.setProperty('display', 'none')`);
  const shot = await page.screenshot({ animations: 'disabled', caret: 'hide' });
  await page.evaluate(`(${ui})()?.style.removeProperty('display')`);
  return shot;
}

/** The tooltip `name` is next to `target` (below or above it, overlapping horizontally). */
async function expectAnchored(
  page: Page,
  name: string,
  target: { x: number; y: number; width: number; height: number },
) {
  const tip = page.getByRole('dialog', { name });
  await tip.waitFor({ timeout: 15_000 });
  const box = (await tip.boundingBox())!;
  const below = Math.abs(box.y - (target.y + target.height));
  const above = Math.abs(box.y + box.height - target.y);
  expect(Math.min(below, above)).toBeLessThan(30);
  expect(box.x < target.x + target.width && box.x + box.width > target.x).toBe(true);
}

const deepFocus = (page: Page) =>
  page.evaluate(() => {
    let el = document.activeElement;
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement;
    return el
      ? `${el.tagName.toLowerCase()}${(el as HTMLInputElement).name ? `[name=${(el as HTMLInputElement).name}]` : ''}`
      : null;
  });

const REACT = `<div id="root"></div><script>
  // a React-like SPA: mounts after its bundle, CSS-module classes, autoFocus, data fetched late, client routing
  setTimeout(() => {
    const root = document.getElementById('root');
    root.innerHTML = '<header class="App_header__k2J9x"><nav><a href="/apps/react" class="Nav_link__a8Zq1">Inbox</a> <a href="/apps/react/settings" class="Nav_link__a8Zq1">Settings</a></nav></header>' +
      '<main class="App_main__P0o9i"><h1>Inbox</h1><form class="Compose_form__Xy7Qa"><input name="subject" placeholder="New message subject" class="Compose_input__Zz81m"> <button class="Compose_send__b7Yt2">Send</button></form>' +
      '<ul class="List_list__Mn3Bv" aria-busy="true"></ul></main>';
    const input = root.querySelector('input');
    input.focus();
    root.querySelector('form').addEventListener('submit', (e) => {
      e.preventDefault();
      if (!input.value) return;
      const li = document.createElement('li'); li.className = 'List_item__Qw2Er'; li.textContent = input.value;
      root.querySelector('ul').prepend(li); input.value = '';
    });
    root.querySelector('nav').addEventListener('click', (e) => {
      const a = e.target.closest('a'); if (!a) return; e.preventDefault(); history.pushState(null, '', a.href);
      root.querySelector('h1').textContent = a.textContent;
    });
    setTimeout(() => {
      const ul = root.querySelector('ul');
      ul.insertAdjacentHTML('beforeend', '<li class="List_item__Qw2Er">Welcome to Acme</li><li class="List_item__Qw2Er">Your invoice is ready</li>');
      ul.removeAttribute('aria-busy');
    }, 1500);
  }, 300);
</script>`;

const LIT = `<todo-app></todo-app><script>
  // Lit-style components: open shadow roots, rendered a microtask after connection, nested
  class Base extends HTMLElement {
    constructor() { super(); this.attachShadow({ mode: 'open' }); }
    connectedCallback() { queueMicrotask(() => this.update()); }
  }
  customElements.define('todo-input', class extends Base {
    update() {
      this.shadowRoot.innerHTML = '<style>input{font:inherit;padding:8px;width:320px}</style><input placeholder="What needs to be done?" aria-label="New todo">';
      const input = this.shadowRoot.querySelector('input');
      input.focus();
      input.addEventListener('keydown', (e) => {
        if (e.key !== 'Enter' || !input.value.trim()) return;
        this.dispatchEvent(new CustomEvent('add', { detail: input.value.trim(), bubbles: true, composed: true }));
        input.value = '';
      });
    }
  });
  customElements.define('todo-list', class extends Base {
    set items(v) { this._items = v; this.update(); }
    update() { this.shadowRoot.innerHTML = '<style>li{padding:4px 0}</style><ul>' + (this._items || []).map((t) => '<li>' + t + '</li>').join('') + '</ul>'; }
  });
  customElements.define('todo-app', class extends Base {
    update() {
      this.items = this.items || [];
      this.shadowRoot.innerHTML = '<style>:host{display:block}</style><h1>Todos</h1><todo-input></todo-input><todo-list></todo-list><footer><button class="clear">Clear completed</button></footer>';
      this.addEventListener('add', (e) => { this.items = [...this.items, e.detail]; this.shadowRoot.querySelector('todo-list').items = this.items; });
    }
  });
</script>`;

const FRAME_INNER = `<!doctype html><html><head><meta charset="utf-8"><style>body{font:15px system-ui,sans-serif;margin:16px}</style></head><body>
  <h2>Start your trial</h2><form><label for="email">Work email</label> <input id="email" type="email">
  <select name="plan"><option>Team</option><option>Business</option></select> <button type="submit">Start trial</button></form>
  <p id="thanks" hidden>Thanks! Check your inbox.</p>
  <script>document.querySelector('form').addEventListener('submit', (e) => { e.preventDefault(); document.getElementById('thanks').hidden = false; });</script>
</body></html>`;

describe('real-world apps with the SDK by script tag', () => {
  it('a React-style SPA: autofocus kept, typing uninterrupted, late list and nav anchored, pixels unchanged', async () => {
    await publishFlow(stack, {
      name: 'Inbox tour',
      trigger: onPath('/apps/react'),
      steps: [
        {
          type: 'TOOLTIP',
          targetSelector: 'form input[name="subject"]',
          content: { title: 'Write a subject' },
        },
        {
          type: 'TOOLTIP',
          targetSelector: '.List_list__Mn3Bv li:last-child',
          content: { title: 'Your messages' },
        },
        {
          type: 'TOOLTIP',
          targetSelector: 'nav a[href$="/settings"]',
          content: { title: 'Settings live here' },
        },
      ],
    });
    both('/apps/react', REACT);
    const plain = await newPage();
    await plain.goto(`${host.url}/apps/react/plain`);
    await plain.locator('li', { hasText: 'Your invoice' }).waitFor();
    const without = await appPixels(plain);
    await context.close();

    const page = await newPage();
    const seen = watch(page);
    await page.goto(`${host.url}/apps/react`);
    await page.locator('li', { hasText: 'Your invoice' }).waitFor();
    await expectAnchored(page, 'Write a subject', (await page.locator('input[name=subject]').boundingBox())!);
    expect(await appPixels(page)).toEqual(without); // the app looks the same with the SDK
    expect(await deepFocus(page)).toBe('input[name=subject]'); // autoFocus kept
    await page.keyboard.type('Lunch on Friday?');
    await page.keyboard.press('Enter');
    expect(await page.locator('ul li').first().textContent()).toBe('Lunch on Friday?'); // the app got every key
    await page.getByRole('button', { name: 'Next' }).click();
    await expectAnchored(page, 'Your messages', (await page.locator('ul li').last().boundingBox())!);
    await page.getByRole('button', { name: 'Next' }).click();
    await expectAnchored(
      page,
      'Settings live here',
      (await page.locator('nav a', { hasText: 'Settings' }).boundingBox())!,
    );
    await page.getByRole('button', { name: 'Done' }).click();
    // client-side routing still works with the SDK watching history
    await page.locator('nav a', { hasText: 'Settings' }).click();
    expect(await page.locator('h1').textContent()).toBe('Settings');
    await flush(page);
    expect(seen.of('TARGET_LOOKUP').map((e) => e.properties?.outcome)).toEqual(['found', 'found', 'found']);
    expect(seen.errors).toEqual([]);
    expect(seen.scriptConsole()).toEqual([]);
  }, 60_000);

  it('a Lit-style app of nested shadow roots: every step anchors through >>>, typing goes to the field', async () => {
    await publishFlow(stack, {
      name: 'Lit todo tour',
      trigger: onPath('/apps/lit'),
      steps: [
        {
          type: 'TOOLTIP',
          targetSelector: 'todo-app >>> todo-input >>> input',
          content: { title: 'Add a todo', body: 'Type it, press Enter.' },
        },
        {
          type: 'TOOLTIP',
          targetSelector: 'todo-app >>> todo-list >>> li',
          content: { title: 'There it is' },
        },
        {
          type: 'TOOLTIP',
          targetSelector: 'todo-app >>> footer button.clear',
          content: { title: 'Tidy up' },
        },
      ],
    });
    both('/apps/lit', LIT);
    const inner = (page: Page, sel: string) => page.locator('todo-app').locator(sel); // playwright's CSS pierces open shadow roots
    const plain = await newPage();
    await plain.goto(`${host.url}/apps/lit/plain`);
    await inner(plain, 'input').waitFor();
    const without = await appPixels(plain);
    await context.close();

    const page = await newPage();
    const seen = watch(page);
    await page.goto(`${host.url}/apps/lit`);
    await inner(page, 'input').waitFor();
    await expectAnchored(page, 'Add a todo', (await inner(page, 'input').boundingBox())!);
    expect(await appPixels(page)).toEqual(without);
    expect(await deepFocus(page)).toBe('input');
    await page.keyboard.type('Buy milk');
    await page.keyboard.press('Enter'); // Enter goes to the app, not to the tooltip's Next
    expect(await inner(page, 'li').allTextContents()).toEqual(['Buy milk']);
    expect(await page.getByRole('dialog', { name: 'Add a todo' }).isVisible()).toBe(true);
    await page.getByRole('button', { name: 'Next' }).click();
    await expectAnchored(page, 'There it is', (await inner(page, 'li').boundingBox())!);
    await page.getByRole('button', { name: 'Next' }).click();
    await expectAnchored(page, 'Tidy up', (await inner(page, 'button.clear').boundingBox())!);
    await flush(page);
    expect(seen.of('TARGET_LOOKUP').map((e) => e.properties?.outcome)).toEqual(['found', 'found', 'found']);
    expect(seen.of('FLOW_SKIPPED')).toEqual([]);
    expect(seen.errors).toEqual([]);
  }, 60_000);

  it('an app inside a same-origin iframe: steps anchor across the frame, the app keeps working', async () => {
    await publishFlow(stack, {
      name: 'Trial tour',
      trigger: onPath('/apps/frame'),
      steps: [
        { type: 'TOOLTIP', targetSelector: 'iframe#app >>> #email', content: { title: 'Your email' } },
        {
          type: 'TOOLTIP',
          targetSelector: 'iframe#app >>> button[type="submit"]',
          content: { title: 'Then start' },
        },
      ],
    });
    pages['/apps/frame-inner'] = FRAME_INNER;
    both(
      '/apps/frame',
      '<header><strong>Acme</strong></header><iframe id="app" title="Trial" src="/apps/frame-inner" style="margin:60px 0 0 120px;width:720px;height:220px;border:1px solid #ccc"></iframe>',
    );
    const frameOf = async (page: Page): Promise<Frame> => {
      await page.locator('iframe#app').waitFor();
      const f = (await (await page.$('iframe#app'))!.contentFrame())!;
      await f.locator('#email').waitFor();
      return f;
    };
    const plain = await newPage();
    await plain.goto(`${host.url}/apps/frame/plain`);
    await frameOf(plain);
    const without = await appPixels(plain);
    await context.close();

    const page = await newPage();
    const seen = watch(page);
    await page.goto(`${host.url}/apps/frame`);
    const frame = await frameOf(page);
    await expectAnchored(page, 'Your email', (await frame.locator('#email').boundingBox())!); // page coordinates
    expect(await appPixels(page)).toEqual(without);
    await frame.locator('#email').fill('ana@acme.io');
    await page.getByRole('button', { name: 'Next' }).click();
    await expectAnchored(page, 'Then start', (await frame.locator('button[type=submit]').boundingBox())!);
    await frame.locator('button[type=submit]').click();
    await frame.locator('#thanks').waitFor();
    await flush(page);
    expect(seen.of('TARGET_LOOKUP').map((e) => e.properties?.outcome)).toEqual(['found', 'found']);
    expect(seen.of('TARGET_LOOKUP')[0]!.properties?.fingerprint).toMatchObject({
      scope: ['iframe#app'],
      label: 'Work email',
    });
    expect(seen.errors).toEqual([]);
  }, 60_000);
});
