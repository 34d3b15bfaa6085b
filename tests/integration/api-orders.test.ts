/**
 * The JSON API's Orders calls (ADR 041), against the built server with the sandbox provider: an order placed,
 * paid on the sandbox's "phone", delivered and approved through the API; each call's bad input (400 beside the
 * field, nothing written), another member's order (404, unchanged), steps the state machine refuses (409), an
 * Idempotency-Key that places one order however often it is sent, and the answers' Money and ISO shapes, each
 * answer checked against the OpenAPI document.
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { recordUploadedFiles } from "~/models/uploaded-file.server";
import { createAppToken, apiClient } from "../support/api";
import { createUser, type TestUser } from "../support/factories";
import { eventKinds, orderRow, rowCount } from "../support/order-checks";
import { createParties, paidTestOrder, orderTestContext, placeTestOrder, type Parties } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { words } from "../support/words";

/** The seller's gig: a Basic package at UGX 100,000 in 3 days with 1 revision; the buyer pays 105,000. */
const t = orderTestContext("apiorders", { parties: { seller: { name: "Api Seller" }, buyer: { name: "Api Buyer" } } });
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let other: TestUser;
const tokens = { buyer: "", seller: "", other: "" };

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1", TRUST_PROXY: "loopback" });
  api = apiClient(server.baseUrl);
  other = await createUser(t.db, { name: "Api Stranger", role: "client" });
  tokens.buyer = await createAppToken(t.db, t.buyer.id);
  tokens.seller = await createAppToken(t.db, t.seller.id);
  tokens.other = await createAppToken(t.db, other.id);
});
afterAll(async () => {
  await server?.stop();
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
beforeEach(() => void address++);
const from = () => ({ "X-Forwarded-For": `198.51.100.${address}` });

const as = (who: keyof typeof tokens, body?: unknown, headers: Record<string, string> = {}) => ({
  token: tokens[who],
  body,
  headers: { ...from(), ...headers },
});

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const count = (table: string, where: Record<string, unknown> = {}) => rowCount(t.db(table).where(where));

/** An upload of the member's waiting to be used, as POST /upload/document leaves it. */
async function upload(userId: number, fileName = "brief.pdf") {
  const storageKey = randomUUID();
  await recordUploadedFiles(t.db, userId, [{ storageKey, fileName, contentType: "application/pdf", sizeBytes: 1234 }]);
  return storageKey;
}

const placeBody = (extra: Record<string, unknown> = {}) => ({
  gigId: t.gigId,
  tier: "basic",
  requirements: "A green logo for my shop",
  phone: "0772 123 456",
  network: "mtn",
  ...extra,
});

/** The sandbox's "phone" approves the payment and the provider's callback arrives: the order is paid. */
async function payOnPhone(reference: string) {
  expect(await t.sandbox.decide(reference, "approve")).toBe(true);
  const res = await fetch(`${server.baseUrl}/payments/callback/sandbox`, {
    method: "POST",
    headers: { "Content-Type": "application/json", ...from() },
    body: JSON.stringify({ reference }),
  });
  expect(res.status).toBe(200);
}

describe("the whole order through the API", () => {
  it("places, pays on the phone, delivers and approves; the seller's pending balance gets the earnings", async () => {
    const key = await upload(t.buyer.id);
    const placed = await api.call("post", "/orders", "/orders", as("buyer", placeBody({ files: [key] }), { "Idempotency-Key": `place-${randomUUID()}` }));
    expect(placed.status).toBe(201);
    const order = placed.body.data;
    expect(order).toMatchObject({
      role: "buyer",
      status: "pending_payment",
      gig: { id: t.gigId },
      package: { tier: "basic" },
      otherParty: { id: t.seller.id, name: "Api Seller" },
      price: { ugx: 100_000, usd: 27.03 },
      money: { price: { ugx: 100_000 }, fee: { ugx: 5_000 }, net: { ugx: 105_000, usd: 28.38 } },
      dueAt: null,
      payment: { status: "pending", network: "mtn", amount: { ugx: 105_000 } },
      requirementFiles: [{ fileName: "brief.pdf", contentType: "application/pdf", sizeBytes: 1234 }],
    });
    expect(order.number).toBe(`ORD-${String(order.id).padStart(6, "0")}`);
    expect(order.createdAt).toMatch(ISO);
    expect(order.actions).toEqual(expect.arrayContaining(["pay", "abandon"]));
    expect(JSON.stringify(order)).not.toContain(t.seller.email);
    // The upload is the order's now, and can be used no more.
    expect(await count("uploaded_files", { storage_key: key })).toBe(0);
    expect(await count("order_files", { order_id: order.id, storage_key: key })).toBe(1);
    expect((await t.db("payments").where({ order_id: order.id }).first()).msisdn).toBe("+256772123456");

    // The seller meets the order only once it is paid.
    expect((await api.call("get", "/orders/{id}", `/orders/${order.id}`, as("seller"))).status).toBe(404);

    await payOnPhone(order.payment.reference);
    const paid = await api.call("get", "/orders/{id}", `/orders/${order.id}`, as("buyer"));
    expect(paid.body.data).toMatchObject({ status: "in_progress", payment: { status: "successful" } });
    expect(paid.body.data.paidAt).toMatch(ISO);
    expect(paid.body.data.dueAt).toMatch(ISO);

    const seen = await api.call("get", "/orders/{id}", `/orders/${order.id}`, as("seller"));
    expect(seen.status).toBe(200);
    expect(seen.body.data).toMatchObject({
      role: "seller",
      payment: null,
      money: { fee: { ugx: 20_000 }, net: { ugx: 80_000 } },
      actions: expect.arrayContaining(["deliver"]),
    });

    const deliveryFile = await upload(t.seller.id, "logo.pdf");
    const delivered = await api.call(
      "patch",
      "/orders/{id}/status",
      `/orders/${order.id}/status`,
      as("seller", { status: "delivered", message: "Here is your logo", files: [deliveryFile] }),
    );
    expect(delivered.status).toBe(200);
    expect(delivered.body.data).toMatchObject({ status: "delivered", deliveries: [{ message: "Here is your logo", files: [{ fileName: "logo.pdf" }] }] });
    expect(delivered.body.data.deliveredAt).toMatch(ISO);

    const approved = await api.call("patch", "/orders/{id}/status", `/orders/${order.id}/status`, as("buyer", { status: "completed" }));
    expect(approved.status).toBe(200);
    expect(approved.body.data.status).toBe("completed");
    expect(approved.body.data.completedAt).toMatch(ISO);
    expect(approved.body.data.timeline.map((e: { kind: string }) => e.kind)).toEqual(["placed", "paid", "delivered", "approved"]);
    for (const e of approved.body.data.timeline) expect(e.at).toMatch(ISO);
    expect(await eventKinds(t.db, order.id)).toEqual(["placed", "paid", "delivered", "approved"]);

    const balance = await api.call("get", "/balance", "/balance", as("seller"));
    expect(balance.body.data.pendingClearance).toEqual({ ugx: 80_000, usd: 21.62 });
  });
});

describe("POST /orders", () => {
  it("refuses bad fields beside each, and writes nothing", async () => {
    const before = await count("orders");
    const answer = await api.call(
      "post",
      "/orders",
      "/orders",
      as("buyer", { ...placeBody({ phone: "12345", network: "visa", tier: "gold", files: ["a", "b", "c", "d", "e", "f"] }), price: 1 }),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("request.invalid");
    expect(Object.keys(answer.body.issues).sort()).toEqual(["files", "form", "network", "phone", "tier"]);
    expect(answer.body.issues.form[0].message).toMatch(/price/);
    const missing = await api.call("post", "/orders", "/orders", as("buyer", {}));
    expect(Object.keys(missing.body.issues).sort()).toEqual(["gigId", "network", "phone", "tier"]);
    expect(await count("orders")).toBe(before);
  });

  it("refuses another member's upload beside `files`: no order, and the upload stays theirs", async () => {
    const before = await count("orders");
    const theirs = await upload(other.id);
    const answer = await api.call("post", "/orders", "/orders", as("buyer", placeBody({ files: [theirs] })));
    expect(answer.status).toBe(400);
    expect(answer.body.issues.files[0].code).toBe("order.upload_unknown");
    expect(await count("orders")).toBe(before);
    expect(await count("uploaded_files", { storage_key: theirs, user_id: other.id })).toBe(1);
  });

  it("answers 404 for a gig that does not exist and 403 for one's own gig", async () => {
    const missing = await api.call("post", "/orders", "/orders", as("buyer", placeBody({ gigId: 999_999 })));
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe("gig.not_found");
    const own = await api.call("post", "/orders", "/orders", as("seller", placeBody()));
    expect(own.status).toBe(403);
    expect(own.body.code).toBe("order.own_gig");
  });

  it("places one order however often the same Idempotency-Key is sent", async () => {
    const buyer = await createUser(t.db, { role: "client" });
    const token = await createAppToken(t.db, buyer.id);
    const key = `idem-${randomUUID()}`;
    const send = (body: unknown) => api.call("post", "/orders", "/orders", { token, body, headers: { ...from(), "Idempotency-Key": key } });
    const first = await send(placeBody());
    expect(first.status).toBe(201);
    const again = await send(placeBody());
    expect(again.status).toBe(201);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(again.body.data.id).toBe(first.body.data.id);
    const changed = await send(placeBody({ requirements: "Something else" }));
    expect(changed.status).toBe(409);
    expect(changed.body.code).toBe("idempotency.key_reused");
    expect(await count("orders", { buyer_id: buyer.id })).toBe(1);
    expect(await count("payments", { order_id: first.body.data.id })).toBe(1);
    // Without the key, each call is a new order.
    await send(placeBody());
    const fresh = await api.call("post", "/orders", "/orders", { token, body: placeBody(), headers: from() });
    expect(fresh.status).toBe(201);
    expect(fresh.body.data.id).not.toBe(first.body.data.id);
    expect(await count("orders", { buyer_id: buyer.id })).toBe(2);
  });
});

describe("the same POST /orders twice at once", () => {
  it("with one Idempotency-Key places one order: the other answer is the same order, or 409 while the first runs", async () => {
    const buyer = await createUser(t.db, { role: "client" });
    const token = await createAppToken(t.db, buyer.id);
    const key = `twice-${randomUUID()}`;
    const send = () => api.call("post", "/orders", "/orders", { token, body: placeBody(), headers: { ...from(), "Idempotency-Key": key } });
    const answers = await Promise.all([send(), send(), send()]);
    const placed = answers.filter((a) => a.status === 201);
    expect(placed.length).toBeGreaterThanOrEqual(1);
    expect(new Set(placed.map((a) => a.body.data.id)).size).toBe(1);
    for (const other of answers.filter((a) => a.status !== 201)) {
      expect(other.status).toBe(409);
      expect(other.body.code).toBe("idempotency.in_progress");
    }
    expect(await count("orders", { buyer_id: buyer.id })).toBe(1);
    expect(await count("payments", { order_id: placed[0]!.body.data.id })).toBe(1);
  });
});

describe("GET /orders, /orders/buyer, /orders/seller", () => {
  let parties: Parties;
  let tokenOf: { buyer: string; seller: string };
  const ids: number[] = [];

  beforeAll(async () => {
    parties = await createParties(t.db, { seller: { name: "List Seller" }, buyer: { name: "List Buyer" } });
    tokenOf = { buyer: await createAppToken(t.db, parties.buyer.id), seller: await createAppToken(t.db, parties.seller.id) };
    // Two paid orders and one waiting for payment, placed by the buyer; and one the seller buys from the first seller.
    ids.push((await paidTestOrder(t, parties.buyer, parties.gigId)).orderId);
    ids.push((await paidTestOrder(t, parties.buyer, parties.gigId)).orderId);
    ids.push((await placeTestOrder(t, parties.buyer, parties.gigId)).orderId);
    ids.push((await paidTestOrder(t, parties.seller, t.gigId)).orderId);
  });

  it("lists both sides newest first, paged by cursor", async () => {
    const first = await api.call("get", "/orders", "/orders?limit=2", { token: tokenOf.seller, headers: from() });
    expect(first.status).toBe(200);
    expect(first.body.data.items.map((o: { id: number }) => o.id)).toEqual([ids[3], ids[1]]);
    expect(first.body.data.items[0]).toMatchObject({
      role: "buyer",
      otherParty: { id: t.seller.id },
      price: { ugx: 100_000, usd: 27.03 },
      status: "in_progress",
    });
    expect(first.body.data.items[1]).toMatchObject({ role: "seller", otherParty: { id: parties.buyer.id, name: "List Buyer" }, package: { tier: "basic" } });
    expect(first.body.data.items[1].dueAt).toMatch(ISO);
    const second = await api.call("get", "/orders", `/orders?limit=2&cursor=${first.body.data.nextCursor}`, { token: tokenOf.seller, headers: from() });
    // The unpaid order is not the seller's to see.
    expect(second.body.data).toEqual({ items: [expect.objectContaining({ id: ids[0] })], nextCursor: null });
  });

  it("splits the member's sides", async () => {
    const buying = await api.call("get", "/orders/buyer", "/orders/buyer", { token: tokenOf.seller, headers: from() });
    expect(buying.body.data.items.map((o: { id: number }) => o.id)).toEqual([ids[3]]);
    const selling = await api.call("get", "/orders/seller", "/orders/seller", { token: tokenOf.seller, headers: from() });
    expect(selling.body.data.items.map((o: { id: number }) => o.id)).toEqual([ids[1], ids[0]]);
    const bought = await api.call("get", "/orders/buyer", "/orders/buyer", { token: tokenOf.buyer, headers: from() });
    expect(bought.body.data.items.map((o: { id: number }) => o.id)).toEqual([ids[2], ids[1], ids[0]]);
    expect(bought.body.data.items[0]).toMatchObject({ status: "pending_payment", dueAt: null });
    const none = await api.call("get", "/orders/seller", "/orders/seller", { token: tokenOf.buyer, headers: from() });
    expect(none.body.data).toEqual({ items: [], nextCursor: null });
    const stranger = await api.call("get", "/orders", "/orders", as("other"));
    expect(stranger.body.data.items.filter((o: { id: number }) => ids.includes(o.id))).toEqual([]);
  });

  it("refuses a malformed cursor or limit beside the query field", async () => {
    const cursor = await api.call("get", "/orders", "/orders?cursor=abc", { token: tokenOf.buyer, headers: from() });
    expect(cursor.status).toBe(400);
    expect(Object.keys(cursor.body.issues)).toEqual(["query.cursor"]);
    const limit = await api.call("get", "/orders/buyer", "/orders/buyer?limit=0", { token: tokenOf.buyer, headers: from() });
    expect(limit.status).toBe(400);
    expect(Object.keys(limit.body.issues)).toEqual(["query.limit"]);
    const unsigned = await api.call("get", "/orders", "/orders", { headers: from() });
    expect(unsigned.status).toBe(401);
  });
});

describe("GET /orders/{id}", () => {
  it("asks the provider for the buyer while the payment is pending: an app polls it, as the waiting page does", async () => {
    const placed = await api.call("post", "/orders", "/orders", as("buyer", placeBody()));
    expect(placed.body.data.payment.status).toBe("pending");
    expect(await t.sandbox.decide(placed.body.data.payment.reference, "approve")).toBe(true);
    const read = await api.call("get", "/orders/{id}", `/orders/${placed.body.data.id}`, as("buyer"));
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ status: "in_progress", payment: { status: "successful" } });
  });

  it("is 404 to another member, with nothing of the order; a malformed id is 400", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const answer = await api.call("get", "/orders/{id}", `/orders/${orderId}`, as("other"));
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("order.not_found");
    expect(JSON.stringify(answer.body)).not.toContain("logo");
    const malformed = await api.call("get", "/orders/{id}", "/orders/abc", as("buyer"));
    expect(malformed.status).toBe(400);
    expect(Object.keys(malformed.body.issues)).toEqual(["path.id"]);
  });
});

describe("PATCH /orders/{id}/status", () => {
  it("refuses a step the state machine does not allow now with 409 and its code, changing nothing", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const early = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("buyer", { status: "completed" }));
    expect(early.status).toBe(409);
    expect(early.body.code).toBe("order.not_allowed_now");
    const buyerDelivers = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("buyer", { status: "delivered", message: "Me?" }));
    expect(buyerDelivers.status).toBe(409);
    expect((await orderRow(t.db, orderId)).status).toBe("in_progress");
    expect(await count("deliveries", { order_id: orderId })).toBe(0);
    // The one revision is used, then there is none left.
    await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("seller", { status: "delivered", message: "First try" }));
    const revision = await api.call(
      "patch",
      "/orders/{id}/status",
      `/orders/${orderId}/status`,
      as("buyer", { status: "revision_requested", reason: "Greener" }),
    );
    expect(revision.status).toBe(200);
    expect(revision.body.data).toMatchObject({ status: "in_progress", revisions: { allowed: 1, used: 1 } });
    await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("seller", { status: "delivered", message: "Second try" }));
    const more = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("buyer", { status: "revision_requested", reason: "Bluer" }));
    expect(more.status).toBe(409);
    expect(more.body.code).toBe("order.no_revisions_left");
    expect((await orderRow(t.db, orderId)).status).toBe("delivered");
  });

  it("refuses an unknown status, missing words and stray fields beside each, writing nothing", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const unknown = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("seller", { status: "shipped" }));
    expect(unknown.status).toBe(400);
    expect(Object.keys(unknown.body.issues)).toEqual(["status"]);
    const empty = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("seller", { status: "delivered", message: "   " }));
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body.issues)).toEqual(["message"]);
    const stray = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("buyer", { status: "completed", confirm: "release" }));
    expect(stray.status).toBe(400);
    const stolen = await upload(other.id);
    const file = await api.call(
      "patch",
      "/orders/{id}/status",
      `/orders/${orderId}/status`,
      as("seller", { status: "delivered", message: "Done", files: [stolen] }),
    );
    expect(file.status).toBe(400);
    expect(file.body.issues.files[0].code).toBe("order.upload_unknown");
    expect((await orderRow(t.db, orderId)).status).toBe("in_progress");
    expect(await count("deliveries", { order_id: orderId })).toBe(0);
    expect(await count("uploaded_files", { storage_key: stolen })).toBe(1);
  });

  it("is 404 for another member's order, which stays as it was", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const answer = await api.call("patch", "/orders/{id}/status", `/orders/${orderId}/status`, as("other", { status: "delivered", message: "Mine now" }));
    expect(answer.status).toBe(404);
    expect(answer.body.code).toBe("order.not_found");
    expect((await orderRow(t.db, orderId)).status).toBe("in_progress");
    expect(await eventKinds(t.db, orderId)).toEqual(["placed", "paid"]);
  });
});

describe("POST /orders/{id}/cancel and /cancel/decline", () => {
  it("gives up an unpaid order", async () => {
    const { orderId } = await placeTestOrder(t, t.buyer, t.gigId);
    const answer = await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("buyer", { expected: "abandon" }));
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({ outcome: "cancelled", order: { status: "cancelled" } });
    expect(answer.body.data.order.cancelledAt).toMatch(ISO);
  });

  it("asks; the seller declines; asked again, the seller agrees and the buyer is refunded", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const asked = await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("buyer", { reason: "Changed my mind" }));
    expect(asked.body.data).toMatchObject({ outcome: "requested", order: { status: "in_progress", cancelRequest: { byMe: true, reason: "Changed my mind" } } });
    const seen = await api.call("get", "/orders/{id}", `/orders/${orderId}`, as("seller"));
    expect(seen.body.data).toMatchObject({ cancelRequest: { byMe: false }, actions: expect.arrayContaining(["agree_cancel", "decline_cancel"]) });
    const declined = await api.call("post", "/orders/{id}/cancel/decline", `/orders/${orderId}/cancel/decline`, as("seller"));
    expect(declined.status).toBe(200);
    expect(declined.body.data.cancelRequest).toBeNull();
    const again = await api.call("post", "/orders/{id}/cancel/decline", `/orders/${orderId}/cancel/decline`, as("seller"));
    expect(again.status).toBe(409);
    expect(again.body.code).toBe("order.no_cancel_request");
    await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("buyer", {}));
    const agreed = await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("seller", { expected: "agree_cancel" }));
    expect(agreed.body.data).toMatchObject({ outcome: "cancelled", order: { status: "cancelled" } });
    expect(await count("payouts", { order_id: orderId, kind: "refund" })).toBe(1);
  });

  it("refuses a cancel of a kind the order no longer allows (409), long reasons (400), strangers (404)", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const wrongKind = await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("buyer", { expected: "abandon" }));
    expect(wrongKind.status).toBe(409);
    const long = await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("buyer", { reason: "x".repeat(2001) }));
    expect(long.status).toBe(400);
    expect(Object.keys(long.body.issues)).toEqual(["reason"]);
    const stranger = await api.call("post", "/orders/{id}/cancel", `/orders/${orderId}/cancel`, as("other", {}));
    expect(stranger.status).toBe(404);
    const strangerDecline = await api.call("post", "/orders/{id}/cancel/decline", `/orders/${orderId}/cancel/decline`, as("other"));
    expect(strangerDecline.status).toBe(404);
    expect(await orderRow(t.db, orderId)).toMatchObject({ status: "in_progress", cancelRequestedBy: null });
  });
});

describe("POST /orders/{id}/dispute", () => {
  it("opens a dispute once (201), then 409; a missing reason is 400 and a stranger 404", async () => {
    const { orderId } = await paidTestOrder(t, t.buyer, t.gigId);
    const empty = await api.call("post", "/orders/{id}/dispute", `/orders/${orderId}/dispute`, as("buyer", {}));
    expect(empty.status).toBe(400);
    expect(Object.keys(empty.body.issues)).toEqual(["reason"]);
    const stranger = await api.call("post", "/orders/{id}/dispute", `/orders/${orderId}/dispute`, as("other", { reason: "Not mine" }));
    expect(stranger.status).toBe(404);
    expect(await count("disputes", { order_id: orderId })).toBe(0);
    const opened = await api.call("post", "/orders/{id}/dispute", `/orders/${orderId}/dispute`, as("seller", { reason: "No answer from the buyer" }));
    expect(opened.status).toBe(201);
    expect(opened.body.data.order).toMatchObject({ disputeOpen: true, dispute: { byMe: true, openedBy: "seller", reason: "No answer from the buyer" } });
    expect(opened.body.data.disputeId).toBe(Number((await t.db("disputes").where({ order_id: orderId }).first()).id));
    const twice = await api.call("post", "/orders/{id}/dispute", `/orders/${orderId}/dispute`, as("buyer", { reason: "Me too" }));
    expect(twice.status).toBe(409);
    expect(twice.body.code).toBe("order.dispute_open");
  });
});

describe("Soko's words in the reader's language (ADR 047)", () => {
  it("says a failed payment's reason, and the timeline's, in the token's member's language, which comes before Accept-Language", async () => {
    for (const language of ["lg", "sw"] as const) {
      const buyer = await createUser(t.db, { name: `Api Buyer ${language}`, role: "client" });
      await t.db("users").where({ id: buyer.id }).update({ language });
      const token = await createAppToken(t.db, buyer.id);
      // The app asks in Swahili; the member chose their language in Settings.
      const ask = (body?: unknown) => ({ token, body, headers: { ...from(), "Accept-Language": "sw-KE,sw;q=0.9" } });
      const placed = await api.call("post", "/orders", "/orders", ask(placeBody()));
      expect(placed.status).toBe(201);
      const { id, payment } = placed.body.data;
      expect(await t.sandbox.decide(payment.reference, "decline")).toBe(true);
      const res = await fetch(`${server.baseUrl}/payments/callback/sandbox`, {
        method: "POST",
        headers: { "Content-Type": "application/json", ...from() },
        body: JSON.stringify({ reference: payment.reference }),
      });
      expect(res.status).toBe(200);

      const read = await api.call("get", "/orders/{id}", `/orders/${id}`, ask());
      expect(read.body.data).toMatchObject({ status: "cancelled", payment: { status: "failed", failureReason: words("ops.reason.declined", language) } });
      const failed = read.body.data.timeline.find((e: { kind: string }) => e.kind === "payment_failed");
      expect(failed.reason).toBe(words("ops.reason.declined", language));
      expect(failed.reason).not.toBe(words("ops.reason.declined", "en"));
      // The tables keep the English, for anything that reads them directly.
      expect(await t.db("payments").where({ order_id: id }).first("failure_reason")).toEqual({ failure_reason: "Declined on the phone" });
    }
  });
});
