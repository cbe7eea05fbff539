/**
 * `npm run demo`: with the service running (`npm start`), creates a demo company through the
 * API, publishes one of every kind of guidance, and serves the demo app on another port.
 *
 *   SERVICE_URL   the guidance service (default http://127.0.0.1:3000)
 *   DEMO_PORT     the demo app's port (default 5173)
 */
import { randomBytes } from 'node:crypto';
import { dashboardClient, seedDemo } from './seed.js';
import { startDemoServer } from './server.js';

const serviceUrl = (process.env.SERVICE_URL ?? 'http://127.0.0.1:3000').replace(/\/+$/, '');
const port = Number(process.env.DEMO_PORT ?? 5173);

const suffix = randomBytes(3).toString('hex');
const email = `demo-${suffix}@example.com`;
const password = `demo-${randomBytes(9).toString('base64url')}`;
const register = await fetch(`${serviceUrl}/api/auth/register`, {
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ email, password, name: 'Demo owner', companyName: `Acme demo ${suffix}` }),
}).catch((err: unknown) => {
  console.error(`Cannot reach the guidance service at ${serviceUrl} (start it with \`npm start\`).`, err);
  process.exit(1);
});
if (!register.ok) {
  console.error(`Registering the demo company failed: ${register.status} ${await register.text()}`);
  process.exit(1);
}
const { accessToken } = (await register.json()).data;
const call = dashboardClient(serviceUrl, accessToken);
const apiKey = String((await call('POST', '/api/tenants/api-keys', { name: 'demo' })).key);
const content = await seedDemo(call);
const demo = await startDemoServer({
  port,
  config: {
    serviceUrl,
    apiKey,
    userId: 'jordan@acme.test',
    traits: { plan: 'trial' },
    setupFlowId: content.setupFlowId,
  },
});
console.log(`
Demo app:       ${demo.url}  (another origin than the service: the SDK works cross-origin)
Service:        ${serviceUrl}
Dashboard user: ${email} / ${password}
SDK key:        ${apiKey}
Ctrl+C stops the demo app.`);
