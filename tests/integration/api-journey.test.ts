/**
 * The whole marketplace through the JSON API alone (ADR 041), as a phone app would use it: a freelancer and a
 * client who never open a page register, the freelancer publishes a gig with an image, the client orders and pays
 * on the sandbox's "phone", they chat over socket.io with their tokens, the freelancer delivers a file, the client
 * approves and reviews, and once the earnings have cleared the freelancer withdraws them. Then an admin suspends
 * the client through the API, and the client's token stops working. Each answer is checked against the document.
 * The only steps not made through the API are the ones nobody makes through it: the sandbox "phone" approving the
 * payment, and the worker's clock passing the 14 days of clearance and the payout number's 24-hour hold.
 */
import { randomUUID } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { io as connect, type Socket } from "socket.io-client";
import { runOrderTimers } from "~/operations/orders.server";
import { systemActor } from "~/operations/core.server";
import { apiClient, createAppToken } from "../support/api";
import { createUser } from "../support/factories";
import { orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("apijourney");
let server: TestServer;
let api: ReturnType<typeof apiClient>;
const sockets: Socket[] = [];

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1", TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
});
afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await server?.stop();
});

const phone = { "X-Forwarded-For": "41.210.140.7" };
const laptop = { "X-Forwarded-For": "41.210.140.8" };
const as = (token: string, body?: unknown, headers: Record<string, string> = phone) => ({ token, body, headers });

function socketOf(token: string): Promise<Socket> {
  const socket = connect(server.baseUrl, { transports: ["websocket"], reconnection: false, forceNew: true, auth: { token } });
  sockets.push(socket);
  return new Promise((resolve, reject) => {
    socket.once("connect", () => resolve(socket));
    socket.once("connect_error", reject);
  });
}

const emit = (socket: Socket, event: string, payload: unknown) =>
  new Promise<{ ok: boolean; [key: string]: unknown }>((resolve) => socket.emit(event, payload, resolve));

async function multipart(token: string, path: string, name: string, type: string, bytes: Buffer) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)], { type }), name);
  return api.call("post", path, path, { token, raw: form, headers: phone });
}

describe("a client and a freelancer who never open a page", () => {
  it("do the whole journey through the API, and an admin's suspension ends the client's token", async () => {
    // Both join from their phones.
    const joined = await api.call("post", "/auth/register", "/auth/register", {
      headers: phone,
      body: { name: "Nansubuga Designs", email: "nansubuga@example.ug", password: "kampala-logo-1", role: "freelancer", platform: "android" },
    });
    expect(joined.status).toBe(201);
    const seller: string = joined.body.data.token;
    const client = await api.call("post", "/auth/register", "/auth/register", {
      headers: laptop,
      body: { name: "Okello Shop", email: "okello@example.ug", password: "gulu-market-2", role: "client", platform: "ios" },
    });
    expect(client.status).toBe(201);
    const buyer: string = client.body.data.token;

    // A seller publishes once their email is verified (ADR 051): the token of the link mailed at joining.
    const mail = await t.db("outbox").where({ to_address: "nansubuga@example.ug" }).orderBy("id", "desc").first("body");
    const verifyToken = /[?&]token=([A-Za-z0-9_-]+)/.exec(String(mail?.body))?.[1];
    expect(verifyToken).toBeTruthy();
    const verified = await api.call("post", "/auth/verify-email", "/auth/verify-email", { body: { token: verifyToken }, headers: phone });
    expect(verified.status).toBe(200);

    // The freelancer uploads an image and publishes a gig with it.
    const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: "#0a7" } })
      .png()
      .toBuffer();
    const image = await multipart(seller, "/upload/image", "cover.png", "image/png", png);
    expect(image.status).toBe(201);
    const categories = await api.call("get", "/categories", "/categories", as(seller));
    const category = categories.body.data.items[0].slug;
    const created = await api.call(
      "post",
      "/gigs",
      "/gigs",
      as(seller, {
        title: "I will design a bold logo for your shop",
        category,
        description: "A logo for a shop in Kampala or anywhere: three ideas, then the one you like, ready for signs and phones.",
        tags: ["logo", "branding"],
        packages: { basic: { priceUgx: 150000, deliveryDays: 3, revisions: 1 } },
        images: [image.body.data.key],
        publish: true,
      }),
    );
    expect(created.status).toBe(201);
    const gigId: number = created.body.data.id;
    const gig = await api.call("get", "/gigs/{id}", `/gigs/${gigId}`, as(buyer, undefined, laptop));
    expect(gig.status).toBe(200);
    expect(gig.body.data.title).toBe("I will design a bold logo for your shop");
    expect(gig.body.data.images.length).toBe(1);

    // The client orders and pays on the phone; the provider's callback settles the payment.
    const placed = await api.call(
      "post",
      "/orders",
      "/orders",
      as(
        buyer,
        { gigId, tier: "basic", requirements: "Green and gold, the shop is called Okello Traders", phone: "0772123456", network: "mtn" },
        {
          ...laptop,
          "Idempotency-Key": `order-${randomUUID()}`,
        },
      ),
    );
    expect(placed.status).toBe(201);
    const orderId: number = placed.body.data.id;
    const reference: string = placed.body.data.payment.reference;
    expect(await t.sandbox.decide(reference, "approve")).toBe(true);
    const callback = await fetch(`${server.baseUrl}/payments/callback/sandbox`, {
      method: "POST",
      headers: { "Content-Type": "application/json", ...laptop },
      body: JSON.stringify({ reference }),
    });
    expect(callback.status).toBe(200);
    const paid = await api.call("get", "/orders/{id}", `/orders/${orderId}`, as(seller));
    expect(paid.body.data.status).toBe("in_progress");

    // They talk over socket.io with their tokens: the client asks, the freelancer's socket hears it.
    const [sellerSocket, buyerSocket] = await Promise.all([socketOf(seller), socketOf(buyer)]);
    const started = await api.call("post", "/messages/conversations", "/messages/conversations", as(buyer, { orderId }, laptop));
    expect(started.status).toBe(201);
    const conversationId: string = started.body.data.id ?? started.body.data.conversation?.id;
    const heard = new Promise<{ message: { body: string } }>((resolve) => sellerSocket.once("new_message", resolve));
    const sent = await emit(buyerSocket, "send_message", { conversationId, body: "Can the gold be darker?", clientId: randomUUID() });
    expect(sent.ok).toBe(true);
    expect((await heard).message.body).toBe("Can the gold be darker?");

    // The freelancer delivers a file; the client approves and reviews.
    const pdf = Buffer.from("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n");
    const doc = await multipart(seller, "/upload/document", "okello-logo.pdf", "application/pdf", pdf);
    expect(doc.status).toBe(201);
    const delivered = await api.call(
      "patch",
      "/orders/{id}/status",
      `/orders/${orderId}/status`,
      as(seller, { status: "delivered", message: "Here is your logo, with a darker gold.", files: [doc.body.data.key] }),
    );
    expect(delivered.status).toBe(200);
    expect(await t.db("order_files").where({ order_id: orderId }).pluck("file_name")).toContain("okello-logo.pdf");
    // The client's app downloads the delivered file with its token.
    const order = await api.call("get", "/orders/{id}", `/orders/${orderId}`, as(buyer, undefined, laptop));
    const deliveredFile = order.body.data.deliveries[0].files[0];
    expect(deliveredFile.fileName).toBe("okello-logo.pdf");
    const download = await fetch(`${server.baseUrl}/api/v1/orders/${orderId}/files/${deliveredFile.id}`, {
      headers: { Authorization: `Bearer ${buyer}`, ...laptop },
    });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(pdf);
    const stranger = await createAppToken(t.db, (await createUser(t.db)).id);
    const notTheirs = await api.call("get", "/orders/{id}/files/{fileId}", `/orders/${orderId}/files/${deliveredFile.id}`, as(stranger));
    expect(notTheirs.status).toBe(404);
    const approved = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as(buyer, { status: "completed" }, laptop));
    expect(approved.status).toBe(200);
    const review = await api.call("post", "/reviews", "/reviews", as(buyer, { orderId, rating: 5, comment: "Quick and exactly what I asked for." }, laptop));
    expect(review.status).toBe(201);
    const reviews = await api.call("get", "/reviews/gig/{id}", `/reviews/gig/${gigId}`, as(seller));
    expect(reviews.body.data.items.map((r: { rating: number }) => r.rating)).toEqual([5]);

    // Fifteen days on (the worker's clearance timer), the freelancer sets a payout number, waits out its hold, withdraws.
    const cleared = await runOrderTimers(systemActor("order-timers"), { db: t.db, providers: t.providers, now: () => new Date(Date.now() + 15 * 86_400_000) });
    expect(cleared).toMatchObject({ ok: true, value: { cleared: 1 } });
    const balance = await api.call("get", "/balance", "/balance", as(seller));
    expect(balance.body.data.available.ugx).toBe(120000);
    const number = await api.call(
      "put",
      "/payouts/number",
      "/payouts/number",
      as(seller, { mobileMoneyNumber: "+256772987654", currentPassword: "kampala-logo-1" }),
    );
    expect(number.status).toBe(200);
    expect(number.body.data).toMatchObject({ changed: false, heldUntil: null, codeSentTo: "****7654" });
    // The code texted to the number (the SMS sandbox keeps it) comes back: the number is set, held a day.
    const sms = await t.db("sms_messages").where({ to_number: "+256772987654", purpose: "verification" }).orderBy("id", "desc").first("body");
    const wrongCode = await api.call("post", "/payouts/number/confirm", "/payouts/number/confirm", as(seller, { code: "12345" }));
    expect(wrongCode.status).toBe(400);
    const confirmed = await api.call(
      "post",
      "/payouts/number/confirm",
      "/payouts/number/confirm",
      as(seller, { code: /code is (\d{6})/.exec(sms?.body ?? "")?.[1] ?? "none" }),
    );
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.data).toMatchObject({ number: "****7654", heldUntil: expect.any(String) });
    await t
      .db("users")
      .where({ email: "nansubuga@example.ug" })
      .update({ payout_number_set_at: t.db.raw("now() - interval '2 days'") });
    const withdrawn = await api.call(
      "post",
      "/payouts",
      "/payouts",
      as(seller, { amountUgx: 120000 }, { ...phone, "Idempotency-Key": `payout-${randomUUID()}` }),
    );
    expect(withdrawn.status).toBe(201);
    expect(withdrawn.body.data).toMatchObject({ kind: "withdrawal", amount: { ugx: 120000 }, status: "in_transit" });
    const after = await api.call("get", "/balance", "/balance", as(seller));
    expect(after.body.data.available.ugx).toBe(0);

    // An admin suspends the client through the API: the client's token and socket stop working.
    const admin = await createUser(t.db, { role: "admin", email: "admin@example.ug" });
    const adminToken = await createAppToken(t.db, admin.id, { admin: true });
    const buyerId: number = client.body.data.user.id;
    const closed = new Promise<void>((resolve) => buyerSocket.once("disconnect", () => resolve()));
    const suspended = await api.call(
      "patch",
      "/admin/users/{id}/suspend",
      `/admin/users/${buyerId}/suspend`,
      as(adminToken, undefined, { "X-Forwarded-For": "41.210.140.9" }),
    );
    expect(suspended.status).toBe(200);
    await closed;
    const refused = await api.call("get", "/orders", "/orders", as(buyer, undefined, laptop));
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("token.invalid");
    expect(
      await t
        .db("admin_audit_log")
        .where({ action: "user.suspend", target_id: String(buyerId) })
        .count({ n: "*" })
        .first(),
    ).toEqual({ n: 1 });
  });
});
