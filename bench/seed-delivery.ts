/**
 * Seeds a tenant through the dashboard API with `items` published flows and content items and
 * `audiences` audiences, identifies an end user, and returns a session request body whose
 * answer is a realistic mix (some items match, some do not).
 */
export async function seedDelivery(
  baseUrl: string,
  ownerToken: string,
  opts: { items: number; audiences: number },
) {
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${ownerToken}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const siteId = '0190f3a2-0000-7000-8000-000000000001';
  const plans = ['free', 'starter', 'growth', 'enterprise'];
  const audienceIds: string[] = [];
  for (let i = 0; i < opts.audiences; i++) {
    const res = await api('POST', '/api/audiences', {
      name: `Audience ${i}`,
      ruleTree: {
        logicalOperator: 'AND',
        rules: [
          { field: 'traits.plan', operator: 'in', value: plans.slice(0, 1 + (i % 4)) },
          { field: 'traits.seats', operator: 'gte', value: i % 3 },
          {
            logicalOperator: 'OR',
            rules: [
              { field: 'traits.country', operator: 'eq', value: 'FR' },
              { field: 'role', operator: 'exists' },
            ],
          },
        ],
      },
    });
    audienceIds.push(res.data.id);
  }
  const audienceFor = (i: number) => (i % 3 === 0 ? undefined : audienceIds[i % audienceIds.length]);
  let published = 0;
  for (let i = 0; i < opts.items; i++) {
    const audienceId = audienceFor(i);
    if (i % 2 === 0) {
      const flow = await api('POST', '/api/flows', {
        name: `Tour ${i}`,
        siteId,
        template: 'PRODUCT_TOUR',
        ...(audienceId ? { audienceId } : {}),
        trigger:
          i % 4 === 0
            ? { type: 'URL_MATCH', config: { matchType: 'contains', pattern: '/dashboard' } }
            : { type: 'MANUAL', config: {} },
        steps: Array.from({ length: 4 }, (_, s) => ({
          type: 'TOOLTIP',
          targetSelector: `#step-${s}`,
          content: { title: `Step ${s + 1}`, body: 'Click here to continue with the tour of this feature.' },
        })),
      });
      await api('POST', `/api/flows/${flow.data.id}/publish`);
    } else {
      const type = ['tooltips', 'beacons', 'announcements', 'surveys'][i % 4]!;
      const common = { name: `${type} ${i}`, siteId, ...(audienceId ? { audienceId } : {}) };
      const bodies: Record<string, unknown> = {
        tooltips: {
          ...common,
          targetSelector: '#save',
          content: { text: 'Save your work here.' },
          position: 'TOP',
        },
        beacons: { ...common, targetSelector: '#new', content: { message: 'New!' }, animation: 'subtle' },
        announcements: {
          ...common,
          type: 'BANNER',
          content: { title: 'We shipped', body: 'Dark mode is here.' },
        },
        surveys: {
          ...common,
          questions: [
            { type: 'RATING', question: 'How do you like it?', required: true, order: 0 },
            {
              type: 'SINGLE_CHOICE',
              question: 'Role?',
              required: false,
              options: { choices: ['dev', 'pm'] },
              order: 1,
            },
          ],
        },
      };
      const item = await api('POST', `/api/content/${type}`, bodies[type]);
      if (item.data.status !== 'PUBLISHED') await api('POST', `/api/content/${type}/${item.data.id}/publish`);
    }
    published++;
  }
  const apiKeyRes = await api('POST', '/api/tenants/api-keys', { name: 'bench-session' });
  const key = apiKeyRes.data.key as string;
  const sdk = { 'x-api-key': key, 'content-type': 'application/json' };
  await fetch(`${baseUrl}/api/sdk/identify`, {
    method: 'POST',
    headers: sdk,
    body: JSON.stringify({ userId: 'bench-user', traits: { plan: 'starter', seats: 2, country: 'FR' } }),
  });
  const body = { userId: 'bench-user', url: 'https://app.example.com/dashboard', locale: 'en' };
  const res = await fetch(`${baseUrl}/api/sdk/session`, {
    method: 'POST',
    headers: sdk,
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const session = JSON.parse(text) as { data: { flows: unknown[]; content: unknown[] } };
  return {
    body,
    published,
    delivered: session.data.flows.length + session.data.content.length,
    bytes: Buffer.byteLength(text),
  };
}
