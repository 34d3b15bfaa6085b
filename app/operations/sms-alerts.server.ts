/**
 * Which events are texted, to whom, in which words (ADR 050): to sellers a new paid order, a revision request,
 * a completed order (the buyer's approval, or the timer's) and a dispute; to buyers a delivery and an order about
 * to complete automatically; to either a message left unread for 15 minutes. Each goes through queueSms, which
 * checks the member's phone, choices, quiet hours and daily cap, under a key naming the event, so the same
 * event is never texted twice.
 */
import type { Knex } from "knex";
import { AUTO_COMPLETE_MS } from "~/domain/order-rules";
import type { OrderRow } from "~/models/order.server";
import { ok, transact, type Actor, forbidden, type Result, type Tx } from "~/operations/core.server";
import { queueSms, sendTimeFor, shortText, type SmsWords } from "~/operations/sms.server";
import { getDb } from "~/server/db.server";

/** How long a message waits unread before it is texted. */
export const UNREAD_TEXT_DELAY_MS = 15 * 60_000;
/** Buyers are told this long before a delivery completes by itself. */
export const AUTO_COMPLETE_WARNING_MS = 24 * 60 * 60_000;

/** The order notifications that are also texted, by notification kind and recipient (the other kinds are not). */
const ORDER_TEXTS: Record<string, { to: "buyer" | "seller"; key: SmsWords["key"] }> = {
  order_paid: { to: "seller", key: "notify.sms.newOrder" },
  revision_requested: { to: "seller", key: "notify.sms.revisionRequested" },
  order_completed: { to: "seller", key: "notify.sms.approved" },
  dispute_opened: { to: "seller", key: "notify.sms.disputeOpened" },
  order_delivered: { to: "buyer", key: "notify.sms.delivered" },
};

/**
 * Texts an order's notification when it is one of ORDER_TEXTS for this recipient (notifyParty calls it), in
 * the words of `key` when given (a completion by the timer). The order row as the operation holds it (its
 * status and revisions used) names the event with the kind.
 */
export async function textOrderEvent(tx: Tx, userId: number, order: OrderRow, kind: string, key?: SmsWords["key"]) {
  const text = ORDER_TEXTS[kind];
  if (!text || userId !== (text.to === "seller" ? order.sellerId : order.buyerId)) return;
  await queueSms(tx, {
    userId,
    purpose: "order",
    eventKey: `${kind}:${order.id}:${order.status}:${order.revisionsUsed}`,
    words: { key: key ?? text.key, values: { title: shortText(order.gigTitle) } },
  });
}

/** The worker's side of `sms_unread`: texts the member if they have read nothing since and something is still unread. */
export async function textUnreadMessage(
  actor: Actor,
  input: { conversationId: string; userId: number; lastRead: number },
  { db = getDb() }: { db?: Knex } = {},
): Promise<Result<{ queued: boolean }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "carry_out_effects" });
  return transact(
    actor,
    async (tx) => {
      const side = await tx
        .trx("conversation_participants")
        .where({ conversation_id: input.conversationId, user_id: input.userId })
        .first("last_read_message_id");
      if (!side || Number(side.last_read_message_id ?? 0) !== input.lastRead) return ok({ queued: false });
      const first = await tx
        .trx("messages as m")
        .join("users as u", "u.id", "m.sender_id")
        .where("m.conversation_id", input.conversationId)
        .whereNot("m.sender_id", input.userId)
        .where("m.id", ">", input.lastRead)
        .whereNot("m.status", "read")
        .orderBy("m.id")
        .first("u.name");
      if (!first) return ok({ queued: false });
      const queued = await queueSms(tx, {
        userId: input.userId,
        purpose: "message",
        eventKey: `unread:${input.conversationId}:${input.userId}:${input.lastRead}`,
        words: { key: "notify.sms.unreadMessage", values: { name: shortText(first.name as string, 30) } },
      });
      return ok({ queued: queued.queued });
    },
    { db },
  );
}

/**
 * The order timers' warning to buyers: a delivery that completes by itself within a day, with no open dispute,
 * gets one text per delivery (its key names the delivery's time). Returns how many were texted.
 */
export async function textAutoCompleteWarnings(
  actor: Actor,
  { db = getDb(), now = new Date(), batch = 200 }: { db?: Knex; now?: Date; batch?: number } = {},
): Promise<Result<number>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "run_order_timers" });
  // A warning written in the quiet hours is sent at 07:00: its hours are counted from then, and one that
  // could only go once the order has completed is not written.
  const sendAt = sendTimeFor(now, "order").getTime();
  // Only buyers a text can reach (active, a verified phone, SMS for orders on), soonest first: the batch is
  // never filled by orders that would be skipped every round while others wait.
  const rows = await db("orders as o")
    .join("users as b", "b.id", "o.buyer_id")
    .where("o.status", "delivered")
    .where("o.delivered_at", "<=", new Date(now.getTime() - AUTO_COMPLETE_MS + AUTO_COMPLETE_WARNING_MS))
    .where("o.delivered_at", ">", new Date(sendAt - AUTO_COMPLETE_MS))
    .where("b.status", "active")
    .whereNotNull("b.phone_verified_at")
    .where("b.notify_sms_orders", true)
    .whereNotExists((q) => q.select(db.raw("1")).from("disputes as d").whereRaw("d.order_id = o.id").where("d.status", "open"))
    .whereNotExists((q) =>
      q
        .select(db.raw("1"))
        .from("sms_messages as s")
        .whereRaw("s.event_key = 'auto_complete_soon:' || o.id || ':' || floor(extract(epoch from o.delivered_at) * 1000)::bigint"),
    )
    .orderBy("o.delivered_at")
    .limit(batch)
    .select("o.id", "o.buyer_id", "o.gig_title", "o.delivered_at");
  let texted = 0;
  for (const row of rows) {
    const deliveredAt = row.delivered_at as Date;
    const completesAt = deliveredAt.getTime() + AUTO_COMPLETE_MS;
    const hours = Math.max(1, Math.ceil((completesAt - sendAt) / 3_600_000));
    const result = await transact(
      actor,
      async (tx) =>
        ok(
          await queueSms(tx, {
            userId: Number(row.buyer_id),
            purpose: "order",
            eventKey: `auto_complete_soon:${row.id}:${deliveredAt.getTime()}`,
            words: { key: "notify.sms.autoCompleteSoon", values: { title: shortText(row.gig_title as string), hours } },
            now,
          }),
        ),
      { db },
    );
    if (result.ok && result.value.queued) texted += 1;
  }
  return ok(texted);
}
