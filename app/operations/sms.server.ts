/**
 * Texts by SMS (ADR 050). `queueSms` is called inside another operation's transaction (an order paid, a code
 * asked for): it writes one sms_messages row per event (its `eventKey` is unique, so an event is never texted
 * twice) and an after-commit `send_sms` effect, which the worker carries out through the provider
 * (`deliverSms`) at least once. Alerts go only to a member's verified phone, only when they chose SMS for that
 * kind, in their own language, never between 21:00 and 07:00 East Africa time (held until 07:00), and at most
 * SMS_DAILY_CAP a day; verification codes go to the number being verified, at once, day or night.
 */
import type { Knex } from "knex";
import { sayIn } from "~/content/operation-messages";
import { DEFAULT_LOCALE, isLocale } from "~/i18n/locales";
import { smsRowOf, type SmsPurpose, type SmsRow } from "~/models/sms.server";
import { forbidden, ok, transact, type Actor, type Result, type Tx } from "~/operations/core.server";
import type { DeliveryReport, SmsProvider } from "~/sms/provider.server";

/**
 * Alerts a member may get in one East Africa day (verification codes are not counted: their own limits are the
 * resend limits). A busy seller gets a few orders and a few conversations a day; ten texts cover that, and they
 * stop a loop or a flood of messages from a script costing the platform (each text is paid for) and waking the
 * member's phone all day. Past the cap, the alert is not sent: the notification and mail still are.
 */
export const SMS_DAILY_CAP = 10;
/** Tries of one text before it is given up as failed (the effect's own retries pace them, 1 s doubling). */
export const SMS_MAX_ATTEMPTS = 8;
/** East Africa Time is UTC+3 all year. Texts wait from 21:00 until 07:00 there. */
const EAT_OFFSET_MS = 3 * 60 * 60 * 1000;
const QUIET_FROM_HOUR = 21;
const QUIET_UNTIL_HOUR = 7;
const DAY_MS = 24 * 60 * 60 * 1000;

/** The words of a text: a key of the `notify` catalogue's `notify.sms.*` area and its values. */
export type SmsWords = { key: `notify.sms.${string}`; values?: Record<string, string | number> };

export type SmsInput = {
  userId: number;
  purpose: SmsPurpose;
  /** Names the event (`order_paid:<order id>`): a second text for the same key is never written. */
  eventKey: string;
  words: SmsWords;
  /** Verification codes only: the number being verified (the member's verified phone otherwise). */
  to?: string;
  /** The clock (tests): now unless given. */
  now?: Date;
};

export type SmsQueued =
  { queued: true; id: number; heldUntil: Date | null } | { queued: false; reason: "no_verified_phone" | "choice_off" | "inactive" | "daily_cap" | "duplicate" };

/** When a text asked for at `now` may go: now, or 07:00 East Africa time when `now` is in the quiet hours. */
export function sendTimeFor(now: Date, purpose: SmsPurpose): Date {
  if (purpose === "verification") return now;
  const local = now.getTime() + EAT_OFFSET_MS;
  const hour = Math.floor((local % DAY_MS) / (60 * 60 * 1000));
  if (hour >= QUIET_UNTIL_HOUR && hour < QUIET_FROM_HOUR) return now;
  const morning = Math.floor(local / DAY_MS) * DAY_MS + QUIET_UNTIL_HOUR * 60 * 60 * 1000 + (hour >= QUIET_FROM_HOUR ? DAY_MS : 0);
  return new Date(morning - EAT_OFFSET_MS);
}

/** The East Africa day (its start and end, as instants) that `at` falls in. */
function eatDay(at: Date): [Date, Date] {
  const start = Math.floor((at.getTime() + EAT_OFFSET_MS) / DAY_MS) * DAY_MS - EAT_OFFSET_MS;
  return [new Date(start), new Date(start + DAY_MS)];
}

/** A phone keyboard's typographic punctuation, outside GSM-7, and its GSM-7 lookalike. */
const GSM7_LOOKALIKES: [RegExp, string][] = [
  [/[\u2018\u2019\u201a\u201b\u2032]/g, "'"],
  [/[\u201c\u201d\u201e\u201f\u2033]/g, '"'],
  [/[\u2010-\u2015]/g, "-"],
  [/\u2026/g, "..."],
];

/**
 * Quoted titles and names are cut so that a text stays one SMS (the catalogue's messages leave room for 40).
 * Curly quotes, dashes and an ellipsis become their GSM-7 lookalikes, since one character outside GSM-7 makes
 * the whole text UCS-2 (70 characters a part); the cut counts characters, so an emoji is never split in two.
 */
export function shortText(text: string, max = 40): string {
  const clean = GSM7_LOOKALIKES.reduce((s, [from, to]) => s.replace(from, to), text)
    .replace(/\s+/g, " ")
    .trim();
  const chars = Array.from(clean);
  if (chars.length <= max) return clean;
  const cut = chars
    .slice(0, max - 3)
    .join("")
    .trimEnd();
  return `${cut}...`;
}

/** Queues one text inside the caller's transaction (see the module's comment); says why when it does not. */
export async function queueSms(tx: Tx, input: SmsInput): Promise<SmsQueued> {
  const user = await tx
    .trx("users")
    .where({ id: input.userId })
    .first("status", "language", "phone", "phone_verified_at", "notify_sms_orders", "notify_sms_messages");
  if (!user || user.status !== "active") return { queued: false, reason: "inactive" };
  if (input.purpose === "order" && !user.notify_sms_orders) return { queued: false, reason: "choice_off" };
  if (input.purpose === "message" && !user.notify_sms_messages) return { queued: false, reason: "choice_off" };
  const to = input.purpose === "verification" ? input.to : user.phone_verified_at ? (user.phone as string | null) : null;
  if (!to) return { queued: false, reason: "no_verified_phone" };

  const now = input.now ?? new Date();
  const sendAfter = sendTimeFor(now, input.purpose);
  if (input.purpose !== "verification") {
    // One member's texts are counted one transaction at a time, so two alerts at once cannot both pass the cap.
    await tx.trx.raw("SELECT pg_advisory_xact_lock(hashtext('sms_cap'), ?::int)", [input.userId]);
    const [from, until] = eatDay(sendAfter);
    const counted = await tx
      .trx("sms_messages")
      .where({ user_id: input.userId })
      .whereNot({ purpose: "verification" })
      .where("send_after", ">=", from)
      .where("send_after", "<", until)
      .count<{ count: string }[]>({ count: "*" });
    if (Number(counted[0]?.count ?? 0) >= SMS_DAILY_CAP) return { queued: false, reason: "daily_cap" };
  }

  const say = sayIn(isLocale(user.language) ? user.language : DEFAULT_LOCALE);
  const held = sendAfter.getTime() > now.getTime();
  const [row] = await tx
    .trx("sms_messages")
    .insert({
      user_id: input.userId,
      to_number: to,
      body: say(input.words.key, input.words.values ?? {}),
      purpose: input.purpose,
      event_key: input.eventKey,
      status: held ? "held" : "queued",
      send_after: sendAfter,
    })
    .onConflict("event_key")
    .ignore()
    .returning("id");
  if (!row) return { queued: false, reason: "duplicate" };
  const id = Number(row.id);
  await tx.effect({ kind: "send_sms", smsId: id }, `send_sms:${id}`, Math.max(0, sendAfter.getTime() - now.getTime()));
  return { queued: true, id, heldUntil: held ? sendAfter : null };
}

type Options = { db?: Knex };
export type Delivered = { status: "sent" | "refused" | "failed" | "skipped" } | { status: "retry"; reason: string };

/**
 * The worker's side of a `send_sms` effect: takes the text (marking the attempt), sends it through `provider`
 * outside any transaction, and stores what the gateway said. `retry` asks the effect to be tried again later;
 * a text already sent, refused or failed is left alone, so a repeated effect sends nothing.
 */
export async function deliverSms(actor: Actor, input: { smsId: number; provider: SmsProvider }, { db }: Options = {}): Promise<Result<Delivered>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "carry_out_effects" });
  const taken = await transact<SmsRow | null>(
    actor,
    async (tx) => {
      const row = await tx.trx("sms_messages").where({ id: input.smsId }).forUpdate().first();
      if (!row || !["queued", "held", "sending"].includes(row.status as string)) return ok(null);
      const [updated] = await tx
        .trx("sms_messages")
        .where({ id: input.smsId })
        .update({ status: "sending", attempts: tx.trx.raw("attempts + 1"), provider: input.provider.name, updated_at: tx.trx.fn.now() })
        .returning("*");
      return ok(smsRowOf(updated));
    },
    { db },
  );
  if (!taken.ok) return taken;
  const sms = taken.value;
  if (!sms) return ok({ status: "skipped" });

  const answer = await input.provider.send({ to: sms.to, message: sms.body });
  return transact<Delivered>(
    actor,
    async (tx) => {
      const row = tx.trx("sms_messages").where({ id: sms.id, status: "sending" });
      const at = { updated_at: tx.trx.fn.now(), gateway_status_code: answer.statusCode };
      if (answer.outcome === "accepted") {
        await row.update({
          ...at,
          status: "sent",
          sent_at: tx.trx.fn.now(),
          gateway_message_id: answer.messageId,
          cost_currency: answer.cost?.currency ?? null,
          cost_amount: answer.cost?.amount ?? null,
          last_error: null,
        });
        return ok({ status: "sent" });
      }
      if (answer.outcome === "refused") {
        await row.update({ ...at, status: "refused", last_error: answer.reason });
        return ok({ status: "refused" });
      }
      if (sms.attempts >= SMS_MAX_ATTEMPTS) {
        await row.update({ ...at, status: "failed", last_error: answer.reason });
        return ok({ status: "failed" });
      }
      await row.update({ ...at, status: "queued", last_error: answer.reason });
      return ok({ status: "retry", reason: answer.reason });
    },
    { db },
  );
}

/**
 * A delivery report from the gateway (a hint, like the payment callbacks): it updates the delivery state of
 * the text it names, and nothing else. A report naming a text we never sent is ignored (`known: false`).
 */
export async function recordDeliveryReport(actor: Actor, report: DeliveryReport, { db }: Options = {}): Promise<Result<{ known: boolean }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "carry_out_effects" });
  return transact(
    actor,
    async (tx) => {
      const updated = await tx
        .trx("sms_messages")
        .where({ gateway_message_id: report.messageId })
        .update({ delivery_status: report.status, delivery_failure: report.failureReason, delivery_reported_at: tx.trx.fn.now(), updated_at: tx.trx.fn.now() });
      return ok({ known: updated > 0 });
    },
    { db },
  );
}
