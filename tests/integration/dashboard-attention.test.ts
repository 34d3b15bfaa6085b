/**
 * What the dashboard reads to lead a member to what waits for them, on real Postgres: the orders that need
 * them (as buyer: awaiting payment, a delivery to answer; as seller: work due soon or late; either: a dispute),
 * never another member's; their conversations with unread messages and the totals; their recent activity with
 * sign-ins in a row as one item. And the words the order steps store as notifications, quoting the gig's title.
 */
import { describe, expect, it } from "vitest";
import { listRecentActivity, recordActivity } from "~/models/activity.server";
import { listUnreadConversations } from "~/models/conversation.server";
import { listAttentionOrders } from "~/models/order.server";
import { markConversationRead, sendMessage, startConversation } from "~/operations/messages.server";
import { cancelOrder, deliverOrder, openDispute, requestRevision, runOrderTimers } from "~/operations/orders.server";
import { createGig, createUser, type TestUser } from "../support/factories";
import { memberActor, opts, orderTestContext, paidTestOrder, placeTestOrder, system } from "../support/orders";

const TITLE = "Logo in 24 hours";
const t = orderTestContext("dashboard_attention", {
  parties: { seller: { name: "Okot Designs" }, buyer: { name: "Nansubuga Buyer" }, gig: { title: TITLE } },
});
const DAY = 24 * 60 * 60 * 1000;

async function delivered(buyer: TestUser, gigId: number, seller: TestUser) {
  const { orderId } = await paidTestOrder(t, buyer, gigId);
  expect((await deliverOrder(memberActor(seller), { orderId, message: "Here it is" }, opts(t))).ok).toBe(true);
  return orderId;
}

const needs = (rows: Awaited<ReturnType<typeof listAttentionOrders>>) =>
  rows.map((r) => ({ id: r.id, need: r.need, role: r.role })).sort((a, b) => a.id - b.id);

describe("listAttentionOrders", () => {
  it("lists what waits for each party, on their own orders only", async () => {
    const { buyer, seller, gigId } = t;
    // Another buyer of the same seller, and a stranger with no orders at all.
    const other = await createUser(t.db, { role: "client", name: "Other Buyer" });
    const stranger = await createUser(t.db, { role: "client" });

    const unpaid = (await placeTestOrder(t, buyer, gigId)).orderId;
    const toApprove = await delivered(buyer, gigId, seller);
    const dueLater = (await paidTestOrder(t, buyer, gigId)).orderId; // due in 3 days: not yet
    const dueSoon = (await paidTestOrder(t, buyer, gigId)).orderId;
    const late = (await paidTestOrder(t, buyer, gigId)).orderId;
    const disputed = (await paidTestOrder(t, buyer, gigId)).orderId;
    await t
      .db("orders")
      .where({ id: dueSoon })
      .update({ due_at: new Date(Date.now() + DAY) });
    await t
      .db("orders")
      .where({ id: late })
      .update({ due_at: new Date(Date.now() - DAY) });
    expect((await openDispute(memberActor(seller), { orderId: disputed, reason: "The buyer stopped answering" }, opts(t))).ok).toBe(true);
    // The other buyer's orders: one unpaid (not the seller's to see yet), one delivered, one late.
    const othersUnpaid = (await placeTestOrder(t, other, gigId)).orderId;
    const othersDelivered = await delivered(other, gigId, seller);
    const othersLate = (await paidTestOrder(t, other, gigId)).orderId;
    await t
      .db("orders")
      .where({ id: othersLate })
      .update({ due_at: new Date(Date.now() - 2 * DAY) });

    const soon = new Date(Date.now() + 2 * DAY);
    expect(needs(await listAttentionOrders(t.db, buyer.id, soon))).toEqual([
      { id: unpaid, need: "pay", role: "buyer" },
      { id: toApprove, need: "approve", role: "buyer" },
      { id: disputed, need: "dispute", role: "buyer" },
    ]);
    expect(needs(await listAttentionOrders(t.db, other.id, soon))).toEqual([
      { id: othersUnpaid, need: "pay", role: "buyer" },
      { id: othersDelivered, need: "approve", role: "buyer" },
    ]);
    // The seller: work due soon or late from both buyers, the dispute; never an unpaid order, nor one delivered.
    const forSeller = await listAttentionOrders(t.db, seller.id, soon);
    expect(needs(forSeller)).toEqual([
      { id: dueSoon, need: "deliver", role: "seller" },
      { id: late, need: "deliver", role: "seller" },
      { id: disputed, need: "dispute", role: "seller" },
      { id: othersLate, need: "deliver", role: "seller" },
    ]);
    expect(forSeller.find((o) => o.id === late)).toMatchObject({ gigTitle: TITLE, otherName: buyer.name, dueAt: expect.any(Date) });
    expect(forSeller.map((o) => o.id)).not.toContain(dueLater);
    expect(await listAttentionOrders(t.db, stranger.id, soon)).toEqual([]);

    // Further ahead, the order due in three days is due soon too.
    expect((await listAttentionOrders(t.db, seller.id, new Date(Date.now() + 4 * DAY))).map((o) => o.id)).toContain(dueLater);
    // The buyer's delivered order carries when it was delivered (the page says when it completes by itself).
    expect((await listAttentionOrders(t.db, buyer.id, soon)).find((o) => o.id === toApprove)).toMatchObject({
      deliveredAt: expect.any(Date),
      otherName: seller.name,
    });
  });
});

describe("listUnreadConversations", () => {
  async function write(from: TestUser, to: TestUser, body: string) {
    const started = await startConversation(memberActor(from), { userId: to.id }, { db: t.db });
    if (!started.ok) throw new Error(JSON.stringify(started));
    expect((await sendMessage(memberActor(from), { conversationId: started.value.conversationId, body }, { db: t.db })).ok).toBe(true);
    return started.value.conversationId;
  }

  it("counts the member's unread messages and lists the latest of their conversations with any", async () => {
    const me = await createUser(t.db, { role: "client", name: "Reader Member" });
    const a = await createUser(t.db, { role: "freelancer", name: "Amina Writer" });
    const b = await createUser(t.db, { role: "freelancer", name: "Byaruhanga Writer" });
    const c = await createUser(t.db, { role: "freelancer", name: "Cissy Writer" });
    expect(await listUnreadConversations(t.db, me.id)).toEqual({ total: 0, conversationCount: 0, conversations: [] });

    const withA = await write(a, me, "Hello");
    await write(a, me, "Are you there?");
    const withB = await write(b, me, "A question about your order");
    const withC = await write(c, me, "Hi");
    // The member's own messages, and messages to somebody else, are not unread for them.
    await write(me, a, "Yes, here");
    await write(b, c, "Between the two of them");

    const unread = await listUnreadConversations(t.db, me.id, 2);
    expect(unread.total).toBe(4);
    expect(unread.conversationCount).toBe(3);
    // Writing back read nothing of Amina's: but the member's reply made that conversation the newest.
    expect(unread.conversations).toEqual([
      { id: withA, otherName: "Amina Writer", unread: 2, gigTitle: null },
      { id: withC, otherName: "Cissy Writer", unread: 1, gigTitle: null },
    ]);
    expect((await listUnreadConversations(t.db, me.id)).conversations.map((x) => x.id)).toEqual([withA, withC, withB]);

    expect((await markConversationRead(memberActor(me), { conversationId: withA }, { db: t.db })).ok).toBe(true);
    expect(await listUnreadConversations(t.db, me.id)).toMatchObject({ total: 2, conversationCount: 2 });
    // Nobody else's unread messages reach the member's totals: Cissy's from Byaruhanga are hers.
    expect((await listUnreadConversations(t.db, c.id)).total).toBe(1);
  });
});

describe("listRecentActivity", () => {
  it("makes sign-ins in a row one item with their count and the last time, newest first", async () => {
    const me = await createUser(t.db, { role: "client" });
    const someoneElse = await createUser(t.db, { role: "client" });
    const at = (minutes: number) => new Date(Date.UTC(2026, 11, 12, 10, minutes));
    const rows: [string, number][] = [
      ["joined", 0],
      ["signed_in", 1],
      ["signed_in", 2],
      ["signed_in", 3],
      ["profile_updated", 4],
      ["signed_in", 5],
      ["signed_in", 6],
      ["signed_in", 7],
      ["signed_in", 8],
      ["signed_in", 9],
    ];
    for (const [kind, minute] of rows) await t.db("activity").insert({ user_id: me.id, kind, details: "{}", created_at: at(minute) });
    await recordActivity(t.db, someoneElse.id, "signed_in", {});

    const items = await listRecentActivity(t.db, me.id);
    expect(items.map(({ kind, count, at: when }) => ({ kind, count, at: when.toISOString() }))).toEqual([
      { kind: "signed_in", count: 5, at: at(9).toISOString() },
      { kind: "profile_updated", count: 1, at: at(4).toISOString() },
      { kind: "signed_in", count: 3, at: at(3).toISOString() },
      { kind: "joined", count: 1, at: at(0).toISOString() },
    ]);
    // The limit counts items, not rows.
    expect((await listRecentActivity(t.db, me.id, 2)).map((i) => i.count)).toEqual([5, 1]);
  });
});

describe("the notifications an order's steps store", () => {
  const stored = (who: TestUser, orderId: number) =>
    t.db("notifications").where({ user_id: who.id, order_id: orderId }).orderBy("id").select("kind", "body", "conversation_id");

  it("quote the gig's title and say who did what", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Title Seller" });
    const buyer = await createUser(t.db, { role: "client", name: "Title Buyer" });
    const gig = await createGig(t.db, {
      sellerId: seller.id,
      title: "Logo in 24 hours",
      packages: { basic: { priceUgx: 100_000, deliveryDays: 3, revisions: 1 } },
    });

    const { orderId } = await paidTestOrder(t, buyer, gig.id);
    expect((await deliverOrder(memberActor(seller), { orderId, message: "v1" }, opts(t))).ok).toBe(true);
    expect((await requestRevision(memberActor(buyer), { orderId, reason: "Bigger letters" }, opts(t))).ok).toBe(true);
    expect((await cancelOrder(memberActor(buyer), { orderId, reason: "Changed my mind" }, opts(t))).ok).toBe(true);
    expect((await openDispute(memberActor(seller), { orderId, reason: "No answer" }, opts(t))).ok).toBe(true);
    expect(await stored(seller, orderId)).toEqual([
      { kind: "order_paid", body: "New order “Logo in 24 hours”: the buyer has paid", conversation_id: null },
      { kind: "revision_requested", body: "The buyer asked for a revision of “Logo in 24 hours”", conversation_id: null },
      { kind: "cancel_requested", body: "The buyer asked to cancel “Logo in 24 hours”", conversation_id: null },
    ]);
    expect(await stored(buyer, orderId)).toEqual([
      { kind: "order_paid", body: "Your payment for “Logo in 24 hours” is held in escrow", conversation_id: null },
      { kind: "order_delivered", body: "Your order “Logo in 24 hours” was delivered", conversation_id: null },
      { kind: "dispute_opened", body: "The seller opened a dispute on “Logo in 24 hours”", conversation_id: null },
    ]);

    // Delivered and left unanswered: completed by the timer, then cleared.
    const second = await paidTestOrder(t, buyer, gig.id);
    expect((await deliverOrder(memberActor(seller), { orderId: second.orderId, message: "v1" }, opts(t))).ok).toBe(true);
    expect((await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 4 * DAY) })).ok).toBe(true);
    expect((await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 19 * DAY) })).ok).toBe(true);
    expect((await stored(buyer, second.orderId)).map((n) => n.body).slice(-1)).toEqual(["Your order “Logo in 24 hours” was completed automatically"]);
    expect((await stored(seller, second.orderId)).map((n) => n.body).slice(-2)).toEqual([
      "Your order “Logo in 24 hours” is complete; the earnings clear in 14 days",
      "Your earnings from “Logo in 24 hours” are available to withdraw",
    ]);
  });
});
