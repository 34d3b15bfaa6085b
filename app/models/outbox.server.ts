/**
 * Mail. `sendMail` writes a row in the same transaction as what the mail reports (a reset link, a welcome);
 * the worker delivers the rows through SMTP_URL (worker/mail-sender.server.ts), at least once, with retries.
 * With no mail server configured the rows stay here, and /dev/outbox shows them to this machine only.
 */
import type { AppLoadContext } from "@remix-run/node";
import type { Knex } from "knex";
import type { Db } from "~/server/db.server";
import type { Env } from "~/server/env.server";

export async function sendMail(db: Db, mail: { to: string; subject: string; body: string }) {
  await db("outbox").insert({ to_address: mail.to, subject: mail.subject, body: mail.body });
}

export async function listOutbox(db: Db, limit = 50) {
  const rows = await db("outbox").orderBy("id", "desc").limit(limit).select("id", "to_address", "subject", "body", "created_at");
  return rows.map((r) => ({
    id: r.id as number,
    to: r.to_address as string,
    subject: r.subject as string,
    body: r.body as string,
    createdAt: r.created_at as Date,
  }));
}

/**
 * Whether /dev/outbox may be shown. Its mails hold password-reset links, so whoever reads them can take
 * over any account: only a request from this machine itself (`isLocalRequest`: the socket's peer is
 * loopback and no proxy forwarded it), only while no mail server is configured (with SMTP_URL the mail
 * has left, and the page has nothing to show anyone), and in production only with DEV_OUTBOX (which
 * `npm start` sets for its embedded services).
 */
export function isOutboxOpen(env: Pick<Env, "SMTP_URL" | "isProduction" | "DEV_OUTBOX">, context: Pick<AppLoadContext, "isLocalRequest">): boolean {
  if (env.SMTP_URL) return false;
  if (env.isProduction && !env.DEV_OUTBOX) return false;
  return context.isLocalRequest === true;
}

export type OutgoingMail = { id: number; to: string; subject: string; body: string; attempts: number; createdAt: Date };

const interval = (db: Knex, ms: number) => db.raw("?::interval", [`${Math.round(ms)} milliseconds`]);

/**
 * Takes up to `limit` mails that are due, for one sender: each gets its attempt counted and is leased for
 * `leaseMs` (no other worker takes it meanwhile; if this one dies, it is taken again once the lease runs
 * out: at least once). Mail older than `maxAgeMs` is given up first: a day-old reset link is dead anyway.
 */
export async function claimDueMail(db: Knex, { limit, leaseMs, maxAgeMs }: { limit: number; leaseMs: number; maxAgeMs: number }): Promise<OutgoingMail[]> {
  await db("outbox")
    .whereNotNull("next_attempt_at")
    .andWhere("created_at", "<=", db.raw("now() - ?", [interval(db, maxAgeMs)]))
    .update({ next_attempt_at: null, last_error: db.raw("coalesce(last_error || '; ', '') || 'given up: too old'") });
  const due = db("outbox")
    .select("id")
    .where("next_attempt_at", "<=", db.fn.now())
    .orderBy([{ column: "next_attempt_at" }, { column: "id" }])
    .limit(limit)
    .forUpdate()
    .skipLocked();
  const rows = await db("outbox")
    .whereIn("id", due)
    .update({ attempts: db.raw("attempts + 1"), next_attempt_at: db.raw("now() + ?", [interval(db, leaseMs)]) })
    .returning(["id", "to_address", "subject", "body", "attempts", "created_at"]);
  return rows
    .map((r) => ({
      id: r.id as number,
      to: r.to_address as string,
      subject: r.subject as string,
      body: r.body as string,
      attempts: r.attempts as number,
      createdAt: r.created_at as Date,
    }))
    .sort((a, b) => a.id - b.id);
}

/** The mail server has taken the mail: nothing more to do. */
export async function markMailSent(db: Knex, id: number) {
  await db("outbox").where({ id }).update({ sent_at: db.fn.now(), next_attempt_at: null });
}

/** An attempt failed: try again after `retryInMs`, or (null) never. `error` must not quote the body. */
export async function markMailFailed(db: Knex, id: number, { error, retryInMs }: { error: string; retryInMs: number | null }) {
  await db("outbox")
    .where({ id })
    .update({ last_error: error.slice(0, 1000), next_attempt_at: retryInMs === null ? null : db.raw("now() + ?", [interval(db, retryInMs)]) });
}
