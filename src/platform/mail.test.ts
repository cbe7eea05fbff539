import { Writable } from 'node:stream';
import { eq } from 'drizzle-orm';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../../test/helpers/app.js';
import { mailOutbox } from '../db/schema/index.js';
import { randomHex } from './crypto.js';
import { createMailer } from './mail.js';

/** DECISIONS §11: without SMTP_URL, mail "is written to the log and an outbox table". */

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

/** A pino logger whose JSON lines are kept in `lines`. */
function capturingLogger(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      callback();
    },
  });
  return { log: pino({ level }, stream), lines };
}

describe('mailer without SMTP_URL', () => {
  it('logs the whole message (to, subject and text) at info level and keeps it in the outbox', async () => {
    const { log, lines } = capturingLogger();
    const mailer = createMailer({
      smtpUrl: undefined,
      from: 'Test <t@example.com>',
      db: t.deps.database.db,
      log,
    });
    const to = `someone-${randomHex(4)}@example.com`;
    const text = 'Hello,\n\nJoin us: http://localhost:3000/invite?token=abc123\n';
    const status = await mailer.send({ to, subject: 'You are invited', text });
    expect(status).toBe('LOGGED');

    const logged = lines.filter((l) => l.to === to);
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 30, to, subject: 'You are invited', text });
    expect(logged[0]!.msg).toMatch(/no SMTP_URL/);

    const [row] = await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, to));
    expect(row).toMatchObject({ subject: 'You are invited', body: text, status: 'LOGGED', error: null });
    mailer.close();
  });

  it('is silent below info level (LOG_LEVEL=warn) but still keeps the outbox copy', async () => {
    const { log, lines } = capturingLogger('warn');
    const mailer = createMailer({
      smtpUrl: undefined,
      from: 'Test <t@example.com>',
      db: t.deps.database.db,
      log,
    });
    const to = `quiet-${randomHex(4)}@example.com`;
    expect(await mailer.send({ to, subject: 'S', text: 'T' })).toBe('LOGGED');
    expect(lines).toEqual([]);
    const rows = await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, to));
    expect(rows).toHaveLength(1);
  });
});

describe('mailer with SMTP_URL', () => {
  it('redacts the secrets of a mail SMTP took in the outbox copy (only the recipient holds them)', async () => {
    const { SMTPServer } = await import('smtp-server');
    const received: string[] = [];
    const server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      disableReverseLookup: true,
      onData(stream, _session, callback) {
        let data = '';
        stream.on('data', (c) => {
          data += c;
        });
        stream.on('end', () => {
          received.push(data);
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.server.address() as { port: number }).port;
    const { log } = capturingLogger();
    const mailer = createMailer({
      smtpUrl: `smtp://127.0.0.1:${port}`,
      from: 't@example.com',
      db: t.deps.database.db,
      log,
    });
    try {
      const to = `secret-${randomHex(4)}@example.com`;
      const token = randomHex(16);
      const status = await mailer.send({
        to,
        subject: 'Reset',
        text: `Reset here: http://x/reset/${token}`,
        secrets: [token],
      });
      expect(status).toBe('SENT');
      expect(received.join('')).toContain(token);
      const [row] = await t.deps.database.db.select().from(mailOutbox).where(eq(mailOutbox.recipient, to));
      expect(row!.body).toBe('Reset here: http://x/reset/[redacted]');
    } finally {
      mailer.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
