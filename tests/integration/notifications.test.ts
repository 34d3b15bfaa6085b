/**
 * Notifications (ADR 016), through the real operations and the built server: each order step
 * notifies the other party and a message makes one unread notification per conversation (brought up to date,
 * not repeated) that opening the conversation reads; /notifications lists a member's own (paged, linking to
 * what each is about) and marks one or all of them read, refusing another member's; the header carries the
 * unread counts; the live "notification" event reaches the member's socket only when their push preference
 * for it is on. The dashboard shows the latest few.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { markConversationRead, sendMessage, startConversation } from "~/operations/messages.server";
import { markNotificationRead, markNotificationsRead, type NotificationPush } from "~/operations/notifications.server";
import { deliverOrder } from "~/operations/orders.server";
import { createSession, createUser, type TestUser } from "../support/factories";
import { decode } from "../support/html";
import { LiveClient } from "../support/live-client";
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

const cookieOf = async (who: TestUser) => `soko_session=${await createSession(t.db, who.id)}`;
const get = (path: string, cookie?: string) => fetch(`${server.baseUrl}${path}`, { redirect: "manual", headers: cookie ? { Cookie: cookie } : {} });
/**
 * The page as a person reads it: without its scripts, whose loader data carry the page's whole catalogue of
 * words (ADR 047), "Mark all read" among them whether or not the page shows it.
 */
const page = async (path: string, cookie: string) => decode((await (await get(path, cookie)).text()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""));
const post = (path: string, cookie: string | null, fields: Record<string, string>) =>
  fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { ...(cookie ? { Cookie: cookie } : {}), Origin: server.baseUrl },
    body: new URLSearchParams(fields),
  });

/** A conversation `from` starts with `to`, and a message in it. */
async function message(from: TestUser, to: TestUser, body: string) {
  const started = await startConversation(memberActor(from), { userId: to.id }, { db: t.db });
  if (!started.ok) throw new Error(`startConversation failed: ${JSON.stringify(started)}`);
  const sent = await sendMessage(memberActor(from), { conversationId: started.value.conversationId, body }, { db: t.db });
  expect(sent.ok).toBe(true);
  return started.value.conversationId;
}

const notificationsOf = (who: TestUser) =>
  t.db("notifications").where({ user_id: who.id }).orderBy("id").select("id", "kind", "order_id", "conversation_id", "body", "read_at", "created_at");

describe("order updates on the dashboard", () => {
  async function updates(cookie: string) {
    const html = await page("/dashboard", cookie);
    const list = /<ul[^>]*aria-label="Latest notifications"[^>]*>(.*?)<\/ul>/s.exec(html)?.[1] ?? "";
    return { html, items: [...list.matchAll(/<li( class="unread")?>(.*?)<\/li>/gs)].map((m) => ({ unread: Boolean(m[1]), html: m[2]! })) };
  }
  const markRead = (cookie: string) => post("/dashboard", cookie, { intent: "read_notifications" });

  it("lists each party's own updates, newest first, linking to the order, and marks only the reader's own read", async () => {
    const seller = await cookieOf(t.seller);
    const buyer = await cookieOf(t.buyer);
    expect((await updates(seller)).html).toContain("No notifications yet.");

    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    expect((await deliverOrder(memberActor(t.seller), { orderId, message: "The poster, as a PDF" }, opts(t))).ok).toBe(true);

    const sellerView = await updates(seller);
    expect(sellerView.items).toHaveLength(1);
    expect(sellerView.items[0]).toMatchObject({ unread: true });
    expect(sellerView.items[0]!.html).toMatch(
      new RegExp(`<a [^>]*href="/orders/${orderId}">New order “Poster for a church fundraiser”: the buyer has paid</a>`),
    );
    expect(sellerView.html).toMatch(/<a [^>]*href="\/notifications">All notifications<\/a>/);
    const buyerView = await updates(buyer);
    expect(buyerView.items.map((i) => i.html.replace(/<[^>]+>/g, "").replace(/New: /, ""))).toEqual([
      expect.stringContaining("Your order “Poster for a church fundraiser” was delivered"),
      expect.stringContaining("Your payment for “Poster for a church fundraiser” is held in escrow"),
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
    const res = await post("/dashboard", null, { intent: "read_notifications" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toMatch(/^\/login/);
  });
});

describe("message notifications", () => {
  it("keeps one unread notification per conversation, brought up to date by each message, and read by opening the conversation", async () => {
    const amos = await createUser(t.db, { name: "Amos Okello" });
    const ruth = await createUser(t.db, { name: "Ruth Nakato", role: "freelancer" });
    const conversationId = await message(amos, ruth, "Hello Ruth");
    const [first] = await notificationsOf(ruth);
    expect(first).toMatchObject({ kind: "message", conversation_id: conversationId, order_id: null, body: "New message from Amos Okello", read_at: null });

    await sendMessage(memberActor(amos), { conversationId, body: "Are you free on Friday?" }, { db: t.db });
    const [again, ...more] = await notificationsOf(ruth);
    expect(more).toEqual([]);
    expect(again!.id).toBe(first!.id);
    expect(again!.created_at.getTime()).toBeGreaterThan(first!.created_at.getTime());
    // The sender is not notified of their own messages.
    expect(await notificationsOf(amos)).toEqual([]);

    expect((await markConversationRead(memberActor(ruth), { conversationId }, { db: t.db })).ok).toBe(true);
    expect((await notificationsOf(ruth))[0]!.read_at).toBeInstanceOf(Date);

    // A message after that is news again: a new unread notification beside the read one.
    await sendMessage(memberActor(amos), { conversationId, body: "Hello?" }, { db: t.db });
    expect((await notificationsOf(ruth)).map((n) => n.read_at === null)).toEqual([false, true]);
  });

  it("marks another member's notification for nobody: not found, and it stays unread", async () => {
    const owner = await createUser(t.db);
    const other = await createUser(t.db);
    await message(other, owner, "Hi");
    const [mine] = await notificationsOf(owner);
    expect(await markNotificationRead(memberActor(other), { id: mine!.id }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await markNotificationsRead(memberActor(other), { db: t.db })).toEqual({ ok: true, value: { marked: 0 } });
    expect((await notificationsOf(owner))[0]!.read_at).toBeNull();
  });
});

describe("/notifications", () => {
  /** The page's items: link (href and text), and whether each says it is unread. */
  function items(html: string) {
    const list = /<ul[^>]*aria-label="Your notifications"[^>]*>(.*?)<\/ul>/s.exec(html)?.[1] ?? "";
    return [...list.matchAll(/<li class="([^"]*)">(.*?)<\/li>/gs)].map(([, cls, inner]) => ({
      unread: cls!.split(" ").includes("unread"),
      says: /Unread/.test(inner!),
      href: /<a [^>]*href="([^"]+)"/.exec(inner!)?.[1] ?? null,
      text: /<a [^>]*>([^<]*)<\/a>/.exec(inner!)?.[1] ?? null,
      markRead: /name="intent" value="read"/.test(inner!),
    }));
  }

  it("sends a visitor to sign in first", async () => {
    const res = await get("/notifications");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/login?redirectTo=%2Fnotifications");
    expect((await post("/notifications", null, { intent: "read-all" })).headers.get("location")).toMatch(/^\/login/);
    const counts = await get("/notifications/counts");
    expect(counts.status).toBe(401);
    expect(await counts.json()).toEqual({ error: "Sign in to see your notifications." });
    // In the visitor's language (the switcher's cookie).
    const inSwahili = await get("/notifications/counts", "soko_lang=sw");
    expect(inSwahili.headers.get("content-language")).toBe("sw");
    expect(await inSwahili.json()).toEqual({ error: "Ingia ili uone arifa zako." });
  });

  it("says so when there are none", async () => {
    const html = await page("/notifications", await cookieOf(await createUser(t.db)));
    expect(html).toContain("You have no notifications yet");
    expect(html).not.toContain("Mark all read");
    expect(html).toMatch(/<a [^>]*aria-label="Notifications"[^>]*href="\/notifications"|<a [^>]*href="\/notifications"[^>]*aria-label="Notifications"/);
  });

  it("lists the member's own, newest first, each linking to its order or conversation, with the counts in the header", async () => {
    const buyer = await createUser(t.db, { name: "Grace Atim" });
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    expect((await deliverOrder(memberActor(t.seller), { orderId, message: "Done" }, opts(t))).ok).toBe(true);
    const conversationId = await message(t.seller, buyer, "Tell me if you need changes");
    const cookie = await cookieOf(buyer);

    const html = await page("/notifications", cookie);
    expect(items(html)).toEqual([
      { unread: true, says: true, href: `/messages/${conversationId}`, text: `New message from ${t.seller.name}`, markRead: true },
      { unread: true, says: true, href: `/orders/${orderId}`, text: "Your order “Poster for a church fundraiser” was delivered", markRead: true },
      { unread: true, says: true, href: `/orders/${orderId}`, text: expect.stringContaining("is held in escrow"), markRead: true },
    ]);
    expect(html).toContain("3 unread");
    // The header: the bell and Messages say their counts in words (and show them as badges).
    expect(html).toMatch(/aria-label="Notifications, 3 unread"/);
    expect(html).toMatch(/aria-label="Messages, 1 unread"/);
    expect(await (await get("/notifications/counts", cookie)).json()).toEqual({ notifications: 3, messages: 1 });
    // Another member's notifications are not on it.
    expect(html).not.toContain("New order:");
  });

  it("marks one read, then all, by forms that come back to the page; another member's id is not found and changes nothing", async () => {
    const reader = await createUser(t.db);
    const stranger = await createUser(t.db);
    const senders = [
      await createUser(t.db, { name: "Sender One" }),
      await createUser(t.db, { name: "Sender Two" }),
      await createUser(t.db, { name: "Sender Three" }),
    ];
    for (const s of senders) await message(s, reader, "Hello");
    await message(senders[0]!, stranger, "Hello stranger");
    const cookie = await cookieOf(reader);
    const [one, two] = await notificationsOf(reader);
    const [theirs] = await notificationsOf(stranger);

    const res = await post("/notifications", cookie, { intent: "read", id: String(one!.id) });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/notifications");
    expect((await notificationsOf(reader)).map((n) => n.read_at !== null)).toEqual([true, false, false]);
    const after = items(await page("/notifications", cookie));
    expect(after.find((i) => i.text === "New message from Sender One")).toMatchObject({ unread: false, says: false, markRead: false });

    // From an older page, the answer goes back to that page.
    expect((await post(`/notifications?before=${two!.id + 1}`, cookie, { intent: "read", id: String(two!.id) })).headers.get("location")).toBe(
      `/notifications?before=${two!.id + 1}`,
    );

    const foreign = await post("/notifications", cookie, { intent: "read", id: String(theirs!.id) });
    expect(foreign.status).toBe(404);
    expect((await notificationsOf(stranger))[0]!.read_at).toBeNull();
    for (const bad of [{ intent: "read", id: "x" }, { intent: "read" }, { intent: "delete", id: String(one!.id) }] as Record<string, string>[]) {
      expect((await post("/notifications", cookie, bad)).status).toBe(400);
    }

    const all = await post("/notifications", cookie, { intent: "read-all" });
    expect(all.status).toBe(303);
    expect((await notificationsOf(reader)).every((n) => n.read_at !== null)).toBe(true);
    expect((await notificationsOf(stranger))[0]!.read_at).toBeNull();
    const html = await page("/notifications", cookie);
    expect(html).toContain("All read");
    expect(html).not.toContain("Mark all read");
    expect(html).toMatch(/aria-label="Notifications"/);
  });

  it("pages 30 at a time with an Older link, and refuses a cursor that is not one", async () => {
    const member = await createUser(t.db);
    await t.db("notifications").insert(
      Array.from({ length: 35 }, (_, i) => ({
        user_id: member.id,
        kind: "test",
        body: `Update number ${i + 1}`,
        created_at: new Date(Date.UTC(2026, 10, 1, 8, i)),
      })),
    );
    const cookie = await cookieOf(member);
    const first = await page("/notifications", cookie);
    const firstItems = [...first.matchAll(/>Update number (\d+)</g)].map((m) => Number(m[1]));
    expect(firstItems).toEqual(Array.from({ length: 30 }, (_, i) => 35 - i));
    const older = /<a [^>]*href="(\/notifications\?before=\d+)"[^>]*>Older<\/a>/.exec(first)?.[1];
    expect(older).toBeDefined();

    const second = await page(older!, cookie);
    expect([...second.matchAll(/>Update number (\d+)</g)].map((m) => Number(m[1]))).toEqual([5, 4, 3, 2, 1]);
    expect(second).not.toMatch(/>Older</);
    // Its Mark read forms post to the page they are on, so the answer comes back to it.
    expect(second).toContain(`action="${older!}"`);
    expect(second).toMatch(/<a [^>]*href="\/notifications"[^>]*>Newest<\/a>/);

    expect((await get("/notifications?before=abc", cookie)).status).toBe(400);
  });
});

describe("order mail", () => {
  const mailsTo = (who: TestUser) => t.db("outbox").where({ to_address: who.email }).orderBy("id").pluck("subject");

  it("mails an order step to a party who wants order mail, and not to one who turned it off", async () => {
    const buyer = await createUser(t.db);
    await t.db("users").where({ id: buyer.id }).update({ notify_email_orders: false });
    const sellerMailsBefore = (await mailsTo(t.seller)).length;
    const { orderId } = await paidTestOrder(t, buyer, t.gigId);
    expect(await mailsTo(buyer)).toEqual([]);
    expect((await mailsTo(t.seller)).slice(sellerMailsBefore)).toEqual(["Soko: New order “Poster for a church fundraiser”: the buyer has paid"]);
    // The notification is stored either way.
    expect((await notificationsOf(buyer)).map((n) => n.kind)).toEqual(["order_paid"]);

    await t.db("users").where({ id: buyer.id }).update({ notify_email_orders: true });
    expect((await deliverOrder(memberActor(t.seller), { orderId, message: "Done" }, opts(t))).ok).toBe(true);
    expect(await mailsTo(buyer)).toEqual(["Soko: Your order “Poster for a church fundraiser” was delivered"]);
  });
});

describe("live notification pushes", () => {
  /** A member's socket on the server. */
  const live = async (who: TestUser) => new LiveClient(server, await createSession(t.db, who.id)).connect();

  it("pushes an order step's notification when the member's order pushes are on, and none when off", async () => {
    const buyer = await createUser(t.db);
    const socket = await live(buyer);
    try {
      const { orderId } = await paidTestOrder(t, buyer, t.gigId);
      expect(await socket.received("notification", 1)).toEqual([
        { unread: 1, item: { kind: "order_paid", body: expect.stringContaining("is held in escrow"), orderId, conversationId: null } },
      ]);

      await t.db("users").where({ id: buyer.id }).update({ notify_push_orders: false });
      expect((await deliverOrder(memberActor(t.seller), { orderId, message: "Done" }, opts(t))).ok).toBe(true);
      // Stored all the same; then the member's own reading is pushed (their other tabs' bells follow): the
      // delivery's push would have come before it.
      expect(await notificationsOf(buyer)).toHaveLength(2);
      expect((await markNotificationsRead(memberActor(buyer), { db: t.db })).ok).toBe(true);
      expect(await socket.received("notification", 2)).toEqual([expect.objectContaining({ unread: 1 }), { unread: 0, item: null }]);
    } finally {
      socket.close();
    }
  });

  it("pushes a message's notification when the member's message pushes are on, and none when off", async () => {
    const [writer, reader] = [await createUser(t.db, { name: "Peter Mugisha" }), await createUser(t.db)];
    const socket = await live(reader);
    try {
      const conversationId = await message(writer, reader, "Hello");
      expect(await socket.received("notification", 1)).toEqual([
        { unread: 1, item: { kind: "message", body: "New message from Peter Mugisha", orderId: null, conversationId } },
      ]);

      await t.db("users").where({ id: reader.id }).update({ notify_push_messages: false });
      await sendMessage(memberActor(writer), { conversationId, body: "Hello again" }, { db: t.db });
      expect((await markConversationRead(memberActor(reader), { conversationId }, { db: t.db })).ok).toBe(true);
      expect(await socket.received("notification", 2)).toEqual([expect.objectContaining({ unread: 1 }), { unread: 0, item: null }]);
    } finally {
      socket.close();
    }
  });

  it("pushes the member's whole unread count with a message: one per conversation however many messages, and what opening one leaves", async () => {
    const [first, second, reader] = [await createUser(t.db), await createUser(t.db), await createUser(t.db)];
    const socket = await live(reader);
    try {
      const one = await message(first, reader, "Hello");
      await sendMessage(memberActor(first), { conversationId: one, body: "Are you there?" }, { db: t.db });
      const two = await message(second, reader, "Good morning");
      expect((await markConversationRead(memberActor(reader), { conversationId: one }, { db: t.db })).ok).toBe(true);
      const pushes = (await socket.received("notification", 4)) as NotificationPush[];
      expect(pushes.map((p) => [p.unread, p.item?.conversationId ?? null])).toEqual([
        [1, one],
        [1, one],
        [2, two],
        [1, null],
      ]);
      expect(await t.db("notifications").where({ user_id: reader.id }).whereNull("read_at").pluck("conversation_id")).toEqual([two]);
    } finally {
      socket.close();
    }
  });
});
