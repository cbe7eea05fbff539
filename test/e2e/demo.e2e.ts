import { mkdirSync } from 'node:fs';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type DemoContent, seedDemo } from '../../examples/demo/seed.js';
import { type DemoServer, startDemoServer } from '../../examples/demo/server.js';
import { launchBrowser, type Stack, startStack, watch } from './helpers.js';

/**
 * The demo app (examples/demo) as a new user opens it: every kind of guidance on its page,
 * checked for what a person sees, and photographed into docs/sdk/ for the documentation.
 */
const SHOTS = new URL('../../docs/sdk/', import.meta.url);
let stack: Stack;
let browser: Browser;
let demo: DemoServer;
let content: DemoContent;
let context: BrowserContext;

beforeAll(async () => {
  [stack, browser] = await Promise.all([startStack(), launchBrowser()]);
  content = await seedDemo(stack.call);
  demo = await startDemoServer({
    config: {
      serviceUrl: stack.service.url,
      apiKey: stack.apiKey,
      userId: 'jordan@acme.test',
      setupFlowId: content.setupFlowId,
    },
  });
  mkdirSync(SHOTS, { recursive: true });
});
afterAll(async () => {
  await browser?.close();
  await demo?.close();
  await stack?.close();
});
afterEach(async () => {
  await context?.close();
});

async function visit(path: string): Promise<{ page: Page; seen: ReturnType<typeof watch> }> {
  context = await browser.newContext({ viewport: { width: 1280, height: 800 }, reducedMotion: 'reduce' });
  const page = await context.newPage();
  const seen = watch(page);
  await page.goto(demo.url + path);
  return { page, seen };
}

const shot = (page: Page, name: string) => page.screenshot({ path: new URL(`${name}.png`, SHOTS).pathname });

describe('the demo app', () => {
  it('runs the home page tour: modal, tooltips, beacon and slideout', async () => {
    const { page, seen } = await visit('/');
    await page.getByRole('dialog', { name: 'Welcome to Acme Projects' }).waitFor();
    // the checklist and the help button are on every page
    await page.getByRole('button', { name: /Getting started/ }).waitFor();
    await page.getByRole('button', { name: 'Help' }).waitFor();
    await shot(page, 'flow-modal');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('dialog', { name: 'Create your first project' }).waitFor();
    await page.waitForTimeout(300);
    await shot(page, 'flow-tooltip');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('button', { name: 'Invite your team' }).click();
    await page.getByRole('dialog', { name: 'Invite your team' }).waitFor();
    await page.waitForTimeout(300);
    await shot(page, 'flow-beacon');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('dialog', { name: "You're all set" }).waitFor();
    await shot(page, 'flow-slideout');
    await page.getByRole('button', { name: 'Done' }).click();
    expect(seen.errors).toEqual([]);
  });

  it('shows a tooltip and a beacon on the projects page', async () => {
    const { page } = await visit('/projects');
    await page.getByRole('dialog', { name: 'Start from a template' }).waitFor();
    await page.getByRole('button', { name: 'Saved views' }).waitFor();
    await page.waitForTimeout(300);
    await shot(page, 'tooltip');
    await page
      .getByRole('dialog', { name: 'Start from a template' })
      .getByRole('button', { name: 'Close' })
      .click();
    await page.getByRole('button', { name: 'Saved views' }).click();
    await page.getByRole('dialog', { name: 'Saved views' }).waitFor();
    await page.waitForTimeout(300);
    await shot(page, 'beacon');
  });

  it.each([
    ['modal', 'New: Timeline view'],
    ['banner', 'Scheduled maintenance'],
    ['slideout', "What's new in March"],
    ['toast', 'Your export is ready'],
  ])('shows the %s announcement', async (kind, title) => {
    const { page } = await visit(`/announcements/${kind}`);
    const dialog = page.getByRole('dialog', { name: title });
    await dialog.waitFor();
    expect(await dialog.isVisible()).toBe(true);
    await shot(page, `announcement-${kind}`);
  });

  it('shows the survey and the NPS question', async () => {
    const { page } = await visit('/feedback');
    const survey = page.getByRole('dialog', { name: 'Help us improve the editor' });
    await survey.waitFor();
    await survey.getByRole('button', { name: '4', exact: true }).click();
    await survey.getByLabel('Product').check();
    await shot(page, 'survey');
    await context.close();
    const nps = await visit('/nps');
    const dialog = nps.page.getByRole('dialog', { name: /recommend Acme/ });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: '9', exact: true }).click();
    await dialog.getByRole('textbox').fill('The timeline view saves me an hour a week.');
    await shot(nps.page, 'nps');
  });

  it('opens the checklist and the help center', async () => {
    const { page } = await visit('/setup');
    await page.getByRole('button', { name: /Getting started/ }).click();
    await page.getByRole('dialog', { name: 'Getting started' }).waitFor();
    await shot(page, 'task-list');
    await page
      .getByRole('dialog', { name: 'Getting started' })
      .getByRole('button', { name: 'Close' })
      .click();
    await page.getByRole('button', { name: 'Help' }).click();
    const help = page.getByRole('dialog', { name: 'How can we help?' });
    await help.waitFor();
    await help.getByRole('button', { name: 'Inviting teammates' }).click();
    await shot(page, 'self-help');
  });

  it('runs the manual setup flow: click and input steps, a form, a video and a banner', async () => {
    const { page } = await visit('/setup');
    // early or not, the click starts the flow (startFlow waits for init)
    await page.getByRole('button', { name: 'Start the setup guide' }).click();
    await page.getByRole('dialog', { name: 'Pick a plan' }).waitFor();
    await page.waitForTimeout(300);
    await shot(page, 'flow-click');
    await page.locator('#plan-monthly').click();
    await page.getByRole('dialog', { name: 'Name your project' }).waitFor();
    await page.locator('#project-name').fill('Website relaunch');
    const form = page.getByRole('dialog', { name: 'Tell us about your team' });
    await form.waitFor();
    await form.getByLabel('Team name').fill('Design');
    await form.getByLabel('Team size').selectOption('6–20');
    await shot(page, 'flow-form');
    await form.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('dialog', { name: 'Acme in 90 seconds' }).waitFor();
    await shot(page, 'flow-video');
    await page.getByRole('button', { name: 'Next' }).click();
    await page.getByRole('dialog', { name: 'Setup complete' }).waitFor();
    await shot(page, 'flow-banner');
  });

  it('waits for the reports chart, which appears late', async () => {
    const { page } = await visit('/reports');
    await page.getByRole('dialog', { name: 'Velocity' }).waitFor({ timeout: 8000 });
    expect(await page.locator('#reports-chart').isVisible()).toBe(true);
  });
});
