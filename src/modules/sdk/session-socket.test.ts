import { type AddressInfo, connect } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { apiKeyOf, publishedFlow } from '../../../test/helpers/sdk.js';
import { endUsers } from '../../db/schema/index.js';
import { MIN_POOLED_BYTES } from './body-buffers.js';

/**
 * Session answers on a real socket, where their buffers are reused once a response has finished
 * (body-buffers.ts): concurrent answers of different users never share bytes.
 */

let t: TestApp;
let base: string;
let port: number;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.listen({ host: '127.0.0.1', port: 0 });
  port = (t.app.server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => t.close());

describe('POST /api/sdk/session on a socket', () => {
  it('answers every concurrent session with its own bytes, round after round', async () => {
    const tenant = await createTenant(t);
    const key = await apiKeyOf(t, tenant);
    const text = 'x'.repeat(4_000);
    for (let i = 0; i < 6; i++)
      await publishedFlow(t, tenant, { steps: [{ type: 'MODAL', content: { title: `Flow ${i}`, text } }] });
    const session = async (body: Record<string, unknown>, encoding?: string) => {
      const res = await fetch(`${base}/api/sdk/session`, {
        method: 'POST',
        headers: {
          'x-api-key': key,
          'content-type': 'application/json',
          ...(encoding ? { 'accept-encoding': encoding } : {}),
        },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(201);
      return (await res.json()).data as { sessionId: string; endUserId: string | null; flows: unknown[] };
    };
    const users = Array.from({ length: 24 }, (_, i) => ({ userId: `socket-${i}` }));
    const first = await Promise.all(users.map((u) => session(u)));
    const endUserOf = new Map(users.map((u, i) => [u.userId, first[i]!.endUserId]));
    const flows = JSON.stringify(first[0]!.flows);
    expect(Buffer.byteLength(flows)).toBeGreaterThan(MIN_POOLED_BYTES);
    const seen = new Set<string>();
    for (let round = 0; round < 4; round++) {
      const bodies = [...users, {}, { anonymousId: 'a-1' }];
      const answers = await Promise.all(
        bodies.map((b, i) => session(b, i % 3 === 0 ? 'gzip' : i % 3 === 1 ? 'br' : undefined)),
      );
      answers.forEach((a, i) => {
        const who = bodies[i] as { userId?: string };
        if (who.userId) expect(a.endUserId).toBe(endUserOf.get(who.userId));
        expect(seen.has(a.sessionId)).toBe(false);
        seen.add(a.sessionId);
        expect(JSON.stringify(a.flows)).toBe(flows);
      });
    }
  });

  it('keeps the bytes of an answer that its client reads slowly until they are all sent', async () => {
    const tenant = await createTenant(t);
    const key = await apiKeyOf(t, tenant);
    // The highest priority, so it leads the answers of the url it matches: every other answer has
    // the same size class but its bytes shifted.
    await publishedFlow(t, tenant, {
      name: 'Only on /only-a',
      priority: 1,
      trigger: { type: 'URL_MATCH', config: { pattern: '/only-a' } },
    });
    const text = 'y'.repeat(900_000);
    for (let i = 0; i < 10; i++)
      await publishedFlow(t, tenant, { steps: [{ type: 'MODAL', content: { title: `Big ${i}`, text } }] });

    // A client that reads nothing: ~9 MB is more than the kernel takes for it, so the answer
    // waits in the server, in its buffer, until the client reads.
    const request = JSON.stringify({ userId: 'slow-reader', url: 'https://app.test/only-a' });
    const slow = connect({ host: '127.0.0.1', port });
    slow.pause();
    const chunks: Buffer[] = [];
    const ended = new Promise<void>((resolve, reject) => {
      slow.on('data', (c: Buffer) => chunks.push(c));
      slow.on('end', resolve);
      slow.on('error', reject);
    });
    slow.write(
      `POST /api/sdk/session HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: ${key}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(request)}\r\nConnection: close\r\n\r\n${request}`,
    );
    const known = () =>
      t.deps.database.db
        .select()
        .from(endUsers)
        .where(and(eq(endUsers.tenantId, tenant.tenantId), eq(endUsers.externalId, 'slow-reader')));
    while ((await known()).length === 0) await new Promise((r) => setTimeout(r, 20));
    await new Promise((r) => setTimeout(r, 300));

    // Meanwhile other sessions are answered in full, in buffers of the same size.
    for (let round = 0; round < 3; round++) {
      const others = await Promise.all(
        Array.from({ length: 3 }, () =>
          fetch(`${base}/api/sdk/session`, {
            method: 'POST',
            headers: { 'x-api-key': key, 'content-type': 'application/json' },
            body: JSON.stringify({ userId: 'other', url: 'https://app.test/b' }),
          }).then((r) => r.json()),
        ),
      );
      for (const o of others) expect(o.data.flows).toHaveLength(10);
    }

    slow.resume();
    await ended;
    const raw = Buffer.concat(chunks);
    const split = raw.indexOf('\r\n\r\n');
    expect(raw.subarray(0, split).toString()).toMatch(/^HTTP\/1.1 201/);
    const answer = JSON.parse(raw.subarray(split + 4).toString()).data;
    const [user] = await known();
    expect(answer.endUserId).toBe(user!.id);
    expect(answer.flows.map((f: { name: string }) => f.name)).toEqual([
      'Only on /only-a',
      ...Array.from({ length: 10 }, () => 'Tour'),
    ]);
    for (const f of answer.flows.slice(1)) expect(f.steps[0].content.text).toBe(text);
  });
});
