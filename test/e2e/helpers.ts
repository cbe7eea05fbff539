import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';
import { type ApiRecord, type DashboardCall, dashboardClient } from '../../examples/demo/seed.js';
import { type DemoServer, startDemoServer } from '../../examples/demo/server.js';
import { type ServerProcess, startServer } from '../helpers/server-process.js';
import { createStandaloneStore, type StandaloneStore } from '../helpers/standalone.js';

/**
 * The browser tests' stack: the real service as a child process (its own store: a PGlite
 * directory, or a fresh PostgreSQL database when DATABASE_URL is set), Debian's Chromium driven
 * by playwright-core, and host pages served from ANOTHER origin (their own port).
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const SITE = '0190a000-0000-7000-8000-0000000e2e00';

export interface Stack {
  service: ServerProcess;
  store: StandaloneStore;
  /** Dashboard API as the tenant's owner. */
  call: DashboardCall;
  apiKey: string;
  close(): Promise<void>;
}

export async function startStack(env: Record<string, string> = {}): Promise<Stack> {
  const store = await createStandaloneStore({ serverUrl: process.env.DATABASE_URL });
  const service = await startServer({
    ...store.env,
    LOG_LEVEL: 'warn',
    // The tests seed through the dashboard API faster than a person clicks.
    RATE_LIMIT_GLOBAL: '0',
    RATE_LIMIT_AUTH: '0',
    RATE_LIMIT_SDK: '0',
    ...env,
  });
  return {
    service,
    store,
    call: dashboardClient(service.url, store.ownerToken),
    apiKey: store.apiKey,
    async close() {
      await service.stop();
      await store.destroy();
    },
  };
}

/** Chromium with the flags this machine needs (no sandbox as root, no background networking). */
export async function launchBrowser(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
  // launch() gives the browser a fresh temporary user-data-dir; each test opens its own context.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: false, // the flag below makes it headless: Chromium's own (new) headless mode
    args: [
      '--headless=new',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--no-first-run',
      '--disable-sync',
      '--disable-quic',
    ],
  });
}

export interface InitOptions {
  userId?: string;
  traits?: Record<string, unknown>;
  locale?: string;
  apiUrl?: string;
  [option: string]: unknown;
}

/** A host page loading the SDK like a customer's snippet; `window.ready` is init()'s promise. */
export function hostPage(
  stack: Pick<Stack, 'service' | 'apiKey'>,
  opts: { body?: string; head?: string; init?: InitOptions; lang?: string; scriptUrl?: string } = {},
): string {
  const init = { apiKey: stack.apiKey, ...opts.init };
  const src = opts.scriptUrl ?? `${stack.service.url}/sdk/guidance.js`;
  return `<!doctype html>
<html lang="${opts.lang ?? 'en'}">
<head><meta charset="utf-8"><title>Host page</title><link rel="icon" href="data:,">
<style>body{font:16px system-ui,sans-serif;margin:40px} button{padding:8px 14px}</style>${opts.head ?? ''}</head>
<body>${opts.body ?? ''}
<script src="${src}"></script>
<script>window.ready = Guidance.init(${JSON.stringify(init)});</script>
</body></html>`;
}

/** Serves pages (exact path → HTML) from another origin than the service. */
export function serveHost(stack: Stack, pages: Record<string, string>): Promise<DemoServer> {
  return startDemoServer({ config: { serviceUrl: stack.service.url, apiKey: stack.apiKey }, pages });
}

export interface SentEvent {
  type: string;
  name?: string;
  id?: string;
  properties?: Record<string, unknown>;
  userId?: string;
  anonymousId?: string;
  sessionId?: string;
  url?: string;
}

/** What a page did: the SDK events it sent (fetch or beacon), console messages, uncaught errors. */
export function watch(page: Page) {
  const events: SentEvent[] = [];
  const batches: { beacon: boolean; apiKeyInBody: boolean; size: number }[] = [];
  const consoleMessages: { type: string; text: string }[] = [];
  const errors: string[] = [];
  page.on('request', (req: Request) => {
    if (!req.url().endsWith('/api/sdk/events') || req.method() !== 'POST') return;
    try {
      const body = JSON.parse(req.postData() ?? '{}') as { events?: SentEvent[]; _apiKey?: string };
      batches.push({
        beacon: req.resourceType() === 'ping' || req.resourceType() === 'beacon' || '_apiKey' in body,
        apiKeyInBody: typeof body._apiKey === 'string',
        size: body.events?.length ?? 0,
      });
      events.push(...(body.events ?? []));
    } catch {
      // not JSON: not ours
    }
  });
  page.on('console', (m) => consoleMessages.push({ type: m.type(), text: m.text() }));
  page.on('pageerror', (e) => errors.push(String(e)));
  return {
    events,
    batches,
    console: consoleMessages,
    errors,
    of: (type: string) => events.filter((e) => e.type === type),
    /** Console output written by page scripts (not the browser's own network-error lines). */
    scriptConsole: () => consoleMessages.filter((m) => !m.text.startsWith('Failed to load resource')),
  };
}

/** Polls `check` until it returns a value (not undefined/false) or the time is up. */
export async function eventually<T>(
  check: () => Promise<T | undefined | false>,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) return value;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline)
      throw new Error(`not reached in ${timeoutMs} ms${last ? `: ${String(last)}` : ''}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Waits until the SDK has delivered everything it queued (Guidance.flush()). */
export const flush = (page: Page) =>
  page.evaluate(() => (window as unknown as { Guidance: { flush(): Promise<void> } }).Guidance.flush());

export async function publishFlow(stack: Stack, body: Record<string, unknown>): Promise<ApiRecord> {
  const flow = await stack.call('POST', '/api/flows', { siteId: SITE, template: 'PRODUCT_TOUR', ...body });
  await stack.call('POST', `/api/flows/${flow.id}/publish`);
  return flow;
}

export async function publishContent(
  stack: Stack,
  type: string,
  body: Record<string, unknown>,
): Promise<ApiRecord> {
  const item = await stack.call('POST', `/api/content/${type}`, { siteId: SITE, ...body });
  if (item.status !== 'PUBLISHED') await stack.call('POST', `/api/content/${type}/${item.id}/publish`);
  return item;
}

/** A URL_MATCH trigger for pages whose path contains `path`. */
export const onPath = (path: string) => ({
  type: 'URL_MATCH',
  config: { matchType: 'contains', pattern: path },
});

/** docs/dashboard/: where the dashboard's browser tests write their screenshots (docs/dashboard.md shows them). */
const DASHBOARD_SHOTS = new URL('../../docs/dashboard/', import.meta.url);

/** Saves the viewport of `page` as docs/dashboard/<name>.png. */
export async function dashboardShot(page: Page, name: string): Promise<void> {
  mkdirSync(DASHBOARD_SHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, DASHBOARD_SHOTS).pathname, fullPage: false });
}

/** Signs a new tenant's owner up through the dashboard's form; resolves on the Flows page. */
export async function signUpOwner(page: Page, stack: Stack, company: string): Promise<void> {
  await page.goto(`${stack.service.url}/signup`);
  await page.getByLabel('Company').fill(`${company} ${Date.now()}`);
  await page.getByLabel('Email').fill(`owner-${Date.now()}@acme.test`);
  await page.getByLabel('Password').fill('correct-horse-battery');
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.getByRole('heading', { name: 'Flows', exact: true }).waitFor();
}

const AXE_SOURCE = new URL('../../node_modules/axe-core/axe.min.js', import.meta.url);

/** axe-core's serious and critical violations on the page as it is (rule ids and their first targets). */
export async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(readFileSync(AXE_SOURCE, 'utf8'));
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run(ctx: Document): Promise<{
            violations: { id: string; impact: string; nodes: { target: string[] }[] }[];
          }>;
        };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map(
        (v) =>
          `${v.id}: ${v.nodes
            .slice(0, 3)
            .map((n) => n.target.join(' '))
            .join(', ')}`,
      );
  });
}
