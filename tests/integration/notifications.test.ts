/**
 * Order updates on the dashboard, through the real server: each order step notifies the other party, the
 * dashboard lists the member's own updates (unread ones marked) linking to the order, and "Mark all as
 * read" marks only the member's own.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { deliverOrder } from "~/operations/orders.server";
import { createSession } from "../support/factories";
import { memberActor, opts, orderTestContext, paidTestOrder } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("notifications", { parties: { gig: { title: "Poster for a church fundraiser" } } });
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });
});
afterAll(async () => {
  await server?.stop();
});

async function updates(cookie: string) {
  const html = (await (await fetch(`${server.baseUrl}/dashboard`, { headers: { Cookie: cookie } })).text()).replace(/<!-- -->/g, "");
  const list = /<ul[^>]*aria-label="Order updates"[^>]*>(.*?)<\/ul>/s.exec(html)?.[1] ?? "";
  return { html, items: [...list.matchAll(/<li( class="unread")?>(.*?)<\/li>/gs)].map((m) => ({ unread: Boolean(m[1]), html: m[2]! })) };
}

const markRead = (cookie: string) =>
  fetch(`${server.baseUrl}/dashboard`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, Origin: server.baseUrl },
    body: new URLSearchParams({ intent: "read_notifications" }),
  });

describe("order updates on the dashboard", () => {
  it("lists each party's own updates, newest first, linking to the order, and marks only the reader's own read", async () => {
    const seller = `soko_session=${await createSession(t.db, t.seller.id)}`;
    const buyer = `soko_session=${await createSession(t.db, t.buyer.id)}`;
    expect((await updates(seller)).html).toContain("No order updates yet.");

    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    expect((await deliverOrder(memberActor(t.seller), { orderId, message: "The poster, as a PDF" }, opts(t))).ok).toBe(true);

    const sellerView = await updates(seller);
    expect(sellerView.items).toHaveLength(1);
    expect(sellerView.items[0]).toMatchObject({ unread: true });
    expect(sellerView.items[0]!.html).toMatch(new RegExp(`<a [^>]*href="/orders/${orderId}">New order: Poster for a church fundraiser</a>`));
    const buyerView = await updates(buyer);
    expect(buyerView.items.map((i) => i.html.replace(/<[^>]+>/g, "").replace(/New: /, ""))).toEqual([
      expect.stringContaining("Your order Poster for a church fundraiser has been delivered"),
      expect.stringContaining("Your payment for Poster for a church fundraiser is held in escrow"),
    ]);

    const res = await markRead(seller);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/dashboard#updates");
    expect((await updates(seller)).items.every((i) => !i.unread)).toBe(true);
    expect((await updates(seller)).html).not.toContain("Mark all as read");
    // The buyer's updates are untouched by the seller's reading.
    expect((await updates(buyer)).items.every((i) => i.unread)).toBe(true);
    expect(await t.db("notifications").where({ user_id: t.buyer.id }).whereNotNull("read_at").count<{ n: string }[]>({ n: "*" })).toEqual([{ n: 0 }]);
  });

  it("refuses a visitor's post", async () => {
    const res = await fetch(`${server.baseUrl}/dashboard`, { method: "POST", redirect: "manual", headers: { Origin: server.baseUrl }, body: new URLSearchParams({ intent: "read_notifications" }) });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login/);
  });
});
