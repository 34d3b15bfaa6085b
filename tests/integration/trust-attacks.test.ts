/**
 * The trust features against someone trying their edges, through the real server with JavaScript off: another
 * member's review by changing its id, saving a gig that does not exist, and the same save twice at once; a
 * right phone code sent twice at once; redirect targets that leave the site; and an oversized or forged
 * delivery report. Each is refused (or ignored) and nothing is written that should not be.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createReview } from "~/operations/reviews.server";
import { createSession, createUser } from "../support/factories";
import { completedTestOrder, memberActor, orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("trust_attacks", { parties: { seller: { name: "Edge Seller" }, buyer: { name: "Edge Buyer" } } });
let server: TestServer;
let reviewId: number;
let strangerCookie: string;
let buyerCookie: string;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });
  const { orderId } = await completedTestOrder(t, t.buyer, t.seller, t.gigId);
  const made = await createReview(memberActor(t.buyer), { gigId: t.gigId, orderId, rating: 4, comment: "Good work." }, { db: t.db });
  if (!made.ok) throw new Error(JSON.stringify(made));
  reviewId = made.value.id;
  const stranger = await createUser(t.db, { role: "freelancer", name: "Edge Stranger" });
  strangerCookie = `soko_session=${await createSession(t.db, stranger.id)}`;
  buyerCookie = `soko_session=${await createSession(t.db, t.buyer.id)}`;
});
afterAll(async () => {
  await server?.stop();
});

function post(cookie: string, path: string, form: Record<string, string>) {
  return fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, Origin: server.baseUrl },
    body: new URLSearchParams(form),
  });
}

describe("another member's things by changing an id", () => {
  it("a review on someone else's order is 404 to read and to change, and stays as it was", async () => {
    const page = await fetch(`${server.baseUrl}/reviews/${reviewId}`, { headers: { Cookie: strangerCookie } });
    expect(page.status).toBe(404);
    const forms: Record<string, string>[] = [
      { intent: "edit", reviewId: String(reviewId), rating: "1", comment: "Changed by a stranger." },
      { intent: "reply", reviewId: String(reviewId), reply: "A reply by a stranger." },
      { intent: "delete", reviewId: String(reviewId) },
    ];
    for (const form of forms) {
      const res = await post(strangerCookie, `/reviews/${reviewId}`, form);
      expect(res.status, form.intent).toBe(404);
    }
    expect(await t.db("reviews").where({ id: reviewId }).first("rating", "comment", "reply")).toMatchObject({
      rating: 4,
      comment: "Good work.",
      reply: null,
    });
  });

  it("saving a gig or seller that does not exist is refused, and the same save twice at once is one row", async () => {
    const missing = await post(buyerCookie, "/saved", { intent: "save", kind: "gig", id: "999999999" });
    expect(missing.status).toBeGreaterThanOrEqual(400);
    expect(missing.status).toBeLessThan(500);
    expect(await t.db("saved_gigs").where({ user_id: t.buyer.id })).toEqual([]);
    const twice = await Promise.all([1, 2].map(() => post(buyerCookie, "/saved", { intent: "save", kind: "seller", id: String(t.seller.id) })));
    expect(twice.map((r) => r.status)).toEqual([303, 303]);
    expect((await t.db("saved_sellers").where({ user_id: t.buyer.id }).pluck("seller_id")).map(Number)).toEqual([t.seller.id]);
  });
});

describe("a right phone code sent twice at once", () => {
  it("verifies once: the other is told the code was used, and one code row is used", async () => {
    const member = await createUser(t.db, { role: "freelancer", name: "Twice Coder" });
    const cookie = `soko_session=${await createSession(t.db, member.id)}`;
    expect((await post(cookie, "/settings/phone", { intent: "send", phone: "0772 313 131" })).status).toBe(302);
    const sms = await t.db("sms_messages").where({ user_id: member.id }).first("body");
    const code = /code is (\d{6})/.exec(sms.body)![1]!;
    const answers = await Promise.all([1, 2].map(() => post(cookie, "/settings/phone", { intent: "confirm", code })));
    expect(answers.map((r) => r.status).sort()).toEqual([302, 400]);
    const refused = answers.find((r) => r.status === 400)!;
    expect(await refused.text()).toContain("That code was already used.");
    expect(await t.db("phone_codes").where({ user_id: member.id }).first("attempts", "used_at")).toMatchObject({ attempts: 1, used_at: expect.any(Date) });
    expect(await t.db("users").where({ id: member.id }).first("phone")).toEqual({ phone: "+256772313131" });
  });
});

describe("redirect targets that leave the site go to the page's own default", () => {
  it.each([
    ["/data-saver", { dataSaver: "on", redirectTo: "//evil.example/x" }, "/"],
    ["/data-saver", { dataSaver: "off", redirectTo: "https://evil.example/" }, "/"],
    ["/saved", { intent: "unsave", kind: "seller", id: "1", redirectTo: "/\\evil.example" }, "/saved"],
  ])("POST %s %j → %s", async (path, form, fallback) => {
    const res = await post(buyerCookie, path, form as Record<string, string>);
    expect([302, 303]).toContain(res.status);
    expect(res.headers.get("location")).toBe(fallback);
  });

  it("a review's `back` link off the site is dropped for the order's page", async () => {
    const html = await (await fetch(`${server.baseUrl}/reviews/${reviewId}?back=//evil.example`, { headers: { Cookie: buyerCookie } })).text();
    // (The page's own address, with its query, is still every footer form's way back: a path on this site.)
    expect(html).not.toMatch(/(href|action)="(https?:)?\/\/evil/);
    expect(html).toMatch(/href="\/orders\/\d+"/);
  });
});

describe("the delivery-report callback", () => {
  it("refuses a body over its limit (413) and ignores a report naming a text we never sent (200, nothing changed)", async () => {
    const huge = await fetch(`${server.baseUrl}/sms/delivery`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: `id=ATXid_x&status=Success&pad=${"a".repeat(2 * 1024 * 1024)}`,
    });
    expect(huge.status).toBe(413);
    const before = await t.db("sms_messages").select("id", "delivery_status").orderBy("id");
    const forged = await fetch(`${server.baseUrl}/sms/delivery`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ id: "ATXid_never_sent", status: "Success", phoneNumber: "+256772313131" }),
    });
    expect(forged.status).toBe(200);
    expect(await t.db("sms_messages").select("id", "delivery_status").orderBy("id")).toEqual(before);
  });
});
