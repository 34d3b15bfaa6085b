/**
 * Alerts by text from the order operations (ADR 050), through the real operations and the order timers: to the
 * seller a new paid order, a revision request, a completion (the buyer's or the timer's) and a dispute; to the
 * buyer a delivery and an order about to complete by itself. Each event is texted once, to the member's
 * verified phone, in their language, in one SMS. What is checked is what sms_messages holds.
 */
import { describe, expect, it } from "vitest";
import { AUTO_COMPLETE_MS } from "~/domain/order-rules";
import { approveOrder, deliverOrder, openDispute, requestRevision, runOrderTimers } from "~/operations/orders.server";
import { textAutoCompleteWarnings } from "~/operations/sms-alerts.server";
import type { TestUser } from "../support/factories";
import { gsm7Length } from "../support/gsm7";
import { createParties, memberActor, opts, orderTestContext, paidTestOrder, system, type PartyOptions } from "../support/orders";

const t = orderTestContext("sms_alerts");
let phones = 0;
const nextPhone = () => `+25677${String(2_000_000 + ++phones).slice(-7)}`;
const HOUR_MS = 60 * 60_000;

type Text = { to_number: string; purpose: string; event_key: string; body: string };
const textsTo = (who: TestUser): Promise<Text[]> =>
  t.db("sms_messages").where({ user_id: who.id }).orderBy("id").select("to_number", "purpose", "event_key", "body");

/** A seller and a buyer with verified phones, and the seller's gig (one Basic package with `revisions`). */
async function verifiedParties({ revisions = 2, title, seller, buyer }: { revisions?: number; title?: string } & Omit<PartyOptions, "gig"> = {}) {
  const sellerPhone = nextPhone();
  const buyerPhone = nextPhone();
  const parties = await createParties(t.db, {
    seller: { verifiedPhone: sellerPhone, ...seller },
    buyer: { verifiedPhone: buyerPhone, ...buyer },
    gig: { packages: { basic: { priceUgx: 100_000, deliveryDays: 3, revisions } }, ...(title ? { title } : {}) },
  });
  return { ...parties, sellerPhone, buyerPhone };
}

async function deliver(seller: TestUser, orderId: number) {
  expect(await deliverOrder(memberActor(seller), { orderId, message: "Here is the logo" }, opts(t))).toMatchObject({ ok: true });
}
async function revise(buyer: TestUser, orderId: number) {
  expect(await requestRevision(memberActor(buyer), { orderId, reason: "A bigger font, please" }, opts(t))).toMatchObject({ ok: true });
}

/** The order's delivery as if it had been made `ago` ms before `now`. */
async function deliveredAgo(orderId: number, ago: number, now = new Date()) {
  const at = new Date(now.getTime() - ago);
  await t.db("orders").where({ id: orderId }).update({ delivered_at: at });
  return at;
}

const warningsTo = async (who: TestUser) => (await textsTo(who)).filter((s) => s.event_key.startsWith("auto_complete_soon:"));

describe("texts to the seller", () => {
  it("texts a new paid order to the seller's verified phone, once", async () => {
    const { seller, buyer, gigId } = await createParties(t.db, { seller: { verifiedPhone: "+256772555101", name: "Sms Seller" } });
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    const texts = await t.db("sms_messages").where({ user_id: seller.id });
    expect(texts).toHaveLength(1);
    expect(texts[0]).toMatchObject({ to_number: "+256772555101", purpose: "order", event_key: `order_paid:${orderId}:in_progress:0` });
    expect(texts[0].body).toMatch(/^Soko: new paid order ".+"\. Open Soko to start the work on time\.$/);
  });

  it("texts nothing to a seller without a verified phone", async () => {
    const { seller, buyer, gigId } = await createParties(t.db, { seller: { name: "Quiet Seller" } });
    await paidTestOrder(t, buyer, gigId);
    expect(await t.db("sms_messages").where({ user_id: seller.id })).toEqual([]);
  });

  it("texts each revision request once: a second request is a text of its own", async () => {
    const { seller, buyer, gigId, sellerPhone } = await verifiedParties({ revisions: 2 });
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    await revise(buyer, orderId);
    await deliver(seller, orderId);
    await revise(buyer, orderId);
    const revisions = (await textsTo(seller)).filter((s) => s.event_key.startsWith("revision_requested:"));
    expect(revisions).toHaveLength(2);
    expect(new Set(revisions.map((s) => s.event_key)).size).toBe(2);
    for (const text of revisions) {
      expect(text).toMatchObject({ to_number: sellerPhone, purpose: "order" });
      expect(text.event_key).toMatch(new RegExp(`^revision_requested:${orderId}:`));
      expect(text.body).toMatch(/^Soko: the buyer asked for a revision of ".+"\. Open Soko to see what to change\.$/);
    }
    // The buyer is never texted about their own request.
    expect((await textsTo(buyer)).filter((s) => s.event_key.startsWith("revision_requested:"))).toEqual([]);
  });

  it("texts the buyer's approval to the seller, once", async () => {
    const { seller, buyer, gigId, sellerPhone } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    expect(await approveOrder(memberActor(buyer), { orderId }, opts(t))).toMatchObject({ ok: true });
    // A second approval is refused and texts nothing more.
    expect(await approveOrder(memberActor(buyer), { orderId }, opts(t))).toMatchObject({ ok: false });
    const completed = (await textsTo(seller)).filter((s) => s.event_key.startsWith("order_completed:"));
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ to_number: sellerPhone, purpose: "order", event_key: `order_completed:${orderId}:completed:0` });
    expect(completed[0]!.body).toMatch(/^Soko: the buyer approved ".+"\. Your earnings clear in 14 days\.$/);
  });

  it("texts the timer's completion to the seller, without saying the buyer approved, once however often the timers run", async () => {
    const { seller, buyer, gigId, sellerPhone } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    await deliveredAgo(orderId, AUTO_COMPLETE_MS + 60_000);
    expect(await runOrderTimers(system, { db: t.db })).toMatchObject({ ok: true });
    expect(await runOrderTimers(system, { db: t.db })).toMatchObject({ ok: true });
    expect(await t.db("orders").where({ id: orderId }).first("status")).toEqual({ status: "completed" });
    const completed = (await textsTo(seller)).filter((s) => s.event_key.startsWith("order_completed:"));
    expect(completed).toHaveLength(1);
    expect(completed[0]).toMatchObject({ to_number: sellerPhone, purpose: "order", event_key: `order_completed:${orderId}:completed:0` });
    expect(completed[0]!.body).toMatch(/^Soko: ".+" was completed automatically\. Your earnings clear in 14 days\.$/);
    expect(completed[0]!.body).not.toMatch(/approved/);
    // The buyer is told in the app, not by text.
    expect((await textsTo(buyer)).filter((s) => s.event_key.startsWith("order_completed:"))).toEqual([]);
  });

  it("texts the seller a dispute the buyer opens, once", async () => {
    const { seller, buyer, gigId, sellerPhone } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    expect(await openDispute(memberActor(buyer), { orderId, reason: "The logo is not what I asked for" }, opts(t))).toMatchObject({ ok: true });
    expect(await openDispute(memberActor(buyer), { orderId, reason: "Again" }, opts(t))).toMatchObject({ ok: false });
    const disputes = (await textsTo(seller)).filter((s) => s.event_key.startsWith("dispute_opened:"));
    expect(disputes).toHaveLength(1);
    expect(disputes[0]).toMatchObject({ to_number: sellerPhone, purpose: "order", event_key: `dispute_opened:${orderId}:delivered:0` });
    expect(disputes[0]!.body).toMatch(/^Soko: a dispute was opened on ".+"\. Open Soko to answer it\.$/);
  });

  it("texts nobody about a dispute the seller opens: the seller knows, and disputes are texted to sellers only", async () => {
    const { seller, buyer, gigId } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    expect(await openDispute(memberActor(seller), { orderId, reason: "The buyer keeps changing the brief" }, opts(t))).toMatchObject({ ok: true });
    const disputeTexts = async (who: TestUser) => (await textsTo(who)).filter((s) => s.event_key.startsWith("dispute_opened:"));
    expect(await disputeTexts(seller)).toEqual([]);
    expect(await disputeTexts(buyer)).toEqual([]);
  });
});

describe("texts to the buyer", () => {
  it("texts a delivery, and a redelivery after a revision as a new text", async () => {
    const { seller, buyer, gigId, buyerPhone } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    await revise(buyer, orderId);
    await deliver(seller, orderId);
    const deliveries = (await textsTo(buyer)).filter((s) => s.event_key.startsWith("order_delivered:"));
    expect(deliveries.map((s) => s.event_key)).toEqual([`order_delivered:${orderId}:delivered:0`, `order_delivered:${orderId}:delivered:1`]);
    for (const text of deliveries) {
      expect(text).toMatchObject({ to_number: buyerPhone, purpose: "order" });
      expect(text.body).toMatch(/^Soko: your order ".+" was delivered\. Check it on Soko, then approve it or ask for a revision\.$/);
    }
    // The seller is not texted about their own delivery.
    expect((await textsTo(seller)).filter((s) => s.event_key.startsWith("order_delivered:"))).toEqual([]);
  });

  it("warns the buyer once a day before an order completes by itself, and not an order outside that day", async () => {
    const { seller, buyer, gigId, buyerPhone } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    // Delivered just now: three days to go, no warning yet.
    await textAutoCompleteWarnings(system, { db: t.db });
    expect(await warningsTo(buyer)).toEqual([]);

    // 10:00 in Kampala; the delivery completes by itself 4 hours later.
    const now = new Date("2026-12-09T07:00:00Z");
    const at = await deliveredAgo(orderId, AUTO_COMPLETE_MS - 4 * HOUR_MS, now);
    expect(await textAutoCompleteWarnings(system, { db: t.db, now })).toMatchObject({ ok: true });
    expect(await textAutoCompleteWarnings(system, { db: t.db, now: new Date(now.getTime() + HOUR_MS) })).toMatchObject({ ok: true });
    const warnings = await warningsTo(buyer);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ to_number: buyerPhone, purpose: "order", event_key: `auto_complete_soon:${orderId}:${at.getTime()}` });
    expect(warnings[0]!.body).toMatch(/^Soko: your order ".+" completes automatically in 4 hours\. Check the delivery on Soko before then\.$/);
    expect(await warningsTo(seller)).toEqual([]);
  });

  it("fills its batch only with buyers a text can reach, soonest first", async () => {
    // A day of its own, so that only this test's orders are in the window.
    const now = new Date("2026-12-20T07:00:00Z");
    const quiet = await createParties(t.db, { buyer: { name: "Unreachable Buyer" } });
    const q = await paidTestOrder(t, quiet.buyer, quiet.gigId);
    await deliver(quiet.seller, q.orderId);
    await deliveredAgo(q.orderId, AUTO_COMPLETE_MS - 2 * HOUR_MS, now);
    const reachable = await verifiedParties();
    const r = await paidTestOrder(t, reachable.buyer, reachable.gigId);
    await deliver(reachable.seller, r.orderId);
    await deliveredAgo(r.orderId, AUTO_COMPLETE_MS - 5 * HOUR_MS, now);
    // One at a time: the order completing sooner, whose buyer has no phone, does not take the only place.
    expect(await textAutoCompleteWarnings(system, { db: t.db, now, batch: 1 })).toEqual({ ok: true, value: 1 });
    expect(await warningsTo(reachable.buyer)).toHaveLength(1);
    expect(await warningsTo(quiet.buyer)).toEqual([]);
  });

  it("does not warn about an order already completed or disputed", async () => {
    const now = new Date("2026-12-09T07:00:00Z");
    const approved = await verifiedParties();
    const a = await paidTestOrder(t, approved.buyer, approved.gigId);
    await deliver(approved.seller, a.orderId);
    expect(await approveOrder(memberActor(approved.buyer), { orderId: a.orderId }, opts(t))).toMatchObject({ ok: true });
    await deliveredAgo(a.orderId, AUTO_COMPLETE_MS - 4 * HOUR_MS, now);

    const disputed = await verifiedParties();
    const d = await paidTestOrder(t, disputed.buyer, disputed.gigId);
    await deliver(disputed.seller, d.orderId);
    expect(await openDispute(memberActor(disputed.buyer), { orderId: d.orderId, reason: "Not as described" }, opts(t))).toMatchObject({ ok: true });
    await deliveredAgo(d.orderId, AUTO_COMPLETE_MS - 4 * HOUR_MS, now);

    expect(await textAutoCompleteWarnings(system, { db: t.db, now })).toMatchObject({ ok: true });
    expect(await warningsTo(approved.buyer)).toEqual([]);
    expect(await warningsTo(disputed.buyer)).toEqual([]);
  });

  it("warns again about a new delivery after a revision", async () => {
    const { seller, buyer, gigId } = await verifiedParties();
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    const now = new Date("2026-12-09T07:00:00Z");
    const first = await deliveredAgo(orderId, AUTO_COMPLETE_MS - 5 * HOUR_MS, now);
    await textAutoCompleteWarnings(system, { db: t.db, now });
    await revise(buyer, orderId);
    await deliver(seller, orderId);
    const later = new Date("2026-12-12T08:00:00Z");
    const second = await deliveredAgo(orderId, AUTO_COMPLETE_MS - 3 * HOUR_MS, later);
    await textAutoCompleteWarnings(system, { db: t.db, now: later });
    expect((await warningsTo(buyer)).map((s) => s.event_key)).toEqual([
      `auto_complete_soon:${orderId}:${first.getTime()}`,
      `auto_complete_soon:${orderId}:${second.getTime()}`,
    ]);
  });

  it("counts the hours of a warning held overnight from 07:00, and writes none that could only go once the order completed", async () => {
    const night = new Date("2026-12-09T19:30:00Z");
    const noon = await verifiedParties();
    const early = await verifiedParties();
    for (const [{ seller, buyer, gigId }, completesAt] of [
      // 22:30 in Kampala; this order completes at 12:00 the next day. The text waits until 07:00: 5 hours before.
      [noon, "2026-12-10T09:00:00Z"],
      // This one completes at 05:00, before the text could go.
      [early, "2026-12-10T02:00:00Z"],
    ] as const) {
      const { orderId } = await paidTestOrder(t, buyer, gigId);
      await deliver(seller, orderId);
      await deliveredAgo(orderId, AUTO_COMPLETE_MS, new Date(completesAt));
    }
    await textAutoCompleteWarnings(system, { db: t.db, now: night });
    const warnings = await warningsTo(noon.buyer);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.body).toContain("completes automatically in 5 hours.");
    expect(await warningsTo(early.buyer)).toEqual([]);
  });
});

describe("the words", () => {
  it("fit one GSM-7 SMS with a gig title at its longest, shortened", async () => {
    const title = "I will design a modern minimalist logo for your juice shop, brand and social pages";
    const { seller, buyer, gigId } = await verifiedParties({ title: title.slice(0, 80) });
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    await revise(buyer, orderId);
    const texts = [...(await textsTo(seller)), ...(await textsTo(buyer))];
    expect(texts.length).toBe(3);
    for (const { body } of texts) {
      expect(body).toContain('"I will design a modern minimalist log..."');
      expect(gsm7Length(body)).not.toBeNull();
      expect(gsm7Length(body)!).toBeLessThanOrEqual(160);
    }
  });

  it("stay GSM-7 when a title has a phone keyboard's curly quotes and dashes", async () => {
    const { seller, buyer, gigId } = await verifiedParties({ title: "I’ll design “Juice” logos – fast…" });
    await paidTestOrder(t, buyer, gigId);
    const [text] = await textsTo(seller);
    expect(text!.body).toBe(`Soko: new paid order "I'll design "Juice" logos - fast...". Open Soko to start the work on time.`);
    expect(gsm7Length(text!.body)).not.toBeNull();
  });

  it("are in Swahili for a member whose language is Swahili", async () => {
    const { seller, buyer, gigId } = await verifiedParties({ title: "Logo ya duka la juisi" });
    await t.db("users").whereIn("id", [seller.id, buyer.id]).update({ language: "sw" });
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    await deliver(seller, orderId);
    await revise(buyer, orderId);
    expect((await textsTo(seller)).map((s) => s.body)).toEqual([
      'Soko: agizo jipya lililolipwa "Logo ya duka la juisi". Fungua Soko uanze kazi kwa wakati.',
      'Soko: mnunuzi ameomba marekebisho ya "Logo ya duka la juisi". Fungua Soko uone cha kubadilisha.',
    ]);
    expect((await textsTo(buyer)).map((s) => s.body)).toEqual([
      'Soko: agizo lako "Logo ya duka la juisi" limewasilishwa. Liangalie kwenye Soko, kisha uliidhinishe au uombe marekebisho.',
    ]);
  });
});
