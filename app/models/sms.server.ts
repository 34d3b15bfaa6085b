/**
 * Texts sent by SMS (ADR 050): the sms_messages table. Rows are written by app/operations/sms.server.ts only;
 * /dev/outbox reads the sandbox's texts and the pipeline screen reads the day's and the week's counts and costs.
 */
import type { AppLoadContext } from "@remix-run/node";
import type { Db } from "~/server/db.server";
import type { Env } from "~/server/env.server";

export const SMS_PURPOSES = ["verification", "order", "message"] as const;
export type SmsPurpose = (typeof SMS_PURPOSES)[number];
export type SmsStatus = "queued" | "held" | "sending" | "sent" | "failed" | "refused";

export type SmsRow = {
  id: number;
  userId: number | null;
  to: string;
  body: string;
  purpose: SmsPurpose;
  status: SmsStatus;
  attempts: number;
  sendAfter: Date;
};

export function smsRowOf(r: Record<string, unknown>): SmsRow {
  return {
    id: Number(r.id),
    userId: r.user_id === null ? null : Number(r.user_id),
    to: r.to_number as string,
    body: r.body as string,
    purpose: r.purpose as SmsPurpose,
    status: r.status as SmsStatus,
    attempts: Number(r.attempts),
    sendAfter: r.send_after as Date,
  };
}

/**
 * Whether /dev/outbox may show texts: as for mail (isOutboxOpen), only to this machine, in production only with
 * DEV_OUTBOX, and only while no gateway is configured. Texts hold verification codes, so whoever reads them could
 * verify any number as their own.
 */
export function isSmsOutboxOpen(
  env: Pick<Env, "AFRICASTALKING_API_KEY" | "isProduction" | "DEV_OUTBOX">,
  context: Pick<AppLoadContext, "isLocalRequest">,
): boolean {
  if (env.AFRICASTALKING_API_KEY) return false;
  if (env.isProduction && !env.DEV_OUTBOX) return false;
  return context.isLocalRequest === true;
}

/** The texts, newest first (what the outbox page shows while the sandbox stands in, queued ones too). */
export async function listTexts(db: Db, limit = 50) {
  const rows = await db("sms_messages").orderBy("id", "desc").limit(limit).select("id", "to_number", "body", "purpose", "sent_at");
  return rows.map((r) => ({
    id: Number(r.id),
    to: r.to_number as string,
    body: r.body as string,
    purpose: r.purpose as SmsPurpose,
    sentAt: r.sent_at as Date,
  }));
}

export type SmsTotals = { sent: number; failed: number; refused: number; held: number; costs: { currency: string; amount: string }[] };

/** Texts created in the last `days` days: sent, failed, refused, held, and what the sent ones cost per currency. */
export async function smsTotals(db: Db, days: number): Promise<SmsTotals> {
  const since = db.raw("now() - ?::interval", [`${days} days`]);
  const counts = await db("sms_messages")
    .where("created_at", ">=", since)
    .select(
      db.raw("count(*) FILTER (WHERE status = 'sent')::int AS sent"),
      db.raw("count(*) FILTER (WHERE status = 'failed' OR delivery_status IN ('Failed', 'Rejected', 'AbsentSubscriber', 'Expired'))::int AS failed"),
      db.raw("count(*) FILTER (WHERE status = 'refused')::int AS refused"),
      db.raw("count(*) FILTER (WHERE status = 'held')::int AS held"),
    )
    .first();
  const costs = await db("sms_messages")
    .where("created_at", ">=", since)
    .whereNotNull("cost_currency")
    .groupBy("cost_currency")
    .orderBy("cost_currency")
    .select("cost_currency", db.raw("sum(cost_amount)::text AS amount"));
  return {
    sent: Number(counts?.sent ?? 0),
    failed: Number(counts?.failed ?? 0),
    refused: Number(counts?.refused ?? 0),
    held: Number(counts?.held ?? 0),
    costs: costs.map((c) => ({ currency: c.cost_currency as string, amount: c.amount as string })),
  };
}
