import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  axeViolations,
  dashboardShot,
  eventually,
  launchBrowser,
  onPath,
  publishFlow,
  SITE,
  type Stack,
  startStack,
  watch,
} from './helpers.js';

/**
 * The end users of the dashboard (issue 38), in Chromium with the real service: users identified
 * through the SDK's identify endpoint are listed last seen first and found by the search; a user's
 * page shows their traits and what they completed, and "Preview as this user" on a URL says which
 * flows are SHOWN and which SUPPRESSED, and why; Export data downloads a user's JSON and Delete
 * user erases them once confirmed. Screenshots docs/dashboard/end-users.png and
 * end-user.png.
 */

let stack: Stack;
let browser: Browser;
let dashboard: BrowserContext;

const sdk = async (path: string, body: unknown) => {
  const res = await fetch(`${stack.service.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': stack.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.status, `${path}: ${await res.clone().text()}`).toBeLessThan(300);
};

const PEOPLE = [
  { userId: 'grace.hopper', traits: { email: 'grace@navy.example', name: 'Grace Hopper', plan: 'free' } },
  { userId: 'alan.turing', traits: { email: 'alan@bletchley.example', name: 'Alan Turing', plan: 'free' } },
  {
    userId: 'katherine.j',
    traits: { email: 'katherine@nasa.example', name: 'Katherine Johnson', plan: 'pro' },
  },
  { userId: 'linus', traits: { email: 'linus@kernel.example', name: 'Linus', plan: 'free' } },
  {
    userId: 'margaret.h',
    traits: { email: 'margaret@apollo.example', name: 'Margaret Hamilton', plan: 'pro' },
  },
  {
    userId: 'ada.lovelace',
    traits: {
      email: 'ada@analytical.example',
      name: 'Ada Lovelace',
      plan: 'pro',
      company: 'Analytical Engines',
      seats: 12,
    },
  },
];

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  dashboard = await browser.newContext({
    viewport: { width: 1360, height: 900 },
    reducedMotion: 'reduce',
    acceptDownloads: true,
  });
  await dashboard.addCookies([
    { name: 'session_token', value: stack.store.ownerToken, url: stack.service.url },
  ]);
});
afterAll(async () => {
  await dashboard?.close();
  await browser?.close();
  await stack?.close();
});

/** The explanation table's rows as `name → [decision, reason, detail]`. */
async function explanation(page: Page): Promise<Record<string, [string, string, string]>> {
  const table = page.getByRole('table', { name: 'What this user is shown' });
  await table.waitFor();
  const rows: Record<string, [string, string, string]> = {};
  for (const row of await table.locator('tbody tr').all()) {
    const cells = await row.locator('td').allTextContents();
    rows[cells[0]!] = [cells[2]!, cells[3]!, cells[4]!];
  }
  return rows;
}

describe('end users in the dashboard', () => {
  it('lists identified users, finds one, shows their page and previews what they are shown on a URL', async () => {
    const pro = await stack.call('POST', '/api/audiences', {
      name: 'Pro plan',
      ruleTree: { logicalOperator: 'AND', rules: [{ field: 'traits.plan', operator: 'eq', value: 'pro' }] },
    });
    const modal = (title: string) => [{ type: 'MODAL', content: { title, body: 'A tour.' } }];
    const welcome = await publishFlow(stack, {
      name: 'Welcome tour',
      trigger: onPath('/app'),
      steps: modal('Welcome'),
    });
    await publishFlow(stack, {
      name: 'Pro features',
      trigger: onPath('/app'),
      audienceId: pro.id,
      priority: 5,
      steps: modal('Pro'),
    });
    await publishFlow(stack, { name: 'Billing tour', trigger: onPath('/billing'), steps: modal('Billing') });
    await stack.call('POST', '/api/flows', { siteId: SITE, template: 'PRODUCT_TOUR', name: 'Draft tour' });

    for (const person of PEOPLE) await sdk('/api/sdk/identify', person);
    // an anonymous visitor, seen through its events only
    await sdk('/api/sdk/events', {
      events: [{ type: 'PAGE_VIEW', anonymousId: 'anon-7f3a', properties: { url: '/' } }],
    });
    await sdk('/api/sdk/events', {
      events: [{ type: 'FLOW_COMPLETED', userId: 'ada.lovelace', properties: { flowId: welcome.id } }],
    });
    await eventually(async () => {
      const ada = await stack.call('GET', '/api/end-users/ada.lovelace');
      return (ada.itemStates as unknown[]).length === 1 ? ada : undefined;
    });

    const page = await dashboard.newPage();
    const errors = watch(page).errors;
    await page.goto(`${stack.service.url}/flows`);
    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'End users', exact: true })
      .click();
    const table = page.getByRole('table');
    await table.locator('tbody tr').first().waitFor();
    // last seen first: the anonymous visitor (its events were processed after the identifies), then ada
    const firstColumn = () => table.locator('tbody tr td:first-child').allTextContents();
    await expect.poll(firstColumn).toHaveLength(PEOPLE.length + 1);
    expect((await firstColumn()).slice(0, 2)).toEqual(['ada.lovelace', 'Anonymousanon-7f3a']);
    expect(await axeViolations(page)).toEqual([]);
    await dashboardShot(page, 'end-users');

    // search: the start of a userId, an email or a name
    await page.getByRole('searchbox', { name: 'Search end users' }).fill('marg');
    await expect.poll(firstColumn).toEqual(['margaret.h']);
    await page.getByRole('searchbox', { name: 'Search end users' }).fill('ada@');
    await expect.poll(firstColumn).toEqual(['ada.lovelace']);
    expect(page.url()).toContain('search=ada%40');
    await table.getByRole('link', { name: 'ada.lovelace' }).click();

    await page.getByRole('heading', { name: /ada\.lovelace/ }).waitFor();
    const profile = page.getByRole('region', { name: 'Profile' });
    await expect.poll(() => profile.textContent()).toContain('Analytical Engines');
    const items = page.getByRole('table', { name: 'Completed and dismissed items' });
    await expect
      .poll(() => items.locator('tbody tr td:first-child').allTextContents())
      .toEqual(['Welcome tour']);

    // preview on the app's page: Pro features is shown, the completed tour is not
    await page.getByLabel('Page URL').fill('https://app.example.com/app/home');
    await page.getByRole('button', { name: 'Preview', exact: true }).click();
    const onApp = await explanation(page);
    expect(onApp['Pro features']).toEqual(['shown', '—', '—']);
    expect(onApp['Welcome tour']?.slice(0, 2)).toEqual(['suppressed', 'ALREADY_COMPLETED']);
    expect(onApp['Billing tour']?.slice(0, 2)).toEqual(['suppressed', 'URL_MISMATCH']);
    expect(onApp['Draft tour']?.slice(0, 2)).toEqual(['suppressed', 'NOT_PUBLISHED']);
    expect(page.url()).toContain('url=https%3A%2F%2Fapp.example.com%2Fapp%2Fhome');
    expect(await axeViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 1360, height: 1080 }); // the preview's table in the picture
    await dashboardShot(page, 'end-user');
    await page.setViewportSize({ width: 1360, height: 900 });

    // another user on the same page: not in the audience, and the welcome tour is theirs to see
    await page.goto(
      `${stack.service.url}/end-users/linus?url=${encodeURIComponent('https://app.example.com/app')}`,
    );
    const forLinus = await explanation(page);
    expect(forLinus['Welcome tour']).toEqual(['shown', '—', '—']);
    expect(forLinus['Pro features']?.slice(0, 2)).toEqual(['suppressed', 'AUDIENCE_MISMATCH']);

    // privacy: the export downloads their JSON; the deletion asks first, then shows its status to the end
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Export data' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('end-user-linus.json');
    const exported = JSON.parse(readFileSync((await file.path())!, 'utf8'));
    expect(exported.endUsers[0]).toMatchObject({ traits: { email: 'linus@kernel.example' } });
    await page.getByRole('button', { name: 'Delete user' }).click();
    const confirm = page.getByRole('dialog', { name: 'Delete linus?' });
    await confirm.getByRole('button', { name: 'Delete user' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: 'Deletion' })
      .getByText('completed')
      .waitFor({ timeout: 20_000 });
    const gone = await fetch(`${stack.service.url}/api/end-users/linus`, {
      headers: { authorization: `Bearer ${stack.store.ownerToken}` },
    });
    expect(gone.status).toBe(404);

    // the Delivery page's preview points to this list
    await page.goto(`${stack.service.url}/delivery/preview`);
    await page.getByRole('link', { name: 'End users', exact: true }).last().click();
    await page.getByRole('heading', { name: 'End users', exact: true }).waitFor();
    expect(errors).toEqual([]);
  });
});
