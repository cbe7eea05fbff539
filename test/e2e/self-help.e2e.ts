import type { Browser, BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DemoServer } from '../../examples/demo/server.js';
import { FAKE_VALID_KEY, type FakeProvider, startFakeProvider } from '../helpers/fake-ai-provider.js';
import {
  eventually,
  hostPage,
  launchBrowser,
  publishContent,
  type Stack,
  serveHost,
  startStack,
} from './helpers.js';

/**
 * The self-help widget searching the tenant's own knowledge base through
 * `GET /api/sdk/knowledge-base` (no `searchKnowledgeBase` hook given to init).
 */
let stack: Stack;
let browser: Browser;
let host: DemoServer;
let context: BrowserContext | undefined;
let fake: FakeProvider;
const pages: Record<string, string> = {};

beforeAll(async () => {
  fake = await startFakeProvider();
  [stack, browser] = await Promise.all([
    startStack({ OPENAI_BASE_URL: fake.urls.openaiBaseUrl }),
    launchBrowser(),
  ]);
  host = await serveHost(stack, pages);
});
afterAll(async () => {
  await context?.close();
  await browser?.close();
  await host?.close();
  await stack?.close();
  await fake?.close();
});

describe('self-help search from the service’s knowledge base', () => {
  it('lists the widget’s own items and the knowledge base’s matching articles', async () => {
    await stack.call('POST', '/api/ai-config', { provider: 'OPENAI', apiKey: FAKE_VALID_KEY });
    await stack.call('POST', '/api/ai/knowledge-base', {
      title: 'Export your projects',
      content: 'Open a project, choose **Export**, then CSV or JSON.',
      metadata: { url: 'https://help.example.com/export' },
    });
    await publishContent(stack, 'self-help', {
      name: 'Help',
      config: { position: 'right', title: 'Help center' },
      items: { articles: [{ title: 'Invite a teammate', body: 'Use the Invite button.' }] },
    });
    pages['/kb'] = hostPage(stack);
    context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${host.url}/kb`);
    await page.getByRole('button', { name: 'Help' }).click();
    const panel = page.getByRole('dialog', { name: 'Help center' });
    await panel.waitFor();
    await panel.getByRole('searchbox', { name: 'Search help' }).fill('export projects');
    await eventually(async () => (await panel.getByRole('listitem').count()) === 1);
    expect(await panel.getByRole('listitem').allInnerTexts()).toEqual(['Export your projects']);
    // An article with an address links to it (the full article lives in the help center).
    expect(await panel.getByRole('link', { name: 'Export your projects' }).getAttribute('href')).toBe(
      'https://help.example.com/export',
    );
    expect(fake.callsOf('chat')).toHaveLength(0);
  });
});
