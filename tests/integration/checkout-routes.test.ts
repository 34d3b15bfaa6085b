/**
 * Checkout, the waiting page, the sandbox's phone prompt and the providers' callback, through the real built
 * server, as a browser without JavaScript uses them: what the checkout form shows and refuses, what one POST
 * stores (one order, one payment, the buyer's files) whatever else the form carries, who may see a payment
 * and answer its prompt, and that a callback only ever makes us ask the provider.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

// UGX 100,000 with the 5% buyer fee: UGX 105,000 to pay.
const PRICE_UGX = 100_000;
const TOTAL = "UGX 105,000";

/** The server has the file's QUEUE_PREFIX, so its sandbox is `t.sandbox`: what the "phone" shows is read there. */
const t = orderTestContext("checkout", {
  parties: {
    buyer: { name: "Checkout Buyer" },
    seller: { name: "Checkout Seller" },
    gig: {
      title: "A logo for your shop",
      packages: { basic: { priceUgx: PRICE_UGX, deliveryDays: 3, revisions: 2 }, standard: { priceUgx: 200_000, deliveryDays: 7 } },
    },
  },
});
let server: TestServer;
let noPayments: TestServer;
let uploadDir: string;
let other: TestUser;
const cookies: Record<string, string> = {};

beforeAll(async () => {
  other = await createUser(t.db, { name: "Checkout Other" });
  // The buyer's Billing number is an Airtel one (075…), so checkout guesses Airtel rather than the default.
  await t.db("users").where({ id: t.buyer.id }).update({ mobile_money_number: "+256752123456" });
  for (const [key, user] of Object.entries({ buyer: t.buyer, other, seller: t.seller })) cookies[key] = `soko_session=${await createSession(t.db, user.id)}`;
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-checkout-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, UPLOAD_DIR: uploadDir, PAYMENTS_SANDBOX: "1" });
  // Production with no provider configured and no sandbox: payments are unavailable.
  noPayments = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: `${t.queuePrefix}_off`, UPLOAD_DIR: uploadDir, PAYMENTS_SANDBOX: "0" });
});
afterAll(async () => {
  await Promise.all([server?.stop(), noPayments?.stop()]);
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Helpers

type Who = "buyer" | "other" | "seller" | "anonymous";

/** A request as a browser without JavaScript sends it: the member's cookie, our Origin on a form post, no redirects followed. */
function send(urlPath: string, { who = "buyer", body, on = server }: { who?: Who; body?: FormData | Record<string, string>; on?: TestServer } = {}) {
  const headers: Record<string, string> = {};
  if (who !== "anonymous") headers.Cookie = cookies[who]!;
  if (body) headers.Origin = on.baseUrl;
  return fetch(`${on.baseUrl}${urlPath}`, {
    method: body ? "POST" : "GET",
    redirect: "manual",
    headers,
    body: body instanceof FormData ? body : body ? new URLSearchParams(body) : undefined,
  });
}

/** What a person reads: the page without its scripts (which carry the loader data), entities decoded. */
function visible(html: string) {
  return html
    .replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")
    .replace(/<!-- -->/g, "")
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;|&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&amp;/g, "&")
    .replace(/\s+/g, " ");
}

const newKey = () => randomBytes(16).toString("base64url");

/** The checkout form as the page sends it (multipart), with the buyer's choices; `files` as the browser attaches them. */
function checkoutForm(fields: Record<string, string> = {}, files: { name: string; bytes: Buffer | string }[] = []) {
  const fd = new FormData();
  const values = {
    gigId: String(t.gigId),
    tier: "basic",
    requirements: "A green logo",
    msisdn: "+256 772 123 456",
    network: "mtn",
    checkoutKey: newKey(),
    ...fields,
  };
  for (const [k, v] of Object.entries(values)) fd.append(k, v);
  // A browser sends an empty file part when nothing is chosen.
  if (!files.length) fd.append("files", new File([], "", { type: "application/octet-stream" }));
  for (const f of files) fd.append("files", new File([typeof f.bytes === "string" ? f.bytes : new Uint8Array(f.bytes)], f.name));
  return fd;
}

/** The network radio the page has checked (without JavaScript, what will be sent). */
function checkedNetwork(html: string) {
  const checked = [...html.matchAll(/<input[^>]*name="network"[^>]*>/g)].map((m) => m[0]).filter((tag) => /\schecked=""/.test(tag));
  expect(checked).toHaveLength(1);
  return /value="([^"]*)"/.exec(checked[0]!)?.[1];
}

const checkoutPath = (tier = "basic") => `/gig/${t.gigId}/order?package=${tier}`;

/** Places an order through the form; answers its id and payment reference. */
async function checkout(fields: Record<string, string> = {}) {
  const res = await send(checkoutPath(), { body: checkoutForm(fields) });
  // A refusal names its reason in the failure.
  if (res.status !== 303) expect(visible(await res.text())).toBe(`a redirect, not ${res.status}`);
  const orderId = Number(/^\/orders\/(\d+)\/pay$/.exec(res.headers.get("location") ?? "")?.[1]);
  expect(orderId).toBeGreaterThan(0);
  const payment = await t.db("payments").where({ order_id: orderId }).first();
  return { orderId, reference: String(payment.reference), location: res.headers.get("location")! };
}

const orderRow = (id: number) => t.db("orders").where({ id }).first();
const paymentRow = (orderId: number) => t.db("payments").where({ order_id: orderId }).first();
const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);

async function payPage(orderId: number, who: Who = "buyer") {
  const res = await send(`/orders/${orderId}/pay`, { who });
  return { status: res.status, html: await res.text() };
}

/** A provider's callback: from its server, so no cookie and no Origin. */
function callback(provider: string, body: string, method = "POST") {
  return fetch(`${server.baseUrl}/payments/callback/${provider}`, {
    method,
    headers: { "Content-Type": "application/json" },
    body: method === "GET" ? undefined : body,
  });
}

const METER_REFRESH = /<meta http-equiv="refresh" content="5"\/?>/;

// ---------------------------------------------------------------------------------------------------------

describe("the checkout form", () => {
  it("shows the package, the fee with its rule and the total, and prefills the Billing number with its network", async () => {
    const res = await send(checkoutPath());
    expect(res.status).toBe(200);
    const html = await res.text();
    const text = visible(html);
    expect(text).toContain("A logo for your shop");
    expect(text).toContain("Checkout Seller");
    expect(text).toContain("Package Basic · 3 days delivery · 2 revisions");
    expect(text).toMatch(/Price UGX 100,000/);
    expect(text).toMatch(/Processing fee \(5%, at least UGX 1,000\) UGX 5,000/);
    expect(text).toMatch(/Total UGX 105,000/);
    expect(text).toContain(`Pay ${TOTAL}`);
    expect(html).toMatch(/<input[^>]*name="msisdn"[^>]*value="\+256752123456"/);
    expect(checkedNetwork(html)).toBe("airtel");
    expect(html).toMatch(/<input type="hidden" name="checkoutKey" value="[A-Za-z0-9_-]{22}"/);
    expect(html).toMatch(/<input[^>]*type="file"[^>]*multiple/);
    expect(html).toMatch(/<form[^>]*enctype="multipart\/form-data"/i);
  });

  it("defaults to MTN for a member with no Billing number, and asks anonymous visitors to sign in", async () => {
    const html = await (await send(checkoutPath(), { who: "other" })).text();
    expect(checkedNetwork(html)).toBe("mtn");
    expect(html).toMatch(/<input[^>]*name="msisdn"[^>]*value=""/);
    const anonymous = await send(checkoutPath(), { who: "anonymous" });
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
  });

  it("refuses the seller's own gig with a clear message, and places nothing when they post anyway", async () => {
    const res = await send(checkoutPath(), { who: "seller" });
    expect(res.status).toBe(403);
    const text = visible(await res.text());
    expect(text).toContain("You cannot order your own gig.");
    expect(text).not.toContain("Pay UGX");
    const before = await count("orders");
    const post = await send(checkoutPath(), { who: "seller", body: checkoutForm() });
    expect(post.status).toBe(403);
    expect(visible(await post.text())).toContain("You cannot order your own gig.");
    expect(await count("orders")).toBe(before);
  });

  it("answers 404 for a gig that is not published", async () => {
    const draft = await createGig(t.db, { sellerId: t.seller.id, status: "draft" });
    expect((await send(`/gig/${draft.id}/order?package=basic`)).status).toBe(404);
    expect((await send(`/gig/${draft.id}/order`, { body: checkoutForm({ gigId: String(draft.id) }) })).status).toBe(404);
  });

  it("says payments are unavailable and shows no form when no provider can take them; a POST is refused with 409", async () => {
    const res = await send(checkoutPath(), { on: noPayments });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(visible(html)).toContain("Paying for orders is not available right now");
    expect(html).not.toContain('name="checkoutKey"');
    const before = await count("orders");
    const post = await send(checkoutPath(), { on: noPayments, body: checkoutForm() });
    expect(post.status).toBe(409);
    expect(visible(await post.text())).toContain("Paying for orders is not available right now");
    expect(await count("orders")).toBe(before);
  });
});

describe("placing an order", () => {
  it("stores one order and one pending payment at the package's price, whatever price the form carries, and sends the phone a prompt", async () => {
    const before = await count("orders");
    const { orderId, reference, location } = await checkout({ priceUgx: "1", amountUgx: "1", totalUgx: "1", buyerFeeUgx: "0" });
    expect(location).toBe(`/orders/${orderId}/pay`);
    expect(await count("orders")).toBe(before + 1);
    const order = await orderRow(orderId);
    expect(order).toMatchObject({
      buyer_id: t.buyer.id,
      seller_id: t.seller.id,
      gig_id: t.gigId,
      tier: "basic",
      status: "pending_payment",
      requirements: "A green logo",
    });
    expect(Number(order.price_ugx)).toBe(PRICE_UGX);
    expect(Number(order.buyer_fee_ugx)).toBe(5_000);
    const payment = await paymentRow(orderId);
    expect(payment).toMatchObject({ status: "pending", provider: "sandbox", network: "mtn", msisdn: "+256772123456" });
    expect(Number(payment.amount_ugx)).toBe(105_000);
    expect(await t.sandbox.get(reference)).toMatchObject({ kind: "collection", status: "PENDING", amountUgx: 105_000 });
  });

  it("places one order for the same form sent twice (same checkout key), and both land on its payment page", async () => {
    const key = newKey();
    const before = await count("orders");
    const first = await send(checkoutPath(), { body: checkoutForm({ checkoutKey: key }) });
    const second = await send(checkoutPath(), { body: checkoutForm({ checkoutKey: key }) });
    expect(first.status).toBe(303);
    expect(second.status).toBe(303);
    expect(second.headers.get("location")).toBe(first.headers.get("location"));
    expect(await count("orders")).toBe(before + 1);
    const orderId = Number(/\/orders\/(\d+)\/pay/.exec(first.headers.get("location")!)![1]);
    expect(await count("payments", { order_id: orderId })).toBe(1);
  });

  it("refuses a number that is not a Ugandan mobile number with the message beside it, and stores nothing", async () => {
    const before = await count("orders");
    const res = await send(checkoutPath(), { body: checkoutForm({ msisdn: "+254712345678" }) });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(visible(html)).toContain("Enter a Ugandan mobile number in the format +256 7XX XXXXXX");
    // The form comes back as typed, with the field marked.
    expect(html).toMatch(/<input[^>]*name="msisdn"[^>]*aria-invalid="true"/);
    expect(visible(html)).toContain("A green logo");
    expect(await count("orders")).toBe(before);
  });

  it("stores a file attached at checkout with the order", async () => {
    const pdf = "%PDF-1.4\n% a brief\n";
    const res = await send(checkoutPath(), { body: checkoutForm({}, [{ name: "brief.pdf", bytes: pdf }]) });
    expect(res.status).toBe(303);
    const orderId = Number(/\/orders\/(\d+)\/pay/.exec(res.headers.get("location")!)![1]);
    const files = await t.db("order_files").where({ order_id: orderId });
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ file_name: "brief.pdf", content_type: "application/pdf", uploader_id: t.buyer.id, delivery_id: null });
    expect(fs.readFileSync(path.join(uploadDir, "order-files", files[0].storage_key), "utf8")).toBe(pdf);
  });

  it("refuses a program (MZ…) beside the files field, and stores neither the order nor any file", async () => {
    const before = { orders: await count("orders"), files: await count("order_files") };
    const onDisk = () => (fs.existsSync(path.join(uploadDir, "order-files")) ? fs.readdirSync(path.join(uploadDir, "order-files")).length : 0);
    const disk = onDisk();
    const exe = Buffer.from([0x4d, 0x5a, 0x90, 0x00, 0x03, 0x00, 0x00, 0x00, 0x04, 0x00]);
    const res = await send(checkoutPath(), {
      body: checkoutForm({}, [
        { name: "notes.txt", bytes: "Plain notes" },
        { name: "setup.exe", bytes: exe },
      ]),
    });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(visible(html)).toContain("setup.exe is not a file we accept");
    expect(html).toMatch(/<ul id="files-error"/);
    expect(await count("orders")).toBe(before.orders);
    expect(await count("order_files")).toBe(before.files);
    expect(onDisk()).toBe(disk);
  });
});

describe("the waiting page", () => {
  it("shows the number being asked and reloads itself while the payment is pending", async () => {
    const { orderId, reference } = await checkout();
    const { status, html } = await payPage(orderId);
    expect(status).toBe(200);
    const text = visible(html);
    expect(text).toContain(`ORD-${String(orderId).padStart(6, "0")}`);
    expect(text).toContain("A logo for your shop");
    expect(text).toContain(`Approve the payment of ${TOTAL} on your phone +256 772 123 456 (MTN Mobile Money)`);
    expect(text).toContain("Waiting for your phone…");
    expect(html).toMatch(METER_REFRESH);
    // The sandbox is in use: its prompt is linked, clearly marked.
    expect(text).toContain("Sandbox: no real money moves.");
    expect(html).toContain(`href="/dev/pay/${reference}"`);
    // The page asked the sandbox (still pending) and pushed the next ask back.
    const payment = await paymentRow(orderId);
    expect(payment.status).toBe("pending");
    expect(payment.polls).toBe(1);
    expect(new Date(payment.next_poll_at).getTime()).toBeGreaterThan(Date.now());
    // A reload at once does not ask the provider again.
    await payPage(orderId);
    expect((await paymentRow(orderId)).polls).toBe(1);
  });

  it("is 404 for another member, the order's seller and any id that is not an order", async () => {
    const { orderId } = await checkout();
    expect((await payPage(orderId, "other")).status).toBe(404);
    expect((await payPage(orderId, "seller")).status).toBe(404);
    expect((await payPage(999_999)).status).toBe(404);
    expect((await send(`/orders/${orderId}/pay`, { who: "other", body: { intent: "cancel" } })).status).toBe(404);
    expect((await orderRow(orderId)).status).toBe("pending_payment");
  });

  it("cancels an order still waiting for its payment, and lands on the cancelled orders", async () => {
    const { orderId } = await checkout();
    const res = await send(`/orders/${orderId}/pay`, { body: { intent: "cancel" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/orders?tab=cancelled");
    expect((await orderRow(orderId)).status).toBe("cancelled");
    const { html } = await payPage(orderId);
    expect(visible(html)).toContain("The payment did not go through: you cancelled this order before approving the payment.");
    expect(html).not.toMatch(METER_REFRESH);
  });

  it("gives up an order unpaid after 30 minutes when it is next looked at, and says so", async () => {
    const { orderId } = await checkout();
    await t
      .db("orders")
      .where({ id: orderId })
      .update({ created_at: new Date(Date.now() - 31 * 60 * 1000) });
    const { html } = await payPage(orderId);
    expect(visible(html)).toContain("The payment did not go through: Not paid within 30 minutes.");
    expect(html).not.toMatch(METER_REFRESH);
    expect((await orderRow(orderId)).status).toBe("cancelled");
  });
});

describe("the sandbox's phone prompt", () => {
  it("is 404 to anyone but the order's buyer, and their answer changes nothing", async () => {
    const { orderId, reference } = await checkout();
    for (const who of ["other", "seller"] as const) {
      expect((await send(`/dev/pay/${reference}`, { who })).status).toBe(404);
      expect((await send(`/dev/pay/${reference}`, { who, body: { intent: "approve" } })).status).toBe(404);
    }
    expect((await send(`/dev/pay/${randomBytes(16).toString("hex")}`)).status).toBe(404);
    expect(await t.sandbox.get(reference)).toMatchObject({ status: "PENDING" });
    expect((await orderRow(orderId)).status).toBe("pending_payment");
    // The sandbox is off on the other server: no prompt at all, even for the buyer.
    expect((await send(`/dev/pay/${reference}`, { on: noPayments })).status).toBe(404);
  });

  it("approved by the buyer: the order is paid and in progress, and the waiting page says so", async () => {
    const { orderId, reference } = await checkout();
    const prompt = await send(`/dev/pay/${reference}`);
    expect(prompt.status).toBe(200);
    expect(visible(await prompt.text())).toContain(`Pay ${TOTAL} to Soko for order ORD-${String(orderId).padStart(6, "0")}?`);
    const res = await send(`/dev/pay/${reference}`, { body: { intent: "approve" } });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/orders/${orderId}/pay`);
    expect((await orderRow(orderId)).status).toBe("in_progress");
    expect((await paymentRow(orderId)).status).toBe("successful");
    const { html } = await payPage(orderId);
    expect(visible(html)).toContain(`Paid. ${TOTAL} is held in escrow until you approve the delivery.`);
    expect(html).toContain(`href="/orders/${orderId}"`);
    expect(html).not.toMatch(METER_REFRESH);
    expect(visible(html)).not.toContain("Cancel this order");
  });

  it("declined by the buyer: the order is cancelled and the waiting page says the payment did not go through", async () => {
    const { orderId, reference } = await checkout();
    const res = await send(`/dev/pay/${reference}`, { body: { intent: "decline" } });
    expect(res.status).toBe(302);
    expect((await orderRow(orderId)).status).toBe("cancelled");
    expect((await paymentRow(orderId)).status).toBe("failed");
    const { html } = await payPage(orderId);
    expect(visible(html)).toContain("The payment did not go through: Declined on the phone.");
    expect(html).toContain(`href="/gig/${t.gigId}/order?package=basic"`);
    expect(html).not.toMatch(METER_REFRESH);
    // Answered once: approving afterwards changes nothing.
    await send(`/dev/pay/${reference}`, { body: { intent: "approve" } });
    expect((await orderRow(orderId)).status).toBe("cancelled");
  });
});

describe("the providers' callback", () => {
  it("asks the provider: a forged body saying 'paid' while the sandbox still waits changes nothing", async () => {
    const { orderId, reference } = await checkout();
    const res = await callback("sandbox", JSON.stringify({ reference, status: "SUCCESSFUL", amount: 105_000 }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect((await paymentRow(orderId)).status).toBe("pending");
    expect((await orderRow(orderId)).status).toBe("pending_payment");
  });

  it("settles a payment the provider says is paid, once however often it is replayed", async () => {
    const { orderId, reference } = await checkout();
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    for (let i = 0; i < 3; i++) {
      const res = await callback("sandbox", JSON.stringify({ reference }), i === 1 ? "PUT" : "POST");
      expect(res.status).toBe(200);
    }
    expect((await orderRow(orderId)).status).toBe("in_progress");
    expect(await count("ledger_journals", { order_id: orderId, kind: "payment_captured" })).toBe(1);
  });

  it("answers 400 for a body that is not JSON or names no payment, 404 for an unknown provider or reference, 405 for GET", async () => {
    expect((await callback("sandbox", "{not json")).status).toBe(400);
    expect((await callback("sandbox", JSON.stringify({ hello: "world" }))).status).toBe(400);
    expect((await callback("paypal", JSON.stringify({ reference: "x" }))).status).toBe(404);
    expect((await callback("sandbox", JSON.stringify({ reference: "8d3a3f5e-0000-4000-8000-000000000000" }))).status).toBe(404);
    const get = await callback("sandbox", "", "GET");
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST, PUT");
  });
});
