/**
 * The exchange rate screen (ADR 017), through the real server with JavaScript off and through its
 * operation: admins only; a new UGX per USD rate within sane bounds updates exchange_rates, adds a history
 * row and an audit row in one go; bad input is refused beside the field and changes nothing; USD prices on
 * the site follow the new rate at once, while an order placed before the change keeps its own.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUsdRate } from "~/operations/exchange-rates.server";
import { RATE_NOT_A_NUMBER, RATE_OUT_OF_BOUNDS } from "~/schemas/monitoring";
import { createSession } from "../support/factories";
import { decode } from "../support/html";
import { rowCount } from "../support/order-checks";
import { memberActor, orderTestContext, placeTestOrder } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";
import { words } from "../support/words";

const t = orderTestContext("rates", {
  parties: { buyer: { name: "Akello Joan" }, seller: { name: "Mugisha Peter" }, gig: { title: "Shop logo in three colours" } },
  admin: { name: "Rates Admin" },
});
let server: TestServer;
let adminCookie: string;
let buyerCookie: string;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });
  adminCookie = `soko_session=${await createSession(t.db, t.admin.id)}`;
  buyerCookie = `soko_session=${await createSession(t.db, t.buyer.id)}`;
});
afterAll(async () => {
  await server?.stop();
});

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
      res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: decode(text) }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const rate = async () => Number((await t.db("exchange_rates").where({ currency: "USD" }).first("ugx_per_unit")).ugx_per_unit);
/** The message shown beside the rate field. */
const besideField = (html: string) =>
  (/<ul id="set-rate-ugxPerUsd-error"[^>]*>(.*?)<\/ul>/s.exec(html)?.[1] ?? "")
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();

describe("the exchange rate screen", () => {
  it("is for admins only, and a member's post changes nothing", async () => {
    expect(await request("main", "GET", "/admin/rates", { cookie: buyerCookie })).toMatchObject({ status: 302, location: "/" });
    expect((await request("admin", "GET", "/rates", { cookie: buyerCookie })).status).toBe(403);
    expect((await request("admin", "POST", "/rates", { cookie: buyerCookie, form: { ugxPerUsd: "1000" } })).status).toBe(403);
    expect(await request("main", "POST", "/admin/rates", { cookie: buyerCookie, form: { ugxPerUsd: "1000" } })).toMatchObject({ status: 302, location: "/" });
    expect(await setUsdRate(memberActor(t.buyer), { ugxPerUsd: 1000 }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await rate()).toBe(3700);
    expect(await rowCount(t.db("exchange_rate_history"))).toBe(0);
    expect(await rowCount(t.db("admin_audit_log"))).toBe(0);
  });

  it("shows the current rate and no history yet", async () => {
    const page = await request("admin", "GET", "/rates", { cookie: adminCookie });
    expect(page.status).toBe(200);
    expect(page.body).toMatch(/Current rate: <strong[^>]*>UGX 3,700<\/strong> per US dollar/);
    expect(page.body).toContain("No admin has changed the rate yet.");
  });

  it.each([
    ["", "Enter the new rate"],
    ["abc", words(RATE_NOT_A_NUMBER)],
    ["-3700", words(RATE_NOT_A_NUMBER)],
    ["3700.123", words(RATE_NOT_A_NUMBER)],
    ["37.5", words(RATE_OUT_OF_BOUNDS)],
    ["375000", words(RATE_OUT_OF_BOUNDS)],
    ["0", words(RATE_OUT_OF_BOUNDS)],
    ["9".repeat(40), words(RATE_NOT_A_NUMBER)],
  ])("refuses %j with a message beside the field and changes nothing", async (value, message) => {
    const answer = await request("admin", "POST", "/rates", { cookie: adminCookie, form: { ugxPerUsd: value } });
    expect(answer.status).toBe(400);
    expect(besideField(answer.body)).toBe(message);
    expect(await rate()).toBe(3700);
    expect(await rowCount(t.db("exchange_rate_history"))).toBe(0);
    expect(await rowCount(t.db("admin_audit_log"))).toBe(0);
  });

  it("sets a new rate with its history and audit row; USD prices follow it, an order placed before keeps its own", async () => {
    const before = await placeTestOrder(t, t.buyer, t.gigId);
    expect(Number((await t.db("orders").where({ id: before.orderId }).first("ugx_per_usd")).ugx_per_usd)).toBe(3700);

    const first = await request("main", "POST", "/admin/rates", { cookie: adminCookie, form: { ugxPerUsd: "4,000" } });
    expect(first).toMatchObject({ status: 303, location: "/admin/rates?saved=4000" });
    const second = await request("admin", "POST", "/rates", { cookie: adminCookie, form: { ugxPerUsd: " 3850.50 " } });
    expect(second).toMatchObject({ status: 303, location: "/rates?saved=3850.5" });
    expect(await rate()).toBe(3850.5);

    const history = await t.db("exchange_rate_history").orderBy("id");
    expect(history.map((h) => [Number(h.ugx_per_unit), Number(h.set_by), h.currency])).toEqual([
      [4000, t.admin.id, "USD"],
      [3850.5, t.admin.id, "USD"],
    ]);
    const audit = await t.db("admin_audit_log").where({ action: "exchange_rate.set" }).orderBy("id");
    expect(audit.map((a) => [a.admin_id, a.target_type, a.target_id, a.details])).toEqual([
      [t.admin.id, "exchange_rate", "USD", { from: 3700, to: 4000 }],
      [t.admin.id, "exchange_rate", "USD", { from: 4000, to: 3850.5 }],
    ]);

    const page = await request("admin", "GET", second.location!, { cookie: adminCookie });
    expect(page.body).toContain("The rate is now UGX 3,850.5 per US dollar.");
    expect(page.body).toMatch(/Current rate: <strong[^>]*>UGX 3,850.5<\/strong>/);
    // The history, newest first, with who set each rate.
    // The cells' data-label attributes (the column names on a phone's stacked cards) are left out.
    const rows = [
      ...page.body.replace(/ data-label="[^"]*"/g, "").matchAll(/<tr><td><time[^>]*>[^<]+<\/time><\/td><td>([^<]+)<\/td><td>([^<]+)<\/td><\/tr>/g),
    ].map((m) => [m[1], m[2]]);
    expect(rows).toEqual([
      ["3,850.5", "Rates Admin"],
      ["4,000", "Rates Admin"],
    ]);
    // A crafted confirmation link claims nothing (on the page: its data scripts carry the screen's catalogue, this sentence too).
    const crafted = await request("admin", "GET", "/rates?saved=9999", { cookie: adminCookie });
    expect(crafted.status).toBe(200);
    expect(crafted.body).toMatch(/Current rate: <strong[^>]*>UGX 3,850.5<\/strong>/);
    expect(crafted.body.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")).not.toContain("The rate is now");

    // The catalogue in USD follows the new rate at once: UGX 100,000 at 3,850.5 is USD 25.97.
    const gig = await request("main", "GET", `/gig/${t.gigId}`, { cookie: `soko_currency=USD` });
    expect(gig.body).toContain("USD 25.97");
    // An order keeps the rate of its checkout; a new one takes today's.
    expect(Number((await t.db("orders").where({ id: before.orderId }).first("ugx_per_usd")).ugx_per_usd)).toBe(3700);
    const after = await placeTestOrder(t, t.buyer, t.gigId);
    expect(Number((await t.db("orders").where({ id: after.orderId }).first("ugx_per_usd")).ugx_per_usd)).toBe(3850.5);
    // A buyer who sees prices in USD sees each order at its own rate: UGX 100,000 at 3,700 is USD 27.03.
    await t.db("users").where({ id: t.buyer.id }).update({ preferred_currency: "USD" });
    const old = await request("main", "GET", `/orders/${before.orderId}`, { cookie: buyerCookie });
    expect(old.body).toMatch(/<dt>Price<\/dt><dd>USD 27.03<\/dd>/);
    expect(old.body).toContain("UGX 3,700 per USD, fixed when the order was placed");
    const recent = await request("main", "GET", `/orders/${after.orderId}`, { cookie: buyerCookie });
    expect(recent.body).toMatch(/<dt>Price<\/dt><dd>USD 25.97<\/dd>/);
    expect(recent.body).toContain("UGX 3,850.5 per USD, fixed when the order was placed");
  });
});
