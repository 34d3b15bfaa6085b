/**
 * The order pages through the real built server, as a browser without JavaScript uses them: /orders with
 * its tabs and counts for a buyer and a seller; an order's page and files only for its two parties; every
 * step posted as its form posts it (deliver with a file, revision, approve, cancel request and agreement,
 * dispute, review) and what that stored; a step the order has moved past (409, nothing changed); a field
 * left empty (400, its message beside it); and the download's headers.
 *
 * Orders are put into their states with the operations on this file's database (tests/support/orders.ts);
 * the server, with its own sandbox provider, does the rest.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cancelOrder, deliverOrder, openDispute, runOrderTimers } from "~/operations/orders.server";
import { orderNumber, statusKey } from "~/domain/order-rules";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { DAY_MS, trail } from "../support/order-checks";
import { completedTestOrder, memberActor, opts, orderTestContext, paidTestOrder, placeTestOrder, system } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { decode } from "../support/html";
import { formatDay, formatTime } from "~/utils/dates";
import { words } from "../support/words";

/** The seller's gig: a Basic package at UGX 100,000 in 3 days with 1 revision. */
const t = orderTestContext("orderroutes", {
  parties: {
    seller: { name: "Nakato Sarah", username: "nakato_designs" },
    buyer: { name: "Okello James", username: "okello_j" },
    gig: { title: "Logo for a coffee shop" },
  },
  admin: { name: "Site Admin" },
});
let server: TestServer;
let uploadDir: string;
const tokens = new Map<number, string>();

let stranger: TestUser;

beforeAll(async () => {
  stranger = await createUser(t.db, { role: "client", name: "Other Member" });
  for (const u of [t.seller, t.buyer, stranger, t.admin]) tokens.set(u.id, await createSession(t.db, u.id));
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-order-routes-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, PAYMENTS_SANDBOX: "1" });
});
afterAll(async () => {
  await server?.stop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Helpers

/** A GET, as `who` (a member, or nobody). */
function get(urlPath: string, who?: TestUser) {
  return fetch(`${server.baseUrl}${urlPath}`, { redirect: "manual", headers: who ? { Cookie: `soko_session=${tokens.get(who.id)}` } : {} });
}

/** A form posted as a browser posts it: urlencoded, or multipart for a FormData. */
function post(urlPath: string, who: TestUser, body: Record<string, string> | FormData) {
  return fetch(`${server.baseUrl}${urlPath}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: `soko_session=${tokens.get(who.id)}`, Origin: server.baseUrl },
    body: body instanceof FormData ? body : new URLSearchParams(body),
  });
}

/** The page without its scripts (loader data travels in them): what a person reads, tags kept. */
const visible = (html: string) => decode(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "").replace(/ data-discover="true"/g, ""));
/** The page's words only. */
const text = (html: string) =>
  visible(html)
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ");

async function page(urlPath: string, who: TestUser) {
  const res = await get(urlPath, who);
  expect(res.status, urlPath).toBe(200);
  return visible(await res.text());
}

/** The messages in the list with this id (a field's errors, or the page's own at the top). */
function messages(html: string, id: string): string[] {
  const list = new RegExp(`<ul id="${id}"[^>]*>(.*?)</ul>`, "s").exec(html);
  return list ? [...list[1]!.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => m[1]!) : [];
}

/** The intents of the buttons an order offers on a page. */
const intents = (html: string) => [...html.matchAll(/<button[^>]*name="intent"[^>]*value="([^"]+)"/g)].map((m) => m[1]);

const order = (id: number) => t.db("orders").where({ id }).first();
const eventKinds = async (id: number) => (await t.db("order_events").where({ order_id: id }).orderBy("id")).map((e) => e.kind as string);

/** The cards of a /orders page, by order id: each card's text. */
function cards(html: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const m of html.matchAll(/<article class="order-card" aria-labelledby="order-(\d+)-title">([\s\S]*?)<\/article>/g)) {
    out.set(Number(m[1]), m[2]!);
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------

describe("/orders", () => {
  let listBuyer: TestUser;
  let listSeller: TestUser;
  const ids = { unpaid: 0, paid: 0, completed: 0, cancelled: 0 };

  beforeAll(async () => {
    listSeller = await createUser(t.db, { role: "freelancer", name: "Tumusiime Paul", username: "tumusiime_p" });
    listBuyer = await createUser(t.db, { role: "client", name: "Achieng Grace", username: "achieng_g" });
    for (const u of [listSeller, listBuyer]) tokens.set(u.id, await createSession(t.db, u.id));
    const pictured = (
      await createGig(t.db, {
        sellerId: listSeller.id,
        title: "Wedding photography in Entebbe",
        images: ["0a0a0a0a-0000-4000-8000-000000000001"],
        packages: { basic: { priceUgx: 200_000, deliveryDays: 7 } },
      })
    ).id;
    const plain = (await createGig(t.db, { sellerId: listSeller.id, title: "Passport photos", packages: { basic: { priceUgx: 20_000, deliveryDays: 1 } } })).id;
    ids.unpaid = (await placeTestOrder(t, listBuyer, pictured)).orderId;
    ids.paid = (await paidTestOrder(t, listBuyer, plain)).orderId;
    ids.completed = (await completedTestOrder(t, listBuyer, listSeller, plain)).orderId;
    const abandoned = (await placeTestOrder(t, listBuyer, plain)).orderId;
    expect((await cancelOrder(memberActor(listBuyer), { orderId: abandoned, reason: "" }, opts(t))).ok).toBe(true);
    ids.cancelled = abandoned;
  });

  it("asks a visitor to sign in first", async () => {
    const res = await get("/orders");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/login?redirectTo=%2Forders");
  });

  it("shows the buyer's orders in three tabs with counts, each with what it is, who sells it, and what it cost", async () => {
    const html = await page("/orders", listBuyer);
    expect(text(html)).toContain("Active (2) Completed (1) Cancelled (1)");
    expect(html).toMatch(/<a aria-current="page" href="\/orders\?tab=active"|<a href="\/orders\?tab=active" aria-current="page"/);
    const active = cards(html);
    expect([...active.keys()]).toEqual([ids.paid, ids.unpaid]); // newest first

    const unpaid = active.get(ids.unpaid)!;
    expect(unpaid).toContain(`<img class="order-thumb" src="/media/0a0a0a0a-0000-4000-8000-000000000001-small.webp"`);
    expect(unpaid).toContain(`<a href="/orders/${ids.unpaid}">Wedding photography in Entebbe</a>`);
    expect(text(unpaid)).toContain(orderNumber(ids.unpaid));
    expect(text(unpaid)).toContain("Awaiting payment");
    expect(unpaid).toMatch(/Seller: <a href="\/user\/tumusiime_p">Tumusiime Paul<\/a>/);
    // The buyer sees what they pay: the price and the 5% fee.
    expect(text(unpaid)).toContain("Total UGX 210,000");
    expect(text(unpaid)).toContain("Due Once paid");
    expect(text(unpaid)).toContain("Delivery time 7 days");
    expect(unpaid).toContain(`href="/orders/${ids.unpaid}/pay"`);
    expect(intents(unpaid)).toEqual(["cancel"]);

    const paid = active.get(ids.paid)!;
    expect(paid).toContain('class="order-thumb order-thumb-empty"');
    expect(text(paid)).toContain("In progress");
    expect(text(paid)).toContain("Total UGX 21,000");
    expect(text(paid)).toContain("Delivery time 1 day");
    expect(text(paid)).not.toContain("Due Once paid");
    // Contact posts to /messages with the order (starting a conversation is not a GET).
    expect(paid).toMatch(
      new RegExp(
        `<form method="post" action="/messages" class="inline-form"><input type="hidden" name="intent" value="start"/><input type="hidden" name="orderId" value="${ids.paid}"/><button type="submit" class="link-button">Contact</button></form>`,
      ),
    );
    expect(paid).toMatch(/href="\/gig\/\d+">View Gig</);
    expect(paid).toContain(`href="/orders/${ids.paid}?confirm=cancel#cancel">Request cancel<`);
    expect(paid).toContain(`href="/orders/${ids.paid}?confirm=dispute#dispute">Open dispute<`);
    expect(paid).not.toContain("/pay");

    const completed = cards(await page("/orders?tab=completed", listBuyer));
    expect([...completed.keys()]).toEqual([ids.completed]);
    expect(text(completed.get(ids.completed)!)).toContain("Completed");
    expect(completed.get(ids.completed)).toContain(`href="/orders/${ids.completed}#review">Leave Review<`);
    expect([...cards(await page("/orders?tab=cancelled", listBuyer)).keys()]).toEqual([ids.cancelled]);
    // An unknown tab is the Active tab.
    expect([...cards(await page("/orders?tab=archived", listBuyer)).keys()]).toEqual([ids.paid, ids.unpaid]);
  });

  it("shows the seller their side: no unpaid orders, the buyer's name, and the price without the buyer's fee", async () => {
    const html = await page("/orders", listSeller);
    // The order the buyer gave up before paying was never the seller's work: not even under Cancelled.
    expect(text(html)).toContain("Active (1) Completed (1) Cancelled (0)");
    const active = cards(html);
    expect([...active.keys()]).toEqual([ids.paid]);
    const paid = active.get(ids.paid)!;
    expect(paid).toMatch(/Buyer: <a href="\/user\/achieng_g">Achieng Grace<\/a>/);
    expect(text(paid)).toContain("Price UGX 20,000");
    expect(paid).toContain(`href="/orders/${ids.paid}#deliver">Deliver<`);
    // Contact posts to /messages with the order (starting a conversation is not a GET).
    expect(paid).toMatch(
      new RegExp(
        `<form method="post" action="/messages" class="inline-form"><input type="hidden" name="intent" value="start"/><input type="hidden" name="orderId" value="${ids.paid}"/><button type="submit" class="link-button">Contact</button></form>`,
      ),
    );
    const completed = cards(await page("/orders?tab=completed", listSeller)).get(ids.completed)!;
    expect(completed).not.toContain("Leave Review");
  });

  it("offers no Approve on a delivered order's card, only a link to review the delivery on its page", async () => {
    const { orderId } = await paidTestOrder(t, listBuyer, (await createGig(t.db, { sellerId: listSeller.id, title: "Menu design" })).id);
    expect((await deliverOrder(memberActor(listSeller), { orderId, message: "Your menu" }, opts(t))).ok).toBe(true);
    const card = cards(await page("/orders", listBuyer)).get(orderId)!;
    expect(text(card)).toContain("Delivered");
    expect(intents(card)).toEqual([]);
    expect(text(card)).not.toContain("Approve");
    expect(card).toContain(`href="/orders/${orderId}#respond">Review delivery<`);
    // The order page's answer section is where that link lands.
    expect(await page(`/orders/${orderId}`, listBuyer)).toContain('id="respond"');
  });

  it("badges an order in dispute 'In dispute', on both parties' cards and the order's page", async () => {
    const { orderId } = await paidTestOrder(t, listBuyer, (await createGig(t.db, { sellerId: listSeller.id, title: "Flyer design" })).id);
    expect((await deliverOrder(memberActor(listSeller), { orderId, message: "Your flyer" }, opts(t))).ok).toBe(true);
    expect((await openDispute(memberActor(listBuyer), { orderId, reason: "Wrong phone number on it" }, opts(t))).ok).toBe(true);
    const badge = /<span class="status-badge order-status-disputed">In dispute<\/span>/;
    for (const who of [listBuyer, listSeller]) {
      const card = cards(await page("/orders", who)).get(orderId)!;
      expect(card).toMatch(badge);
      expect(text(card)).not.toContain("Delivered");
      const html = await page(`/orders/${orderId}`, who);
      const header = html.slice(html.indexOf('<p class="order-number">'), html.indexOf("</p>", html.indexOf('<p class="order-number">')));
      expect(header).toMatch(badge);
      expect(header).not.toContain("Delivered");
    }
  });

  it("shows a friendly empty state with a way to browse", async () => {
    const html = await page("/orders?tab=completed", stranger);
    expect(text(html)).toContain("Active (0) Completed (0) Cancelled (0)");
    expect(text(html)).toContain("No completed orders yet.");
    expect(html).toContain('href="/browse"');
  });

  it("names a status this version does not know 'Unknown'", async () => {
    expect(statusKey("on_hold")).toBe("orders.status.unknown");
    expect(statusKey("delivered")).toBe("orders.status.delivered");
    // A newer version's status (its CHECK widened), read by this one: the page says Unknown and offers nothing.
    const { conname } = (
      await t.db.raw("SELECT conname FROM pg_constraint WHERE conrelid = 'orders'::regclass AND pg_get_constraintdef(oid) LIKE '%pending_payment%'")
    ).rows[0];
    await t.db.raw("ALTER TABLE orders DROP CONSTRAINT ??", [conname]);
    const { orderId } = await placeTestOrder(t, listBuyer, (await createGig(t.db, { sellerId: listSeller.id })).id);
    await t.db("orders").where({ id: orderId }).update({ status: "on_hold" });
    const html = await page(`/orders/${orderId}`, listBuyer);
    expect(html).toMatch(/<span class="status-badge order-status-on_hold">Unknown<\/span>/);
    expect(intents(html)).toEqual([]);
  });
});

describe("an order's page", () => {
  it("is only for the order's two parties: anyone else, an admin too, meets a 404", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    expect((await get(`/orders/${orderId}`, t.buyer)).status).toBe(200);
    expect((await get(`/orders/${orderId}`, t.seller)).status).toBe(200);
    for (const who of [stranger, t.admin]) {
      const res = await get(`/orders/${orderId}`, who);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("Logo for a coffee shop");
      expect((await post(`/orders/${orderId}`, who, { intent: "request_revision", orderId: String(orderId), reason: "x" })).status).toBe(404);
      expect((await post(`/orders/${orderId}`, who, { intent: "cancel", orderId: String(orderId), reason: "mine now" })).status).toBe(404);
    }
    expect((await get(`/orders/abc`, t.buyer)).status).toBe(404);
    expect((await get(`/orders/99999999`, t.buyer)).status).toBe(404);
    expect(await order(orderId)).toMatchObject({ status: "in_progress", cancel_requested_by: null });
    const visitor = await get(`/orders/${orderId}`);
    expect(visitor.headers.get("location")).toBe(`/login?redirectTo=${encodeURIComponent(`/orders/${orderId}`)}`);
  });

  it("names a package its seller left unnamed by its tier in the reader's language, and one the seller named as written", async () => {
    const reader = await createUser(t.db, { role: "client", name: "Namubiru Aisha" });
    await t.db("users").where({ id: reader.id }).update({ language: "lg" });
    tokens.set(reader.id, await createSession(t.db, reader.id));
    const tier = words("orders.tier.basic", "lg");
    // The gig of this file: its Basic package left unnamed (stored as "Basic", as the gig form stores it).
    const checkout = text(await page(`/gig/${t.gigId}/order?package=basic`, reader));
    expect(checkout).toContain(words(`orders.checkout.packageLine|{"tier":"${tier}","days":3,"revisions":1}`, "lg"));
    const unnamed = await paidTestOrder(t, reader, t.gigId);
    expect((await order(unnamed.orderId)).package_name).toBe("Basic");
    const line = text(await page(`/orders/${unnamed.orderId}`, reader));
    expect(line).toContain(words(`orders.order.packageLine|{"package":"${tier}","days":3}`, "lg"));
    expect(line).not.toMatch(/\bBasic\b/);
    // The seller's own name is theirs, in any language, beside the tier.
    const named = await createGig(t.db, {
      sellerId: t.seller.id,
      title: "Shop sign",
      packages: { basic: { priceUgx: 50_000, deliveryDays: 3, name: "Sign and poster" } },
    });
    expect(text(await page(`/gig/${named.id}/order?package=basic`, reader))).toContain(`Sign and poster: ${tier}`);
    const own = await paidTestOrder(t, reader, named.id);
    expect(text(await page(`/orders/${own.orderId}`, reader))).toContain(words('orders.order.packageLine|{"package":"Sign and poster","days":3}', "lg"));
    // The gig form leaves an unnamed package's name empty (its placeholder names the tier), not the English stored.
    const nameField = async (gigId: number) => /<input[^>]*id="basic-name"[^>]*>/.exec(await page(`/gig/${gigId}/edit`, t.seller))![0];
    expect(await nameField(t.gigId)).not.toContain('value="Basic"');
    expect(await nameField(named.id)).toContain('value="Sign and poster"');
  });

  it("before payment is only the buyer's: its seller meets a 404 on its page, its files, its steps and a conversation from it", async () => {
    const { orderId } = await placeTestOrder(t, t.buyer, t.gigId);
    const [file] = await t
      .db("order_files")
      .insert({
        order_id: orderId,
        uploader_id: t.buyer.id,
        storage_key: "0b0b0b0b-0000-4000-8000-000000000002",
        file_name: "brief.txt",
        content_type: "text/plain",
        size_bytes: 6,
      })
      .returning("id");
    fs.mkdirSync(path.join(uploadDir, "order-files"), { recursive: true });
    fs.writeFileSync(path.join(uploadDir, "order-files", "0b0b0b0b-0000-4000-8000-000000000002"), "Brief\n");
    const here = `/orders/${orderId}`;
    const fileUrl = `${here}/files/${file.id}`;
    expect((await get(here, t.buyer)).status).toBe(200);
    expect((await get(fileUrl, t.buyer)).status).toBe(200);

    const unpaid = async () => {
      const res = await get(here, t.seller);
      expect(res.status).toBe(404);
      expect(await res.text()).not.toContain("A logo for my shop");
      expect((await get(fileUrl, t.seller)).status).toBe(404);
      expect((await get(`${here}?confirm=cancel`, t.seller)).status).toBe(404);
      expect((await post(here, t.seller, { intent: "cancel", orderId: String(orderId), reason: "" })).status).toBe(404);
      const delivery = new FormData();
      delivery.set("intent", "deliver");
      delivery.set("message", "Early work");
      expect((await post(here, t.seller, delivery)).status).toBe(404);
      // Contact from the order: the seller cannot reach it either.
      const contact = await post("/messages", t.seller, { intent: "start", orderId: String(orderId) });
      expect(contact.status).toBe(404);
      expect(await t.db("conversations").where({ order_id: orderId })).toEqual([]);
    };
    await unpaid();
    expect(await order(orderId)).toMatchObject({ status: "pending_payment", cancel_requested_by: null });
    expect(await t.db("deliveries").where({ order_id: orderId })).toEqual([]);

    // Given up before it was paid: still the buyer's alone.
    expect((await cancelOrder(memberActor(t.buyer), { orderId, reason: "" }, opts(t))).ok).toBe(true);
    expect(await order(orderId)).toMatchObject({ status: "cancelled", paid_at: null });
    await unpaid();
    expect((await get(here, t.buyer)).status).toBe(200);
    expect((await get(fileUrl, t.buyer)).status).toBe(200);
  });

  it("takes an order through delivery with a file, a revision, a second delivery, approval and a review", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const here = `/orders/${orderId}`;

    // The seller's page: their side of the money, and the delivery form.
    let html = await page(here, t.seller);
    expect(text(html)).toContain("Price UGX 100,000 Service fee − UGX 20,000 You earn UGX 80,000");
    expect(text(html)).toContain("Revisions 0 of 1 used");
    expect(intents(html)).toEqual(expect.arrayContaining(["deliver"]));
    expect(html).toMatch(/<form method="post" action="\/orders\/\d+" encType="multipart\/form-data"/i);
    expect(text(await page(here, t.buyer))).toContain("Price UGX 100,000 Processing fee UGX 5,000 Total UGX 105,000");

    // An empty message: 400, the message beside the field, nothing stored.
    const empty = new FormData();
    empty.set("intent", "deliver");
    empty.set("orderId", String(orderId));
    empty.set("message", "  ");
    let res = await post(here, t.seller, empty);
    expect(res.status).toBe(400);
    html = visible(await res.text());
    expect(messages(html, "deliver-form-message-error")).toEqual(["Tell the buyer what you are delivering"]);
    expect(html).toMatch(/<textarea[^>]*aria-invalid="true"[^>]*>|<textarea[^>]*name="message"[^>]*aria-invalid/);
    expect(await order(orderId)).toMatchObject({ status: "in_progress" });

    // A file that is not a kind we keep: refused beside the files field, nothing stored.
    const bad = new FormData();
    bad.set("intent", "deliver");
    bad.set("message", "The logo");
    bad.append("files", new File([new Uint8Array([0, 1, 2, 3, 0xfe])], "logo.bin"));
    res = await post(here, t.seller, bad);
    expect(res.status).toBe(400);
    expect(messages(visible(await res.text()), "deliver-files-error")[0]).toMatch(/^logo\.bin is not a file we accept/);
    expect(await order(orderId)).toMatchObject({ status: "in_progress" });
    expect(await t.db("deliveries").where({ order_id: orderId })).toEqual([]);

    // A file over 10 MB: refused beside the files field, with what was typed kept.
    const big = new FormData();
    big.set("intent", "deliver");
    big.set("message", "The big one");
    big.append("files", new File([Buffer.alloc(10 * 1024 * 1024 + 1, "a")], "huge.txt"));
    res = await post(here, t.seller, big);
    expect(res.status).toBe(400);
    html = visible(await res.text());
    expect(messages(html, "deliver-files-error")).toEqual(["huge.txt is over 10 MB"]);
    expect(html).toMatch(/<textarea[^>]*>The big one<\/textarea>/);
    expect(await order(orderId)).toMatchObject({ status: "in_progress" });

    // Delivered, with a text file.
    const delivery = new FormData();
    delivery.set("intent", "deliver");
    delivery.set("orderId", String(orderId));
    delivery.set("message", "Here is the first draft of your logo.");
    delivery.append("files", new File(["Colours: green and gold\n"], "Notes for Okello.txt", { type: "text/plain" }));
    res = await post(here, t.seller, delivery);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(here);
    expect(await order(orderId)).toMatchObject({ status: "delivered" });
    const [file] = await t.db("order_files").where({ order_id: orderId });
    expect(file).toMatchObject({ file_name: "Notes for Okello.txt", content_type: "text/plain", uploader_id: t.seller.id });
    expect(file.delivery_id).not.toBeNull();

    // The buyer sees the delivery and its file, and can approve (through a confirmation) or ask for a revision.
    html = await page(here, t.buyer);
    expect(text(html)).toContain("Here is the first draft of your logo.");
    expect(html).toContain(`href="/orders/${orderId}/files/${file.id}"`);
    expect(intents(html)).toEqual(["request_revision"]);
    expect(html).toContain(`href="/orders/${orderId}?confirm=approve#approve"`);

    // The download: the bytes as stored, as an attachment, never sniffed or cached.
    res = await get(`/orders/${orderId}/files/${file.id}`, t.buyer);
    expect(res.status).toBe(200);
    // The stored type (Express names the charset of a text type: the file was checked to be UTF-8 when stored).
    expect(res.headers.get("content-type")).toMatch(/^text\/plain(; charset=utf-8)?$/);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="Notes for Okello.txt"');
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(await res.text()).toBe("Colours: green and gold\n");
    expect((await get(`/orders/${orderId}/files/${file.id}`, t.seller)).status).toBe(200);
    for (const who of [stranger, t.admin]) expect((await get(`/orders/${orderId}/files/${file.id}`, who)).status).toBe(404);
    expect((await get(`/orders/${orderId + 1}/files/${file.id}`, t.buyer)).status).toBe(404);
    expect((await get(`/orders/${orderId}/files/${file.id}`)).status).toBe(302);

    // A revision, with its reason on the timeline.
    res = await post(here, t.buyer, { intent: "request_revision", orderId: String(orderId), reason: "Bigger letters, please" });
    expect(res.status).toBe(303);
    expect(await order(orderId)).toMatchObject({ status: "in_progress", revisions_used: 1 });
    expect(text(await page(here, t.seller))).toContain("Buyer asked for a revision: Bigger letters, please");

    // The second delivery, without files: the browser still sends the empty file field (filename="").
    const boundary = "----soko-test-boundary";
    const part = (headers: string, body: string) => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
    const raw =
      part('Content-Disposition: form-data; name="intent"', "deliver") +
      part('Content-Disposition: form-data; name="message"', "Bigger letters, as asked.") +
      part('Content-Disposition: form-data; name="files"; filename=""\r\nContent-Type: application/octet-stream', "") +
      `--${boundary}--\r\n`;
    res = await fetch(`${server.baseUrl}${here}`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: `soko_session=${tokens.get(t.seller.id)}`, Origin: server.baseUrl, "Content-Type": `multipart/form-data; boundary=${boundary}` },
      body: raw,
    });
    expect(res.status).toBe(303);
    expect(await t.db("order_files").where({ order_id: orderId }).pluck("file_name")).toEqual(["Notes for Okello.txt"]);
    expect(await order(orderId)).toMatchObject({ status: "delivered" });

    // No revisions left: the form is gone, and a revision posted anyway is a 409 that changes nothing.
    html = await page(here, t.buyer);
    expect(intents(html)).not.toContain("request_revision");
    const before = await eventKinds(orderId);
    res = await post(here, t.buyer, { intent: "request_revision", orderId: String(orderId), reason: "Once more" });
    expect(res.status).toBe(409);
    html = visible(await res.text());
    expect(messages(html, "order-errors")).toEqual(["This order has no revisions left. Approve the delivery or open a dispute."]);
    expect(html).toMatch(/<ul id="order-errors" class="field-errors" role="alert">/);
    expect(await order(orderId)).toMatchObject({ status: "delivered", revisions_used: 1 });
    expect(await eventKinds(orderId)).toEqual(before);

    // Approving without the confirmation (a one-tap POST): 400 with the reason, and nothing moves.
    const unconfirmed = await trail(t.db, [orderId]);
    for (const form of [{}, { confirm: "" }, { confirm: "yes" }] as Record<string, string>[]) {
      res = await post(here, t.buyer, { intent: "approve", orderId: String(orderId), redirectTo: "/orders?tab=active", ...form });
      expect(res.status).toBe(400);
      expect(messages(visible(await res.text()), "approve-form-confirm-error")).toEqual(["Confirm the release of the payment: approving cannot be undone."]);
    }
    expect(await trail(t.db, [orderId])).toEqual(unconfirmed);
    expect(await t.db("ledger_journals").where({ order_id: orderId, kind: "escrow_released" })).toEqual([]);
    expect(await order(orderId)).toMatchObject({ status: "delivered" });

    // The confirmation states what is released, to whom, and that it cannot be undone; its form carries the confirmation.
    html = await page(`${here}?confirm=approve`, t.buyer);
    expect(text(html)).toContain("Release UGX 100,000 to Nakato Sarah? This cannot be undone.");
    expect(text(html)).toContain("The UGX 105,000 you paid is held in escrow.");
    expect(html).toMatch(/<input type="hidden" name="confirm" value="release"\/>/);
    expect(intents(html)).toEqual(["approve"]);

    // Confirmed: the order completes and the escrow is released, and the buyer is back where they came from.
    res = await post(here, t.buyer, { intent: "approve", orderId: String(orderId), confirm: "release", redirectTo: "/orders?tab=active" });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/orders?tab=active");
    expect(await order(orderId)).toMatchObject({ status: "completed" });
    expect(await t.db("ledger_journals").where({ order_id: orderId, kind: "escrow_released" }).pluck("kind")).toEqual(["escrow_released"]);
    // A second approve (another tab): 409 with the reason, nothing changed.
    res = await post(here, t.buyer, { intent: "approve", orderId: String(orderId), confirm: "release" });
    expect(res.status).toBe(409);
    expect(messages(visible(await res.text()), "order-errors")).toEqual([
      "This order is completed, so that cannot be done now. Reload the page to see where it stands.",
    ]);
    expect(await eventKinds(orderId)).toEqual([...before, "approved"]);

    // The review: no stars is a 400 beside the stars; then it is stored and shown on the gig and the profile.
    res = await post(here, t.buyer, { intent: "review", orderId: String(orderId), comment: "Lovely" });
    expect(res.status).toBe(400);
    expect(messages(visible(await res.text()), "review-form-rating-error")).toEqual(["Choose from 1 to 5 stars"]);
    res = await post(here, t.buyer, {
      intent: "review",
      orderId: String(orderId),
      gigId: "999999",
      rating: "5",
      comment: "Nakato listened and delivered fast.",
    });
    expect(res.status).toBe(303);
    expect(await t.db("reviews").where({ order_id: orderId }).first()).toMatchObject({ gig_id: t.gigId, rating: 5, reviewer_id: t.buyer.id });
    expect(text(await page(`/gig/${t.gigId}`, stranger))).toContain("Nakato listened and delivered fast.");
    expect(text(await page(`/user/${t.seller.username}`, stranger))).toContain("Nakato listened and delivered fast.");
    html = await page(here, t.buyer);
    // No second review; only deleting this one, which its buyer may do for 7 days (ADR 053).
    expect(intents(html)).toEqual(["delete"]);
    res = await post(here, t.buyer, { intent: "review", orderId: String(orderId), rating: "4" });
    expect(res.status).toBe(409);
    expect(await t.db("reviews").where({ order_id: orderId }).pluck("rating")).toEqual([5]);

    // The timeline, in words.
    const timeline = text(html.slice(html.indexOf('aria-label="Timeline"')));
    for (const line of [
      "Buyer placed the order",
      "Payment received — UGX 105,000 held in escrow",
      "Seller delivered",
      "Buyer asked for a revision: Bigger letters, please",
      "Buyer approved the delivery: the order is complete",
      "Buyer left a review: 5 of 5 stars",
    ]) {
      expect(timeline).toContain(line);
    }
    expect(timeline).toContain("Okello James ·");
  });

  it("names a file with other letters with filename* beside a plain stand-in", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const form = new FormData();
    form.set("intent", "deliver");
    form.set("message", "Ripoti");
    form.append("files", new File(["Habari\n"], "Ripoti ya Kampala – Mukono.txt"));
    expect((await post(`/orders/${orderId}`, t.seller, form)).status).toBe(303);
    const file = await t.db("order_files").where({ order_id: orderId }).first();
    const res = await get(`/orders/${orderId}/files/${file.id}`, t.buyer);
    expect(res.headers.get("content-disposition")).toBe(
      `attachment; filename="Ripoti ya Kampala _ Mukono.txt"; filename*=UTF-8''Ripoti%20ya%20Kampala%20%E2%80%93%20Mukono.txt`,
    );
    // The file gone from disk: a 404, not a broken download.
    fs.rmSync(path.join(uploadDir, "order-files", file.storage_key));
    const gone = await get(`/orders/${orderId}/files/${file.id}`, t.buyer);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toBe("We could not find that file.");
  });

  it("cancels by agreement: one party asks (with a reason), the other sees it and agrees", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const here = `/orders/${orderId}`;
    // The confirmation step: the list links to it, and the page shows the form only there.
    expect(await page(here, t.seller)).not.toContain('id="cancel-form"');
    expect(await page(`${here}?confirm=cancel`, t.seller)).toContain('id="cancel-form"');
    let res = await post(here, t.seller, { intent: "cancel", orderId: String(orderId), reason: "I am unwell this week" });
    expect(res.status).toBe(303);
    expect(await order(orderId)).toMatchObject({ status: "in_progress", cancel_requested_by: t.seller.id });

    let html = await page(here, t.buyer);
    expect(text(html)).toContain("The seller asked to cancel: I am unwell this week");
    expect(intents(html)).toEqual(expect.arrayContaining(["cancel", "decline_cancel"]));
    expect(text(await page(here, t.seller))).toContain("You asked to cancel this order (I am unwell this week). The buyer has not answered yet.");
    // In the list, the buyer can agree there too.
    const card = cards(await page("/orders", t.buyer)).get(orderId)!;
    expect(text(card)).toContain("Agree to cancel");

    res = await post(here, t.buyer, { intent: "cancel", orderId: String(orderId) });
    expect(res.status).toBe(303);
    expect(await order(orderId)).toMatchObject({ status: "cancelled" });
    expect(await t.db("payouts").where({ order_id: orderId, kind: "refund" }).first()).toMatchObject({ amount_ugx: 105_000, user_id: t.buyer.id });
    html = await page(here, t.buyer);
    expect(text(html)).toContain("Seller asked to cancel: I am unwell this week");
    expect(text(html)).toContain("Buyer agreed to cancel: the order is cancelled");
    expect(intents(html)).toEqual([]);
  });

  it("lets the other party decline a cancel request, and the asker withdraw one", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const here = `/orders/${orderId}`;
    expect((await post(here, t.buyer, { intent: "cancel", orderId: String(orderId), reason: "" })).status).toBe(303);
    expect(await order(orderId)).toMatchObject({ cancel_requested_by: t.buyer.id });
    expect((await post(here, t.seller, { intent: "decline_cancel", orderId: String(orderId) })).status).toBe(303);
    expect(await order(orderId)).toMatchObject({ status: "in_progress", cancel_requested_by: null });
    expect(text(await page(here, t.buyer))).toContain("Seller declined the cancel request");
    expect((await post(here, t.seller, { intent: "cancel", orderId: String(orderId), reason: "" })).status).toBe(303);
    expect((await post(here, t.seller, { intent: "decline_cancel", orderId: String(orderId) })).status).toBe(303);
    expect(await order(orderId)).toMatchObject({ cancel_requested_by: null });
    expect(text(await page(here, t.seller))).toContain("Seller withdrew the cancel request");
    // Nothing to decline now: 409.
    const res = await post(here, t.buyer, { intent: "decline_cancel", orderId: String(orderId) });
    expect(res.status).toBe(409);
    expect(messages(visible(await res.text()), "order-errors")).toEqual(["There is no cancel request on this order."]);
  });

  it("opens a dispute with a reason, after which only an admin decides", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const here = `/orders/${orderId}`;
    let res = await post(here, t.buyer, { intent: "dispute", orderId: String(orderId), reason: "" });
    expect(res.status).toBe(400);
    const html400 = visible(await res.text());
    expect(messages(html400, "dispute-form-reason-error")).toEqual(["Tell us what went wrong"]);
    expect(await t.db("disputes").where({ order_id: orderId })).toEqual([]);

    res = await post(here, t.buyer, { intent: "dispute", orderId: String(orderId), reason: "No reply for a week" });
    expect(res.status).toBe(303);
    expect(await t.db("disputes").where({ order_id: orderId }).first()).toMatchObject({ status: "open", opened_by: t.buyer.id, reason: "No reply for a week" });
    const html = await page(here, t.seller);
    expect(text(html)).toContain("This order is in dispute. The buyer opened it on");
    expect(text(html)).toContain("Dispute opened by buyer: No reply for a week");
    // The seller may still deliver; nothing else is offered, and a cancel posted anyway is a 409.
    expect(intents(html)).toEqual(["deliver"]);
    res = await post(here, t.seller, { intent: "cancel", orderId: String(orderId), reason: "" });
    expect(res.status).toBe(409);
    expect(messages(visible(await res.text()), "order-errors")).toEqual(["This order is in dispute: an admin will decide it, and both of you will be told."]);
    expect(await order(orderId)).toMatchObject({ status: "in_progress", cancel_requested_by: null });
  });

  it("tells the timers' steps in words: completed automatically, earnings cleared", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const form = new FormData();
    form.set("intent", "deliver");
    form.set("message", "Done");
    expect((await post(`/orders/${orderId}`, t.seller, form)).status).toBe(303);
    expect(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 4 * DAY_MS) })).toMatchObject({ ok: true });
    expect(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 19 * DAY_MS) })).toMatchObject({ ok: true });
    const html = await page(`/orders/${orderId}`, t.seller);
    expect(await order(orderId)).toMatchObject({ status: "completed" });
    expect(text(html)).toContain("Completed automatically after 3 days");
    expect(text(html)).toContain("Earnings cleared");
  });

  it("words the banner on the server in the reader's language and time zone, and sends none of its sentences to the browser", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Apio Studio" });
    const buyer = await createUser(t.db, { role: "client", name: "Wanjiru Achieng" });
    await t.db("users").where({ id: buyer.id }).update({ language: "sw" });
    await t.db("users").where({ id: seller.id }).update({ language: "lg", time_zone: "UTC" });
    for (const u of [seller, buyer]) tokens.set(u.id, await createSession(t.db, u.id));
    const gigId = (await createGig(t.db, { sellerId: seller.id, title: "Bango la duka", packages: { basic: { priceUgx: 100_000, deliveryDays: 3 } } })).id;
    const { orderId } = await paidTestOrder(t, buyer, gigId);
    expect((await deliverOrder(memberActor(seller), { orderId, message: "Bango, A3." }, opts(t))).ok).toBe(true);
    // Delivered at 22:30 UTC: 01:30 the next day in Kampala, so the two zones name different days.
    const deliveredAt = new Date(Date.now() - DAY_MS);
    deliveredAt.setUTCHours(22, 30, 0, 0);
    await t.db("orders").where({ id: orderId }).update({ delivered_at: deliveredAt });
    const autoAt = new Date(deliveredAt.getTime() + 3 * DAY_MS);
    // Dates as the app writes them in each language (its formatting is tested with app/utils/dates.ts).
    const day = (when: Date, zone: "EAT" | "UTC", lang: "lg" | "sw") => formatDay(when, zone, lang);
    const time = (when: Date, zone: "EAT" | "UTC", lang: "lg" | "sw") => `${formatTime(when, zone, lang)} ${zone}`;

    /** The banner's title, its lines, and its buttons (label and address). */
    const bannerOf = (html: string) => {
      const section = /<section class="order-banner[^"]*" aria-labelledby="order-banner-title">([\s\S]*?)<\/section>/.exec(html)![1]!;
      return {
        title: /<h2 id="order-banner-title">(.*?)<\/h2>/.exec(section)![1],
        lines: [...section.matchAll(/<p>(.*?)<\/p>/g)].map((m) => m[1]),
        buttons: [...section.matchAll(/<a [^>]*href="([^"]+)"[^>]*>(.*?)<\/a>/g)].map((m) => [m[2], m[1]]),
      };
    };
    const res = await get(`/orders/${orderId}`, buyer);
    const html = await res.text();
    expect(bannerOf(visible(html))).toEqual({
      title: "Imewasilishwa: kagua kazi",
      lines: [
        `Apio Studio aliwasilisha tarehe ${day(deliveredAt, "EAT", "sw")}. Uidhinishe ili kutoa malipo, au omba mabadiliko.`,
        `Litakamilika lenyewe ${day(autoAt, "EAT", "sw")} saa ${time(autoAt, "EAT", "sw")} usipoomba mabadiliko.`,
      ],
      buttons: [
        ["Idhinisha uwasilishaji…", `/orders/${orderId}?confirm=approve#approve`],
        ["Omba mabadiliko", "#revision"],
      ],
    });
    // The words the page loads are its other areas' only: the banner's sentences stay on the server.
    const refs = [...html.matchAll(/<script defer="" src="(\/words\/[^"]+)"/g)].map((m) => m[1]!);
    expect(refs.some((ref) => ref.startsWith("/words/sw/orders."))).toBe(true);
    for (const ref of refs) {
      expect(ref).not.toContain("orders.banner");
      expect(await (await fetch(`${server.baseUrl}${ref}`)).text()).not.toContain("orders.banner.");
    }

    // The seller reads it in Luganda, in UTC.
    expect(bannerOf(await page(`/orders/${orderId}`, seller))).toEqual({
      title: "Eweereddwayo: erindirira omuguzi",
      lines: [
        "Omuguzi akkiriza omulimu oba asaba enkyukakyuka.",
        `Bw'ataddamu, yeemaliriza yokka nga ${day(autoAt, "UTC", "lg")} ku ssaawa ${time(autoAt, "UTC", "lg")}, era musasulwa.`,
      ],
      buttons: [],
    });
  });

  it("refuses an unknown step with a 400", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const res = await post(`/orders/${orderId}`, t.buyer, { intent: "refund_me", orderId: String(orderId) });
    expect(res.status).toBe(400);
    expect(await order(orderId)).toMatchObject({ status: "in_progress" });
  });
});
