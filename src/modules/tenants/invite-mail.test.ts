import { type AddressInfo, createServer } from 'node:net';
import { eq } from 'drizzle-orm';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../../test/helpers/app.js';
import { createTenant } from '../../../test/helpers/factories.js';
import { mailOutbox, members } from '../../db/schema/index.js';
import { randomHex, sha256 } from '../../platform/crypto.js';

/** Invite mail through a real SMTP server on loopback, and what happens when delivery fails. */

interface Received {
  from: string | undefined;
  to: string[];
  raw: string;
}

let smtp: SMTPServer;
let smtpPort: number;
const received: Received[] = [];

beforeAll(async () => {
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    disableReverseLookup: true,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        received.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : undefined,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => smtp.close(() => resolve())));

/** A port on loopback that nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Quoted-printable soft line breaks may split a long link; undo them before searching. */
const unfold = (raw: string) => raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');

async function withApp(config: Parameters<typeof createTestApp>[0], run: (t: TestApp) => Promise<void>) {
  const t = await createTestApp(config);
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

describe('invite mail', () => {
  it('reaches a real SMTP server with the invite link and records SENT (invite and resend)', async () => {
    await withApp(
      { config: { mail: { smtpUrl: `smtp://127.0.0.1:${smtpPort}`, from: 'test@example.com' } } },
      async (t) => {
        const acme = await createTenant(t);
        const email = `smtp-${randomHex(4)}@example.com`;
        const res = await t.inject({
          method: 'POST',
          url: '/api/tenants/members',
          headers: acme.owner.headers,
          payload: { email, role: 'ADMIN' },
        });
        expect(res.statusCode).toBe(201);
        expect(res.json().data).toMatchObject({ email, isPending: true, inviteEmailStatus: 'SENT' });
        const id = res.json().data.id as string;

        const mine = () => received.filter((m) => m.to.includes(email));
        expect(mine()).toHaveLength(1);
        const mail = mine()[0]!;
        expect(mail.from).toBe('test@example.com');
        const body = unfold(mail.raw);
        expect(body).toContain(acme.name);
        const token = body.match(new RegExp(`${t.config.appUrl}/invite/([A-Za-z0-9_-]+)`))?.[1];
        expect(token).toBeTruthy();
        const [row] = await t.deps.database.db.select().from(members).where(eq(members.id, id));
        expect(row!.inviteTokenHash).toBe(sha256(token!));
        expect(row!.inviteEmailStatus).toBe('SENT');
        // A copy is kept in the outbox with SMTP too.
        const outbox = await t.deps.database.db
          .select()
          .from(mailOutbox)
          .where(eq(mailOutbox.recipient, email));
        expect(outbox).toMatchObject([{ status: 'SENT', tenantId: acme.tenantId }]);

        const resend = await t.inject({
          method: 'POST',
          url: `/api/tenants/members/${id}/resend-invite`,
          headers: acme.owner.headers,
        });
        expect(resend.json().data).toMatchObject({ inviteEmailStatus: 'SENT', inviteResendCount: 1 });
        expect(mine()).toHaveLength(2);
        const newToken = unfold(mine()[1]!.raw).match(/\/invite\/([A-Za-z0-9_-]+)/)?.[1];
        expect(newToken).toBeTruthy();
        expect(newToken).not.toBe(token);
        const [after] = await t.deps.database.db.select().from(members).where(eq(members.id, id));
        expect(after!.inviteTokenHash).toBe(sha256(newToken!));
      },
    );
  });

  it('records LOGGED and keeps the mail in mail_outbox without SMTP', async () => {
    await withApp({ config: { mail: { smtpUrl: undefined, from: 'test@example.com' } } }, async (t) => {
      const acme = await createTenant(t);
      const email = `logged-${randomHex(4)}@example.com`;
      const res = await t.inject({
        method: 'POST',
        url: '/api/tenants/members',
        headers: acme.owner.headers,
        payload: { email, role: 'VIEWER' },
      });
      expect(res.statusCode).toBe(201);
      expect(res.json().data.inviteEmailStatus).toBe('LOGGED');
      const outbox = await t.deps.database.db
        .select()
        .from(mailOutbox)
        .where(eq(mailOutbox.recipient, email));
      expect(outbox).toHaveLength(1);
      expect(outbox[0]).toMatchObject({ status: 'LOGGED', tenantId: acme.tenantId, error: null });
      expect(outbox[0]!.body).toMatch(new RegExp(`${t.config.appUrl}/invite/[A-Za-z0-9_-]+`));
    });
  });

  it('records FAILED but still creates the member when SMTP is unreachable', async () => {
    const port = await closedPort();
    await withApp(
      { config: { mail: { smtpUrl: `smtp://127.0.0.1:${port}`, from: 'test@example.com' } } },
      async (t) => {
        const acme = await createTenant(t);
        const email = `failed-${randomHex(4)}@example.com`;
        const res = await t.inject({
          method: 'POST',
          url: '/api/tenants/members',
          headers: acme.owner.headers,
          payload: { email, role: 'EDITOR' },
        });
        expect(res.statusCode).toBe(201);
        const data = res.json().data;
        expect(data).toMatchObject({ email, isPending: true, inviteEmailStatus: 'FAILED' });
        const [row] = await t.deps.database.db.select().from(members).where(eq(members.id, data.id));
        expect(row).toMatchObject({ isPending: true, inviteEmailStatus: 'FAILED' });
        const outbox = await t.deps.database.db
          .select()
          .from(mailOutbox)
          .where(eq(mailOutbox.recipient, email));
        expect(outbox).toMatchObject([{ status: 'FAILED', error: expect.any(String) }]);
        // The admin can retry through resend once SMTP is back; here it fails again, still counted.
        const resend = await t.inject({
          method: 'POST',
          url: `/api/tenants/members/${data.id}/resend-invite`,
          headers: acme.owner.headers,
        });
        expect(resend.json().data).toMatchObject({ inviteEmailStatus: 'FAILED', inviteResendCount: 1 });
      },
    );
  });
});
