/**
 * Mail delivery: drains the outbox table (app/models/outbox.server.ts) through the SMTP server of
 * SMTP_URL with nodemailer. At least once: a mail counts as sent only once the server has taken it; a
 * failed attempt is retried after a pause that doubles each time (30 s, 1 min, 2 min … at most an hour),
 * ten attempts or a day at most, and a permanent refusal (5xx) is not retried. A worker that dies mid-send
 * leaves its lease to run out and the mail is sent again, under the same Message-ID so the receiving side
 * can tell. Nothing here logs a body: reset links are secrets.
 */
import type { Knex } from "knex";
import nodemailer from "nodemailer";
import type { OutgoingMail } from "../app/models/outbox.server";
import { systemActor } from "../app/operations/core.server";
import { claimDueMail, markMailFailed, markMailSent } from "../app/operations/mail.server";
import { createDb } from "../app/server/db.server";
import type { Env } from "../app/server/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { retryDelay } from "../app/utils/backoff";
import { startDrain } from "./drain.server";
import { log } from "../app/server/log.server";
import { messagesSent } from "../app/server/metrics.server";

export type MailOptions = {
  /** The database to drain; by default a small pool of its own on DATABASE_URL. */
  db?: Knex;
  /** How often to look for due mail when the last look found none. */
  pollMs?: number;
  retryInitialMs?: number;
  retryMaxMs?: number;
  maxAttempts?: number;
  /** Mail older than this is given up. */
  maxAgeMs?: number;
  /** How long a taken mail is this worker's before another may take it again. */
  leaseMs?: number;
};

export type MailDelivery = { close: () => Promise<void> };

const actor = systemActor("mail");

export function startMailDelivery(env: Env, options: MailOptions = {}): MailDelivery | null {
  if (!env.SMTP_URL) {
    log.info("[mail] SMTP_URL is not set: mail stays in the outbox table (/dev/outbox on this machine)");
    return null;
  }
  const { pollMs = 2000, retryInitialMs = 30_000, retryMaxMs = 60 * 60_000, maxAttempts = 10, maxAgeMs = 24 * 60 * 60_000, leaseMs = 5 * 60_000 } = options;
  const ownDb = options.db ? undefined : createDb(env.DATABASE_URL, { min: 0, max: 2 });
  const db = options.db ?? ownDb!;
  // One connection, kept open between mails; timeouts well inside the lease.
  const transport = nodemailer.createTransport({
    url: env.SMTP_URL,
    pool: true,
    maxConnections: 1,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
  const fromDomain = /@([^>\s]+)/.exec(env.MAIL_FROM)?.[1] ?? "soko.ug";
  log.info(`[mail] delivering the outbox through ${maskUrlCredentials(env.SMTP_URL)}`);

  async function deliver(mail: OutgoingMail) {
    try {
      await transport.sendMail({
        from: env.MAIL_FROM,
        to: mail.to,
        subject: mail.subject,
        text: mail.body,
        // The same id on every attempt: a duplicate after a lost acknowledgement is recognisable.
        messageId: `<outbox-${mail.id}-${mail.createdAt.getTime()}@${fromDomain}>`,
      });
      await markMailSent(actor, mail.id, { db });
      messagesSent.inc({ channel: "mail", outcome: "sent" });
      log.info(`[mail] #${mail.id} sent (attempt ${mail.attempts})`);
    } catch (error) {
      const err = error as Error & { responseCode?: number };
      const message = maskUrlCredentials(err.message);
      const permanent = typeof err.responseCode === "number" && err.responseCode >= 500;
      // Jittered, so mails that failed together do not all come back together.
      const retryInMs = permanent ? null : retryDelay(mail.attempts, { initialMs: retryInitialMs, maxMs: retryMaxMs, maxAttempts, jitter: 0.2 });
      await markMailFailed(actor, mail.id, { error: message, retryInMs }, { db });
      messagesSent.inc({ channel: "mail", outcome: "failed" });
      log.error(
        `[mail] #${mail.id} not sent (attempt ${mail.attempts}): ${message}; ` +
          (retryInMs === null ? "giving up" : `retrying in ${Math.round(retryInMs / 1000)} s`),
      );
    }
  }

  const drain = startDrain("mail", { pollMs }, async () => {
    const claimed = await claimDueMail(actor, { limit: 10, leaseMs, maxAgeMs }, { db });
    const mails = claimed.ok ? claimed.value : [];
    for (const mail of mails) await deliver(mail);
    return mails.length;
  });

  return {
    close: async () => {
      // The mail being sent finishes (or fails and is retried later); nothing new is taken.
      await drain.close();
      transport.close();
      await ownDb?.destroy();
    },
  };
}
