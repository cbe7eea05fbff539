import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../../examples/demo/server.js';
import {
  dashboardShot,
  eventually,
  flush,
  hostPage,
  launchBrowser,
  onPath,
  publishContent,
  publishFlow,
  type Stack,
  serveHost,
  startStack,
  watch,
} from './helpers.js';

/**
 * The delivery policy end to end (issue 38's proof), in Chromium with the real service: the owner
 * sets a cooldown in the dashboard's Delivery page (a bad cap first: the API's 400 next to its
 * field) and drags the older of two flows of one page to the top of the priority list. A user
 * opening that page sees only the higher one; the Preview page says why the other is held back;
 * after the user completes the first and the cooldown passes, the Preview says SHOWN and the
 * page shows the other one. Screenshots docs/dashboard/delivery-policy.png and delivery-preview.png.
 */

const COOLDOWN_SECONDS = 25;
let stack: Stack;
let browser: Browser;
let host: DemoServer;
let dashboard: BrowserContext;
const pages: Record<string, string> = {};

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  host = await serveHost(stack, pages);
  dashboard = await browser.newContext({ viewport: { width: 1360, height: 860 }, reducedMotion: 'reduce' });
  await dashboard.addCookies([
    { name: 'session_token', value: stack.store.ownerToken, url: stack.service.url },
  ]);
});
afterAll(async () => {
  await dashboard?.close();
  await browser?.close();
  await host?.close();
  await stack?.close();
});

/** The Preview table's rows as `name → [decision, reason]`. */
async function preview(page: Page, userId: string, url: string): Promise<Record<string, [string, string]>> {
  await page.getByLabel('User', { exact: true }).fill(userId);
  await page.getByLabel('Page URL').fill(url);
  await page.getByRole('button', { name: 'Preview', exact: true }).click();
  const table = page.getByRole('table', { name: 'What this user is shown' });
  await table.waitFor();
  const rows: Record<string, [string, string]> = {};
  for (const row of await table.locator('tbody tr').all()) {
    const cells = await row.locator('td').allTextContents();
    rows[cells[0]!] = [cells[2]!, cells[3]!];
  }
  return rows;
}

const fieldOf = (page: Page, label: string): Locator =>
  page.locator('.field', { has: page.getByLabel(label) });

describe('the delivery policy in the dashboard and the browser', () => {
  it('serves only the higher priority flow, the other after completion and the cooldown, and the Preview says why', async () => {
    const steps = (title: string) => [
      { type: 'MODAL', content: { title, body: 'One of two tours on this page.' } },
    ];
    await publishFlow(stack, { name: 'Alpha tour', trigger: onPath('/t/two'), steps: steps('Alpha tour') });
    // published later: at equal priority it would come first
    await publishFlow(stack, { name: 'Beta tour', trigger: onPath('/t/two'), steps: steps('Beta tour') });
    await publishContent(stack, 'announcements', {
      name: 'Holiday sale',
      type: 'BANNER',
      content: { title: 'Holiday sale', body: '20% off' },
      triggerConfig: { type: 'url_match', pattern: '/t/pricing' },
      bypassCaps: true,
    });
    pages['/t/two'] = hostPage(stack, { body: '<h1>Home</h1>', init: { userId: 'pat' } });
    const pageUrl = `${host.url}/t/two`;

    // the policy, through the dashboard
    const app = await dashboard.newPage();
    const appErrors = watch(app).errors;
    await app.goto(`${stack.service.url}/flows`);
    await app
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Delivery', exact: true })
      .click();
    await app.getByRole('heading', { name: 'Policy', exact: true }).waitFor();
    await app.getByRole('button', { name: 'Add cap' }).click();
    await app.getByLabel('Cap 1 max').fill('0');
    await app.getByRole('button', { name: 'Save policy' }).click();
    // the service's 400 names caps.0.max: its message is under that field
    await fieldOf(app, 'Cap 1 max').getByRole('alert').waitFor();
    await app.getByLabel('Cap 1 max').fill('10');
    await app.getByRole('button', { name: 'Add cap' }).click();
    await app.getByLabel('Cap 2 scope').selectOption('modal-like');
    await app.getByLabel('Cap 2 max').fill('3');
    await app.getByLabel('Cap 2 period').selectOption('session');
    await app.getByLabel('Cooldown (seconds)').fill(String(COOLDOWN_SECONDS));
    await app.getByRole('button', { name: 'Save policy' }).click();
    await app.getByText('Policy saved.').waitFor();
    expect(await stack.call('GET', '/api/delivery-policy')).toMatchObject({
      caps: [
        { scope: 'all', max: 10, per: 'day' },
        { scope: 'modal-like', max: 3, per: 'session' },
      ],
      cooldownSeconds: COOLDOWN_SECONDS,
      afterDismissDays: null,
    });

    // the order: the most recently published first (all at priority 0); Alpha dragged onto Beta's place
    const list = app.getByRole('list', { name: 'Priority order (drag to reorder)' });
    const names = () => list.locator('.priority-name').allTextContents();
    await list.locator('.priority-name').first().waitFor();
    await expect.poll(names).toEqual(['Holiday sale', 'Beta tour', 'Alpha tour']);
    await list.locator('li', { hasText: 'Alpha tour' }).dragTo(list.locator('li', { hasText: 'Beta tour' }));
    await expect.poll(names, { timeout: 10_000 }).toEqual(['Holiday sale', 'Alpha tour', 'Beta tour']);
    const priorities = async () => {
      const flows = (await stack.call('GET', '/api/flows')) as unknown as {
        name: string;
        priority: number;
      }[];
      return Object.fromEntries(flows.map((f) => [f.name, f.priority]));
    };
    await expect.poll(priorities, { timeout: 10_000 }).toMatchObject({ 'Alpha tour': 1, 'Beta tour': 0 });
    await app.reload();
    await list.locator('.priority-name').first().waitFor();
    await expect.poll(names).toEqual(['Holiday sale', 'Alpha tour', 'Beta tour']);
    await dashboardShot(app, 'delivery-policy');

    // the user: only the higher priority shows
    const visitor = await browser.newContext({ viewport: { width: 1200, height: 800 } });
    const user = await visitor.newPage();
    const seen = watch(user);
    await user.goto(pageUrl);
    await user.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    const alpha = user.getByRole('dialog', { name: 'Alpha tour' });
    await alpha.waitFor();
    await user.waitForTimeout(500);
    expect(await user.getByRole('dialog', { name: 'Beta tour' }).count()).toBe(0);

    // the Preview says why
    await app.getByRole('tab', { name: 'Preview as a user' }).click();
    const first = await preview(app, 'pat', pageUrl);
    expect(first['Alpha tour']).toEqual(['shown', '—']);
    expect(first['Beta tour']).toEqual(['suppressed', 'COOLDOWN']);
    expect(first['Holiday sale']).toEqual(['suppressed', 'URL_MISMATCH']);

    // the user completes Alpha; within the cooldown Beta is still held back
    await user.getByRole('button', { name: 'Done' }).click();
    await alpha.waitFor({ state: 'detached' });
    await flush(user);
    const completed = await eventually(async () => {
      const rows = await preview(app, 'pat', pageUrl);
      return rows['Alpha tour']?.[1] === 'ALREADY_COMPLETED' ? rows : undefined;
    });
    expect(completed['Beta tour']).toEqual(['suppressed', 'COOLDOWN']);
    await dashboardShot(app, 'delivery-preview');
    await user.reload();
    await user.evaluate(() => (window as unknown as { ready: Promise<void> }).ready);
    await user.waitForTimeout(500);
    expect(await user.getByRole('dialog').count()).toBe(0);

    // the cooldown passes: the Preview says SHOWN, and the page shows Beta
    const after = await eventually(
      async () => {
        const rows = await preview(app, 'pat', pageUrl);
        return rows['Beta tour']?.[0] === 'shown' ? rows : undefined;
      },
      (COOLDOWN_SECONDS + 60) * 1000,
    );
    expect(after['Alpha tour']).toEqual(['suppressed', 'ALREADY_COMPLETED']);
    await user.reload();
    await user.getByRole('dialog', { name: 'Beta tour' }).waitFor();
    expect(await user.getByRole('dialog', { name: 'Alpha tour' }).count()).toBe(0);

    // an unknown user
    await app.getByLabel('User', { exact: true }).fill('nobody-here');
    await app.getByRole('button', { name: 'Preview', exact: true }).click();
    await app.getByText('No such end user: nobody-here').waitFor();
    expect(seen.errors).toEqual([]);
    expect(appErrors).toEqual([]);
    await visitor.close();
  }, 240_000);
});
