import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchBrowser, type Stack, startStack } from './helpers.js';

/**
 * Sign in with Google from the dashboard, with a Google client id configured: the sign-in page
 * loads Google Identity Services (stood in for by a local script served at its real address:
 * the machine has no internet), whose button hands the dashboard an ID token signed by a local
 * key that the service trusts through GOOGLE_JWKS_URL; the dashboard exchanges it and is signed in.
 */
const CLIENT_ID = 'dashboard-e2e.apps.googleusercontent.com';
const KID = 'e2e-key';

let stack: Stack;
let browser: Browser;
let jwks: Server;
let privateKey: CryptoKey;

/** What `https://accounts.google.com/gsi/client` defines, reduced to what the dashboard calls. */
const fakeGsi = (token: string) => `
  window.google = { accounts: { id: {
    initialize(o) { window.__gsi = o; },
    renderButton(parent) {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = 'Continue with Google';
      b.onclick = () => window.__gsi.callback({ credential: ${JSON.stringify(token)} });
      parent.append(b);
    },
  } } };`;

beforeAll(async () => {
  const pair = await generateKeyPair('RS256', { extractable: true });
  privateKey = pair.privateKey;
  const jwk = { ...(await exportJWK(pair.publicKey)), kid: KID, alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/certs`;
  [stack, browser] = await Promise.all([
    startStack({ GOOGLE_CLIENT_ID: CLIENT_ID, GOOGLE_JWKS_URL: jwksUrl }),
    launchBrowser(),
  ]);
});
afterAll(async () => {
  await browser?.close();
  await stack?.close();
  await new Promise((resolve) => jwks?.close(resolve));
});

describe('Google sign-in in the dashboard', () => {
  it('signs a new user up with a Google ID token and lands in the app', async () => {
    const email = `gina-${Date.now()}@gmail.com`;
    const now = Math.floor(Date.now() / 1000);
    const token = await new SignJWT({ email, email_verified: true, name: 'Gina Google' })
      .setProtectedHeader({ alg: 'RS256', kid: KID })
      .setIssuer('https://accounts.google.com')
      .setAudience(CLIENT_ID)
      .setSubject(`google-${now}`)
      .setIssuedAt(now)
      .setExpirationTime(now + 600)
      .sign(privateKey);
    const context = await browser.newContext();
    try {
      let gsiLoads = 0;
      await context.route('https://accounts.google.com/gsi/client', (route) => {
        gsiLoads++;
        return route.fulfill({ contentType: 'application/javascript', body: fakeGsi(token) });
      });
      const page = await context.newPage();
      const csp: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) csp.push(m.text());
      });
      await page.goto(`${stack.service.url}/signin`);
      const google = page.getByRole('button', { name: 'Continue with Google' });
      await google.waitFor();
      await page.screenshot({
        path: new URL('../../docs/dashboard/sign-in-google.png', import.meta.url).pathname,
      });
      await google.click();
      await page.waitForURL(/\/flows$/);
      await page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: 'Flows', exact: true })
        .waitFor();
      expect(await page.textContent('body')).toContain(email);
      expect(gsiLoads).toBe(1);
      expect(csp).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
