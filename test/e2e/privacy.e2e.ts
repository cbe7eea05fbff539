import { readFileSync } from 'node:fs';
import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardShot, launchBrowser, type Stack, signUpOwner, startStack, watch } from './helpers.js';

/**
 * Settings › Privacy requests in a real browser against the real service: a new owner's app
 * sends events for two end users (through the SDK's route), the owner downloads one user's
 * export (a JSON file with its events), requests its deletion (confirmed), and sees the request
 * complete with what was removed. Screenshot in docs/dashboard/privacy.png.
 */

let stack: Stack;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  context = await browser.newContext({
    viewport: { width: 1360, height: 860 },
    reducedMotion: 'reduce',
    acceptDownloads: true,
  });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.close();
});

describe('the privacy requests page', () => {
  it("downloads an end user's export, requests its deletion and sees it complete", async () => {
    const page = await context.newPage();
    const errors = watch(page).errors;
    await signUpOwner(page, stack, 'Privacy');

    // The customer's app: an API key (made with the page's session) and events of two users.
    const key = await page.evaluate(async () => {
      const res = await fetch('/api/tenants/api-keys', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'web' }),
      });
      return ((await res.json()) as { data: { key: string } }).data.key;
    });
    for (const userId of ['user-42', 'user-7']) {
      const res = await fetch(`${stack.service.url}/api/sdk/events`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          events: [
            { type: 'PAGE_VIEW', userId, url: 'https://app.example.com/' },
            { type: 'PAGE_VIEW', userId, url: 'https://app.example.com/billing' },
          ],
        }),
      });
      expect(res.status).toBe(202);
    }

    await page.goto(`${stack.service.url}/settings/privacy`);
    await page.getByRole('heading', { name: 'No deletion requests yet' }).waitFor();
    await page.getByLabel("End user's userId").fill('user-42');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download export (JSON)' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('end-user-user-42.json');
    const exported = JSON.parse(readFileSync(await download.path(), 'utf8'));
    expect(exported.userId).toBe('user-42');
    expect(exported.events.map((e: { url: string }) => e.url).sort()).toEqual([
      'https://app.example.com/',
      'https://app.example.com/billing',
    ]);

    await page.getByRole('button', { name: 'Request deletion' }).click();
    await page.getByText('This cannot be undone.', { exact: false }).waitFor();
    await page.getByRole('button', { name: 'Confirm deletion' }).click();
    await page.locator('.badge-completed').waitFor({ timeout: 20_000 });
    await page.getByText(/events 2/).waitFor();

    // The other user is still there; the erased one is not.
    await page.getByLabel("End user's userId").fill('user-7');
    const [other] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download export (JSON)' }).click(),
    ]);
    expect(JSON.parse(readFileSync(await other.path(), 'utf8')).events).toHaveLength(2);
    await page.getByLabel("End user's userId").fill('user-42');
    await page.getByRole('button', { name: 'Download export (JSON)' }).click();
    await page.getByText('End user not found').waitFor();
    await page.getByLabel("End user's userId").fill('');
    await dashboardShot(page, 'privacy');
    expect(errors.filter((e) => !e.includes('404'))).toEqual([]);
  }, 120_000);
});
