import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dashboardShot, launchBrowser, type Stack, signUpOwner, startStack, watch } from './helpers.js';

/**
 * Versions in the dashboard (issue 39), in a real browser against the real service: an owner
 * publishes a flow (v1, with a note), edits it and sees "Unpublished changes", publishes again
 * (v2), compares v1 and v2 in the history, rolls back to v1 (published as v3) and the SDK session
 * serves v1's content again. Screenshots docs/dashboard/versions-history.png and versions-diff.png.
 * Publishing to staging and promote belong to environments, which do not exist yet.
 */

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
let stack: Stack;
let browser: Browser;
let context: BrowserContext;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  context = await browser.newContext({ viewport: { width: 1360, height: 860 }, reducedMotion: 'reduce' });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.close();
});

/** axe-core's serious and critical violations on the page as it is (as dashboard.e2e.ts checks every page). */
async function violations(page: Page) {
  await page.evaluate(AXE);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: { run(ctx: Document): Promise<{ violations: { id: string; impact: string }[] }> };
      }
    ).axe;
    const result = await axe.run(document);
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => v.id);
  });
}

/** A call of the API from the page, with the signed-in session's cookie. */
const fetchJson = (
  page: Page,
  method: string,
  url: string,
  body?: unknown,
  headers: Record<string, string> = {},
) =>
  page.evaluate(
    async ([method, url, body, headers]) => {
      const res = await fetch(url as string, {
        method: method as string,
        headers: { 'content-type': 'application/json', ...(headers as Record<string, string>) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() };
    },
    [method, url, body, headers] as const,
  );

describe('versions in the dashboard', () => {
  it('publishes, shows unpublished changes, publishes v2, compares, rolls back to v1 and the SDK serves v1', async () => {
    const page = await context.newPage();
    const errors = watch(page).errors;
    await signUpOwner(page, stack, 'Versions');
    const me = (await fetchJson(page, 'GET', '/api/auth/me')).body.data;
    const created = await fetchJson(page, 'POST', '/api/flows', {
      name: 'Welcome tour',
      siteId: me.tenant.id,
      template: 'PRODUCT_TOUR',
      steps: [{ type: 'MODAL', content: { title: 'Welcome aboard', body: 'A short tour.' } }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const flowId = created.body.data.id as string;
    const key = (await fetchJson(page, 'POST', '/api/tenants/api-keys', { name: 'sdk' })).body.data
      .key as string;
    const servedTitle = async () => {
      const res = await fetchJson(page, 'POST', '/api/sdk/session', { userId: 'ana' }, { 'x-api-key': key });
      expect(res.status).toBe(201);
      const flow = res.body.data.flows.find((f: { id: string }) => f.id === flowId);
      return flow?.steps[0].content.title as string | undefined;
    };

    // v1: publish with a note
    await page.goto(`${stack.service.url}/flows/${flowId}`);
    const title = page.locator('h1');
    await page.getByRole('button', { name: 'Publish', exact: true }).click();
    const publish = page.getByRole('dialog', { name: 'Publish this flow' });
    await publish.getByLabel('Note (optional)').fill('First release');
    await publish.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published: version 1 of the flow is live.').waitFor();
    await title.getByText('v1 live').waitFor();
    expect(await title.getByText('Unpublished changes').count()).toBe(0);
    expect(await servedTitle()).toBe('Welcome aboard');

    // an edit changes the working copy only: "Unpublished changes", the SDK still serves v1
    await page.getByLabel('Title').fill('Welcome to Acme');
    await page.getByLabel('Body').fill('Three steps to your first report.');
    await page.getByRole('button', { name: 'Save step' }).click();
    await page.getByText('Step saved.').waitFor();
    await title.getByText('Unpublished changes').waitFor();
    await page.getByRole('tab', { name: 'Targeting & schedule' }).click();
    await page.getByLabel('Name').fill('Welcome tour 2027');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Flow saved.').waitFor();
    expect(await servedTitle()).toBe('Welcome aboard');

    // v2
    await page.getByRole('button', { name: 'Publish changes' }).click();
    await publish.getByLabel('Note (optional)').fill('New welcome copy');
    await publish.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Published: version 2 of the flow is live.').waitFor();
    await title.getByText('v2 live').waitFor();
    expect(await title.getByText('Unpublished changes').count()).toBe(0);
    expect(await servedTitle()).toBe('Welcome to Acme');

    // the history, and the diff of v1 and v2
    await page.getByRole('button', { name: 'History' }).click();
    const history = page.getByRole('dialog', { name: 'Version history' });
    const rows = history.getByRole('table', { name: 'Versions' }).getByRole('row');
    await expect.poll(() => rows.count()).toBe(3);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText keeps the line breaks between cells that the pattern matches
    expect(await rows.nth(1).innerText()).toMatch(/v2\s+live[\s\S]*New welcome copy[\s\S]*You/i);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText keeps the line breaks between cells that the pattern matches
    expect(await rows.nth(2).innerText()).toMatch(/v1[\s\S]*First release/);
    await page.waitForTimeout(300);
    await dashboardShot(page, 'versions-history');
    await history.getByLabel('From').selectOption('1');
    await history.getByLabel('To').selectOption('2');
    await history.getByRole('button', { name: 'Compare' }).click();
    const fields = history.getByRole('table', { name: 'Fields changed from version 1 to 2' });
    await fields.waitFor();
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText keeps the line breaks between cells that the pattern matches
    expect(await fields.innerText()).toMatch(/name\s+Welcome tour\s+Welcome tour 2027/);
    const steps = history.getByRole('region', { name: 'steps changes' });
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText keeps the line breaks between cells that the pattern matches
    expect(await steps.innerText()).toMatch(/changed\s+“Welcome to Acme” \(modal\)/i);
    // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText keeps the line breaks between cells that the pattern matches
    expect(await steps.innerText()).toMatch(/content\.title\s+Welcome aboard\s+Welcome to Acme/);
    await history.getByRole('heading', { name: 'Changes from v1 to v2' }).scrollIntoViewIfNeeded();
    await page.waitForTimeout(300);
    await dashboardShot(page, 'versions-diff');
    expect(await violations(page)).toEqual([]);

    // roll back to v1: confirmed, published as v3, served at once
    await history.getByRole('button', { name: 'Roll back to version 1' }).click();
    await history.getByRole('alertdialog', { name: 'Confirm roll back' }).waitFor();
    await history.getByRole('button', { name: 'Roll back to v1' }).click();
    await history.getByText('Rolled back: version 1 is live again (as version 3).').waitFor();
    expect(await servedTitle()).toBe('Welcome aboard');
    // rolling back to what is live already: nothing to do, said in words
    await history.getByRole('button', { name: 'Roll back to version 1' }).click();
    await history.getByRole('button', { name: 'Roll back to v1' }).click();
    await history.getByText('Nothing to do: version 1 is what is live already.').waitFor();
    await history.getByRole('button', { name: 'Close' }).click();
    await title.getByText('v3 live').waitFor();
    expect(await title.getByText('Unpublished changes').count()).toBe(0);
    await page.getByRole('tab', { name: /Steps/ }).click();
    expect(await page.getByLabel('Title').inputValue()).toBe('Welcome aboard');
    const flow = (await fetchJson(page, 'GET', `/api/flows/${flowId}`)).body.data;
    expect([flow.name, flow.version, flow.hasUnpublishedChanges]).toEqual(['Welcome tour', 3, false]);
    expect(errors).toEqual([]);
  });
});
