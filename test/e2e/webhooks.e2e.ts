import type { Browser, BrowserContext } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';
import { dashboardShot, launchBrowser, type Stack, signUpOwner, startStack, watch } from './helpers.js';

/**
 * The webhooks page in a real browser against the real service: a new owner adds an endpoint
 * (a receiver on loopback, allowed by WEBHOOK_ALLOW_PRIVATE), copies the secret shown once,
 * sends a test event (delivered, signed: verified with the secret from the page), replays it,
 * and sees both in the delivery log. Screenshots in docs/dashboard/.
 */

let stack: Stack;
let browser: Browser;
let context: BrowserContext;
let receiver: WebhookReceiver;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  [stack, browser] = await Promise.all([
    startStack({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_BASE_MS: '200' }),
    launchBrowser(),
  ]);
  context = await browser.newContext({ viewport: { width: 1360, height: 860 }, reducedMotion: 'reduce' });
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await stack?.close();
  await receiver?.close();
});

describe('the webhooks page', () => {
  it('adds an endpoint, shows its secret once, sends a test event and replays it from the delivery log', async () => {
    const page = await context.newPage();
    const errors = watch(page).errors;
    await signUpOwner(page, stack, 'Hooks');

    await page
      .getByRole('navigation', { name: 'Main' })
      .getByRole('link', { name: 'Webhooks', exact: true })
      .click();
    await page.getByRole('heading', { name: 'No webhook endpoints yet' }).waitFor();
    await page.getByRole('button', { name: 'New endpoint' }).first().click();
    // a private address is refused by the service even here: link-local metadata
    await page.getByLabel('Endpoint URL').fill('http://169.254.169.254/latest');
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    await page
      .locator('.field', { has: page.getByLabel('Endpoint URL') })
      .getByRole('alert')
      .waitFor();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByLabel('Description (optional)').fill('CRM sync');
    await page.getByLabel('Flow published (flow.published)').check();
    await page.getByRole('button', { name: 'Create endpoint' }).click();
    const secret = await page.getByLabel('Signing secret').inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.getByRole('link', { name: receiver.url }).waitFor();
    await dashboardShot(page, 'webhooks');

    await page.getByRole('link', { name: receiver.url }).click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await page.getByRole('button', { name: 'Send test event' }).click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(1);
    const [first] = receiver.received;
    const headers = (r: typeof first) => ({
      'webhook-id': String(r!.headers['webhook-id']),
      'webhook-timestamp': String(r!.headers['webhook-timestamp']),
      'webhook-signature': String(r!.headers['webhook-signature']),
    });
    expect(new Webhook(secret).verify(first!.body, headers(first))).toMatchObject({ type: 'webhook.test' });
    await page.getByRole('button', { name: 'Refresh' }).click();
    await page.locator('.badge-delivered').first().waitFor();

    await page
      .getByRole('button', { name: /^Replay delivery / })
      .first()
      .click();
    await expect.poll(() => receiver.received.length, { timeout: 15_000 }).toBe(2);
    expect(receiver.received[1]!.headers['webhook-id']).toBe(first!.headers['webhook-id']);
    await page.getByRole('button', { name: 'Refresh' }).click();
    await expect.poll(() => page.locator('.badge-delivered').count(), { timeout: 10_000 }).toBe(2);
    await dashboardShot(page, 'webhook-deliveries');
    expect(errors).toEqual([]);
  }, 120_000);
});
