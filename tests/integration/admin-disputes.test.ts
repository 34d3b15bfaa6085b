/**
 * The admin disputes screen, through the real server with JavaScript off: admins only (members are sent
 * home on the main host and refused on the admin host, for a GET and a POST alike); an admin reads both
 * sides of each open dispute and resolves it by refunding the buyer, releasing the escrow to the seller or
 * splitting the price, which the order and the ledger then show. A split's bad amount or a missing reason is
 * answered beside its field with a 400, and nothing is written.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { deliverOrder, openDispute } from "~/operations/orders.server";
import { orderNumber } from "~/domain/order-rules";
import { createSession } from "../support/factories";
import { rowCount } from "../support/order-checks";
import { balances, memberActor, opts, orderTestContext, paidTestOrder } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("disputes", {
  parties: { buyer: { name: "Akello Joan" }, seller: { name: "Mugisha Peter" }, gig: { title: "Shop logo in three colours" } },
  admin: { name: "Disputes Admin" },
});
let server: TestServer;
let adminCookie: string;
let buyerCookie: string;
/** Disputed by the buyer after a delivery (older); disputed by the seller before any delivery (newer). */
let refunded: number;
let released: number;
let conversationId: string;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });

  adminCookie = `soko_session=${await createSession(t.db, t.admin.id)}`;
  buyerCookie = `soko_session=${await createSession(t.db, t.buyer.id)}`;

  refunded = (await paidTestOrder(t, t.buyer, t.gigId)).orderId;
  expect((await deliverOrder(memberActor(t.seller), { orderId: refunded, message: "Your logo, in blue only" }, opts(t))).ok).toBe(true);
  expect((await openDispute(memberActor(t.buyer), { orderId: refunded, reason: "We agreed on three colours; this has one." }, opts(t))).ok).toBe(true);
  released = (await paidTestOrder(t, t.buyer, t.gigId)).orderId;
  expect((await openDispute(memberActor(t.seller), { orderId: released, reason: "The buyer wants a website too, outside the package." }, opts(t))).ok).toBe(
    true,
  );

  // What the two said to each other, from the first order: three messages, the last with a file.
  const started = await startConversation(memberActor(t.buyer), { orderId: refunded }, { db: t.db });
  if (!started.ok) throw new Error(JSON.stringify(started));
  conversationId = started.value.conversationId;
  const say = async (who: typeof t.buyer, body: string, attachments: { storageKey: string; fileName: string; contentType: string; sizeBytes: number }[] = []) =>
    expect((await sendMessage(memberActor(who), { conversationId, body, attachments }, { db: t.db })).ok).toBe(true);
  await say(t.buyer, "Please use green, gold and black.");
  await say(t.seller, "Blue looks better for a shop, trust me.");
  await say(t.seller, "Here is the file", [
    { storageKey: "0c0c0c0c-0000-4000-8000-000000000003", fileName: "logo-blue.png", contentType: "image/png", sizeBytes: 2048 },
  ]);
});
afterAll(async () => {
  await server?.stop();
});

/** A request to the test server as a visitor of one host (a Host header: Node's fetch cannot set one). */
function request(host: "main" | "admin", method: "GET" | "POST", target: string, { cookie, form }: { cookie?: string; form?: Record<string, string> } = {}) {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const headers: Record<string, string> = { Host: new URL(origin).host, Origin: origin };
  if (cookie) headers.Cookie = cookie;
  if (body) headers["Content-Type"] = "application/x-www-form-urlencoded";
  return new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method, path: target, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: text.replace(/<!-- -->/g, "") }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const resolve = (cookie: string, orderId: number, resolution: string, note = "Decided on both sides' words", host: "main" | "admin" = "main", refundUgx = "") =>
  request(host, "POST", host === "main" ? "/admin/disputes" : "/disputes", { cookie, form: { orderId: String(orderId), resolution, note, refundUgx } });

/** The text of a field's error list, by the field's name, in a page of HTML. */
const fieldError = (html: string, orderId: number, name: string) => {
  const match = new RegExp(`id="resolve-${orderId}-${name}-error"[^>]*>(.*?)</ul>`).exec(html);
  return match ? match[1]!.replace(/<[^>]+>/g, "") : null;
};

describe("the disputes screen", () => {
  it("is for admins only: a member is sent home (main host) or refused (admin host), and cannot resolve", async () => {
    expect(await request("main", "GET", "/admin/disputes", { cookie: buyerCookie })).toMatchObject({ status: 302, location: "/" });
    expect((await request("admin", "GET", "/disputes", { cookie: buyerCookie })).status).toBe(403);
    expect((await request("main", "GET", "/admin/disputes")).location).toBe("/login?redirectTo=%2Fadmin%2Fdisputes");
    // The buyer would like their money back: the POST meets the same rule, and nothing changes.
    expect(await resolve(buyerCookie, refunded, "refund")).toMatchObject({ status: 302, location: "/" });
    expect((await resolve(buyerCookie, refunded, "refund", "Mine", "admin")).status).toBe(403);
    expect(await rowCount(t.db("disputes").where({ status: "open" }))).toBe(2);
    expect(await t.db("orders").whereIn("id", [refunded, released]).pluck("status")).not.toContain("cancelled");
  });

  it("lists the open disputes oldest first, with who opened each and why, and both sides' words", async () => {
    for (const [host, path] of [
      ["main", "/admin/disputes"],
      ["admin", "/disputes"],
    ] as const) {
      const page = await request(host, "GET", path, { cookie: adminCookie });
      expect(page.status).toBe(200);
      const html = page.body;
      expect(html).toContain("<h1");
      const first = html.indexOf(`${orderNumber(refunded)} · Shop logo in three colours`);
      const second = html.indexOf(`${orderNumber(released)} · Shop logo in three colours`);
      expect(first).toBeGreaterThan(-1);
      expect(second).toBeGreaterThan(first);
      expect(html).toContain("We agreed on three colours; this has one.");
      expect(html).toContain("by the buyer (Akello Joan)");
      expect(html).toContain("The buyer wants a website too, outside the package.");
      expect(html).toContain("by the seller (Mugisha Peter)");
      // The seller's side: the delivery; the buyer's: the requirements; and the timeline of both.
      expect(html).toContain("Your logo, in blue only");
      expect(html).toContain("A logo for my shop");
      expect(html).toContain("Seller (Mugisha Peter) delivered");
      expect(html).toContain("Buyer (Akello Joan) opened the dispute");
      expect(html).toContain("UGX 105,000");
      expect(html).toContain("Refund all to the buyer");
      expect(html).toContain("Release all to the seller");
      expect(html).toContain("Split the price");
      expect(html).toContain("Buyer&#x27;s refund for a split (UGX)");
    }
  });

  it("shows the buyer and seller's conversation beside each dispute, oldest first with files named, and audits the reading", async () => {
    const before = Number((await t.db("admin_audit_log").max("id as id").first())?.id ?? 0);
    const page = await request("main", "GET", "/admin/disputes", { cookie: adminCookie });
    expect(page.status).toBe(200);
    const html = page.body;
    expect(html).not.toContain("once messaging is built");
    const chat = html.slice(html.indexOf(`aria-label="Conversation of ${orderNumber(refunded)}"`));
    const words = chat.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
    const first = words.indexOf("Buyer (Akello Joan)");
    const second = words.indexOf("Blue looks better for a shop, trust me.");
    const third = words.indexOf("Here is the file");
    expect(first).toBeGreaterThan(-1);
    expect(words.indexOf("Please use green, gold and black.")).toBeGreaterThan(first);
    expect(second).toBeGreaterThan(first);
    expect(third).toBeGreaterThan(second);
    expect(words).toContain("Seller (Mugisha Peter)");
    expect(words).toContain("logo-blue.png (2 KB)");
    // The same pair on the other dispute: the same conversation beside it.
    expect(html).toContain(`aria-label="Conversation of ${orderNumber(released)}"`);
    // Read on the record: one conversation.read per dispute it was shown for, naming the order.
    const reads = await t.db("admin_audit_log").where({ action: "conversation.read", target_id: conversationId }).where("id", ">", before).orderBy("id");
    expect(reads).toHaveLength(2);
    expect(reads.map((r) => r.details.disputedOrder).sort()).toEqual([refunded, released].sort());
    expect(reads[0]).toMatchObject({ admin_id: t.admin.id, target_type: "conversation" });
    expect(reads[0].details).toMatchObject({ participants: [t.buyer.id, t.seller.id].sort((a, b) => a - b), messages: 3 });
    // A member never sees it there.
    const refused = await request("admin", "GET", "/disputes", { cookie: buyerCookie });
    expect(refused.body).not.toContain("Blue looks better");
  });

  it("refunds the buyer: the order is cancelled, escrow empties, and a refund payout goes to the buyer", async () => {
    const res = await resolve(adminCookie, refunded, "refund", "The delivery does not match the agreed brief.");
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/admin/disputes?resolved=${refunded}&resolution=refund`);
    expect(await t.db("orders").where({ id: refunded }).first("status")).toEqual({ status: "cancelled" });
    expect(await t.db("disputes").where({ order_id: refunded }).first("status", "resolution", "resolution_note")).toEqual({
      status: "resolved",
      resolution: "refund",
      resolution_note: "The delivery does not match the agreed brief.",
    });
    const ledger = await balances(t.db);
    expect(ledger[`escrow:order:${refunded}`]).toBe(0);
    expect(ledger[`buyer_fee_held:order:${refunded}`]).toBe(0);
    expect(await t.db("payouts").where({ order_id: refunded }).select("user_id", "kind", "amount_ugx")).toEqual([
      { user_id: t.buyer.id, kind: "refund", amount_ugx: 105_000 },
    ]);

    // Back on the screen: the confirmation, and the dispute has left the list.
    const page = await request("main", "GET", res.location!, { cookie: adminCookie });
    expect(page.body).toContain(`Dispute over ${orderNumber(refunded)} (Shop logo in three colours) resolved: you refunded the buyer.`);
    expect(page.body).not.toContain(`${orderNumber(refunded)} · `);
    expect(page.body).toContain(`${orderNumber(released)} · `);
  });

  it("answers a second resolution of the same dispute with a conflict, and nothing moves again", async () => {
    const res = await resolve(adminCookie, refunded, "release");
    expect(res.status).toBe(409);
    expect(res.body).toContain("This dispute has already been resolved (refunded to the buyer).");
    expect(await t.db("orders").where({ id: refunded }).first("status")).toEqual({ status: "cancelled" });
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ pendingUgx: 0 });
  });

  it("refuses a resolution that is none of the three, a split's bad amount and a missing reason beside their fields, writing nothing", async () => {
    const before = await t.db("order_events").where({ order_id: released }).count({ n: "*" });
    const answers: [string, string, string, string, string][] = [
      ["halve", "Half each", "", "resolution", "Choose release, refund or split"],
      ["split", "Half each", "", "refundUgx", "Enter the buyer&#x27;s refund in whole shillings"],
      ["split", "Half each", "12.5", "refundUgx", "Enter the buyer&#x27;s refund in whole shillings"],
      ["split", "Half each", "0", "refundUgx", "Enter a refund between UGX 1 and UGX 99,999, so that each side gets part of the price."],
      ["split", "Half each", "100,000", "refundUgx", "Enter a refund between UGX 1 and UGX 99,999, so that each side gets part of the price."],
      ["split", "", "50000", "note", "Give the reason for your decision: both parties will read it"],
      ["release", "", "", "note", "Give the reason for your decision: both parties will read it"],
    ];
    for (const [resolution, note, refundUgx, field, words] of answers) {
      const res = await resolve(adminCookie, released, resolution, note, "main", refundUgx);
      expect(res.status, `${resolution} ${refundUgx} ${note}`).toBe(400);
      expect(fieldError(res.body, released, field), `${resolution} ${refundUgx} ${note}`).toBe(words);
    }
    expect(await t.db("disputes").where({ order_id: released }).first("status")).toEqual({ status: "open" });
    expect(await t.db("order_events").where({ order_id: released }).count({ n: "*" })).toEqual(before);
    expect(await t.db("ledger_journals").where({ order_id: released }).pluck("kind")).toEqual(["payment_captured"]);
  });

  it("releases to the seller on the admin host: the order completes and the seller's pending balance is credited", async () => {
    const res = await resolve(adminCookie, released, "release", "The extra website was never part of the package.", "admin", "777");
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/disputes?resolved=${released}&resolution=release`);
    expect(await t.db("orders").where({ id: released }).first("status")).toEqual({ status: "completed" });
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ pendingUgx: 80_000 });
    expect((await balances(t.db))[`escrow:order:${released}`]).toBe(0);

    const page = await request("admin", "GET", res.location!, { cookie: adminCookie });
    expect(page.body).toContain("resolved: you released the escrow to the seller.");
    expect(page.body).toContain("No open disputes.");
  });

  it("splits a third order on the admin host: the confirmation names both parts, and the order page shows the outcome to each party", async () => {
    const split = (await paidTestOrder(t, t.buyer, t.gigId)).orderId;
    expect((await openDispute(memberActor(t.buyer), { orderId: split, reason: "Half of it is missing." }, opts(t))).ok).toBe(true);
    const res = await resolve(adminCookie, split, "split", "Half the work was delivered.", "admin", "50,000");
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/disputes?resolved=${split}&resolution=split`);
    const page = await request("admin", "GET", res.location!, { cookie: adminCookie });
    expect(page.body).toContain(
      `Dispute over ${orderNumber(split)} (Shop logo in three colours) resolved: you split the price: UGX 52,500 back to the buyer, UGX 40,000 to the seller after the fee.`,
    );
    const sellerCookie = `soko_session=${await createSession(t.db, t.seller.id)}`;
    for (const [cookie, refunded, paid] of [
      [buyerCookie, "Refunded to you", "Paid to the seller, after the service fee"],
      [sellerCookie, "Refunded to the buyer", "Paid to you, after the service fee"],
    ] as const) {
      const order = await request("main", "GET", `/orders/${split}`, { cookie });
      expect(order.status).toBe(200);
      const box = order.body.slice(order.body.indexOf('id="dispute-outcome"'));
      expect(box).toContain("Dispute resolved");
      expect(box).toContain(`<dt>${refunded}</dt><dd>UGX 52,500</dd>`);
      expect(box).toContain(`<dt>${paid}</dt><dd>UGX 40,000</dd>`);
      expect(box).toContain("Half the work was delivered.");
    }
    // The audit log says what was decided, in words.
    const audit = await request("admin", "GET", "/audit?action=dispute.split", { cookie: adminCookie });
    expect(audit.status).toBe(200);
    expect(audit.body).toContain("Resolved a dispute: split the price");
  });
});
