import type { FastifyBaseLogger } from 'fastify';
import nodemailer from 'nodemailer';
import type { Database } from '../db/client.js';
import { mailOutbox } from '../db/schema/index.js';
import { newId } from './ids.js';

export type MailStatus = 'SENT' | 'FAILED' | 'LOGGED';

export interface MailMessage {
  tenantId?: string | null;
  to: string;
  subject: string;
  text: string;
  /**
   * Values in `text` that grant access (invite and reset tokens). The outbox copy of a mail that
   * went to SMTP shows them as `[redacted]`: only the recipient should hold them. Without SMTP
   * the log and the outbox are the delivery, so they keep them.
   */
  secrets?: string[];
}

export interface Mailer {
  /** Sends (or, without SMTP, logs) the message and keeps a copy in the outbox table. */
  send(message: MailMessage): Promise<MailStatus>;
  close(): void;
}

export function createMailer(opts: {
  smtpUrl: string | undefined;
  from: string;
  db: Database;
  log: FastifyBaseLogger;
}): Mailer {
  const transport = opts.smtpUrl ? nodemailer.createTransport(opts.smtpUrl) : null;
  return {
    async send(message) {
      let status: MailStatus = 'LOGGED';
      let error: string | null = null;
      if (transport) {
        try {
          await transport.sendMail({
            from: opts.from,
            to: message.to,
            subject: message.subject,
            text: message.text,
          });
          status = 'SENT';
        } catch (err) {
          status = 'FAILED';
          error = (err as Error).message;
          opts.log.warn({ to: message.to, err: error }, 'mail delivery failed');
        }
      } else {
        // The whole message: without SMTP the log (and the outbox) is where it can be read.
        opts.log.info(
          { to: message.to, subject: message.subject, text: message.text },
          'mail (no SMTP_URL configured): logged and kept in outbox',
        );
      }
      await opts.db.insert(mailOutbox).values({
        id: newId(),
        tenantId: message.tenantId ?? null,
        recipient: message.to,
        subject: message.subject,
        body: status === 'LOGGED' ? message.text : redact(message.text, message.secrets),
        status,
        error,
      });
      return status;
    },
    close() {
      transport?.close();
    },
  };
}

const redact = (text: string, secrets: string[] = []): string =>
  secrets.reduce((out, secret) => (secret ? out.split(secret).join('[redacted]') : out), text);
