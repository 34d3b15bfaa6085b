/**
 * The admin dashboard: its business figures from Postgres against a hand-made fixture (every expected
 * figure worked out in the comments), then the screen itself through the built server, JavaScript off,
 * with a ClickHouse database of its own.
 *
 * NOW = 2026-03-15 09:00 UTC = 12:00 in Kampala, so "today" starts at 2026-03-14 21:00 UTC.
 *   users   admin 2026-01-01; buyer 03-14 20:59:59 (yesterday in Kampala); seller 03-14 21:00 (today);
 *           late 03-15 08:00 (today); future 03-15 10:00 (after NOW: not yet a member)
 *   orders  o1 paid 03-14 20:00 (yesterday) 100,000 + fee 5,000; o2 paid 03-15 06:00, 200,000 + 10,000;
 *           o3 never paid; o4 paid 03-15 08:30, 50,000 + 2,500; o5 paid 03-15 09:30 (after NOW)
 *   ledger  fees of o1 credited 03-14 20:30 (5,000 + 20,000); of o2 03-15 07:00 (10,000 + 40,000);
 *           a journal without fees 03-15 08:00; fees of o4 03-15 09:30 (after NOW)
 *   gigs    two published, a draft, a paused one
 */
import type { ClickHouseClient } from "@clickhouse/client";
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { businessFigures, recentActivity } from "~/models/admin-dashboard.server";
import { getEnv } from "~/server/env.server";
import { createTestClickHouseDatabase, createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createSession, createUser } from "../support/factories";
import { words } from "../support/words";
import { startTestServer, type TestServer } from "../support/test-server";

const NOW = new Date("2026-03-15T09:00:00Z");
let t: TestDatabase;
let database: string;
let chAdmin: ClickHouseClient;
let server: TestServer;
let adminCookie: string;
let memberCookie: string;
const ids: Record<string, number> = {};

async function order(key: string, priceUgx: number, buyerFeeUgx: number, paidAt: string | null) {
  const [row] = await t
    .db("orders")
    .insert({
      buyer_id: ids.buyer,
      seller_id: ids.seller,
      gig_title: "Shop logo",
      tier: "basic",
      package_name: "Basic",
      price_ugx: priceUgx,
      buyer_fee_ugx: buyerFeeUgx,
      seller_fee_ugx: priceUgx / 5,
      ugx_per_usd: 3700,
      delivery_days: 3,
      revisions_allowed: 1,
      status: paidAt ? "in_progress" : "pending_payment",
      checkout_key: `checkout-${key}`,
      paid_at: paidAt,
      created_at: paidAt ?? "2026-03-15T05:00:00Z",
    })
    .returning("id");
  return Number(row.id);
}

async function account(code: string, kind: string, orderId: number | null = null) {
  const [row] = await t.db("ledger_accounts").insert({ code, kind, order_id: orderId }).returning("id");
  return Number(row.id);
}

/** A balanced journal at a time: fees to the platform out of the order's escrow (or a plain move). */
async function journal(key: string, at: string, entries: [accountId: number, amountUgx: number][]) {
  await t.db.transaction(async (trx) => {
    const [j] = await trx("ledger_journals").insert({ idempotency_key: key, kind: "test", created_at: at }).returning("id");
    await trx("ledger_entries").insert(entries.map(([account_id, amount_ugx]) => ({ journal_id: j.id, account_id, amount_ugx })));
  });
}

beforeAll(async () => {
  t = await createTestDatabase();
  for (const [name, role, at] of [
    ["admin", "admin", "2026-01-01T00:00:00Z"],
    ["buyer", "client", "2026-03-14T20:59:59Z"],
    ["seller", "freelancer", "2026-03-14T21:00:00Z"],
    ["late", "client", "2026-03-15T08:00:00Z"],
    ["future", "client", "2026-03-15T10:00:00Z"],
  ] as const) {
    const u = await createUser(t.db, { role, name: `Dash ${name}` });
    await t.db("users").where({ id: u.id }).update({ created_at: at });
    ids[name] = u.id;
  }
  const o1 = await order("o1", 100_000, 5_000, "2026-03-14T20:00:00Z");
  const o2 = await order("o2", 200_000, 10_000, "2026-03-15T06:00:00Z");
  await order("o3", 300_000, 15_000, null);
  const o4 = await order("o4", 50_000, 2_500, "2026-03-15T08:30:00Z");
  await order("o5", 70_000, 3_500, "2026-03-15T09:30:00Z");
  const buyerFees = await account("platform_buyer_fees", "platform_buyer_fees");
  const sellerFees = await account("platform_seller_fees", "platform_seller_fees");
  const clearing = await account("provider_clearing", "provider_clearing");
  const escrow = (id: number) => account(`escrow:order:${id}`, "escrow", id);
  const [e1, e2, e4] = [await escrow(o1), await escrow(o2), await escrow(o4)];
  await journal("j1", "2026-03-14T20:30:00Z", [
    [e1, -25_000],
    [buyerFees, 5_000],
    [sellerFees, 20_000],
  ]);
  await journal("j2", "2026-03-15T07:00:00Z", [
    [e2, -50_000],
    [buyerFees, 10_000],
    [sellerFees, 40_000],
  ]);
  await journal("j3", "2026-03-15T08:00:00Z", [
    [clearing, -30_000],
    [e4, 30_000],
  ]);
  await journal("j4", "2026-03-15T09:30:00Z", [
    [e4, -12_500],
    [buyerFees, 2_500],
    [sellerFees, 10_000],
  ]);
  for (const status of ["published", "published", "draft", "paused"] as const) await createGig(t.db, { sellerId: ids.seller!, status });
  await t.db("activity").insert([
    { user_id: ids.seller, kind: "joined", details: "{}", created_at: "2026-03-14T21:00:00Z" },
    { user_id: ids.late, kind: "order_placed", details: "{}", created_at: "2026-03-15T08:00:00Z" },
    { user_id: ids.buyer, kind: "something_new", details: "{}", created_at: "2026-03-15T08:10:00Z" },
  ]);
  adminCookie = `soko_session=${await createSession(t.db, ids.admin!)}`;
  memberCookie = `soko_session=${await createSession(t.db, ids.buyer!)}`;

  // The screen's ClickHouse: one visitor on /browse a minute ago (active now), on a tablet in Rwanda.
  database = await createTestClickHouseDatabase("soko_dash");
  chAdmin = createClickHouse(clickHouseOptions(getEnv(), "default"));
  const at = new Date(Date.now() - 60_000).toISOString().slice(0, 19).replace("T", " ");
  const client = createClickHouse(clickHouseOptions(getEnv(), database));
  await client.insert({
    table: "pageviews",
    format: "JSONEachRow",
    values: [
      {
        event_id: "00000000-0000-4000-8000-000000000001",
        session_id: "1764000000000-dash01",
        user_id: 0,
        event_time: at,
        received_at: at,
        platform: "web",
        ip: "",
        country: "Rwanda",
        city: "",
        device: "tablet",
        browser: "Chrome",
        os: "Android",
        page: "/browse",
        title: "",
        url: "",
        referrer: "",
      },
    ],
  });
  await client.close();
  server = await startTestServer({ DATABASE_URL: t.url, CLICKHOUSE_DATABASE: database });
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (database) await chAdmin?.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await chAdmin?.close();
  await t?.drop();
});

describe("business figures", () => {
  it("counts today in Kampala, orders that were paid, and the platform's fees from the ledger", async () => {
    expect(await businessFigures(t.db, { now: NOW })).toEqual({
      // seller (21:00 UTC = midnight in Kampala) and late; buyer joined a second before midnight; future not yet.
      newSignupsToday: 2,
      // o2 and o4 (o1 yesterday, o3 unpaid, o5 after NOW); what buyers paid: 210,000 + 52,500.
      ordersToday: 2,
      orderValueTodayUgx: 262_500,
      // j2's fees (10,000 + 40,000); j3 moves no fee; j4 is after NOW.
      revenueTodayUgx: 50_000,
      // admin, buyer, seller, late.
      totalUsers: 4,
      // o1, o2, o4.
      totalOrders: 3,
      // j1 25,000 + j2 50,000.
      totalRevenueUgx: 75_000,
      // the two published gigs.
      totalGigs: 2,
    });
  });

  it("moves with the day: at 20:59:59 UTC on 03-14 that was still the 14th in Kampala", async () => {
    const figures = await businessFigures(t.db, { now: new Date("2026-03-14T20:59:59Z") });
    // Kampala's 14th began 03-13 21:00 UTC: admin is older, buyer joined that day; o1 paid at 20:00 and
    // its fees (j1, 25,000) were credited at 20:30.
    expect(figures).toMatchObject({
      newSignupsToday: 1,
      ordersToday: 1,
      orderValueTodayUgx: 105_000,
      revenueTodayUgx: 25_000,
      totalUsers: 2,
      totalOrders: 1,
      totalRevenueUgx: 25_000,
    });
  });

  it("lists recent activity newest first, by kind (the screen words it)", async () => {
    expect((await recentActivity(t.db)).map(({ user, kind }) => ({ user, kind }))).toEqual([
      { user: "Dash buyer", kind: "something_new" },
      { user: "Dash late", kind: "order_placed" },
      { user: "Dash seller", kind: "joined" },
    ]);
  });
});

function get(host: "main" | "admin", path: string, cookie?: string): Promise<{ status: number; location?: string; body: string }> {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const headers: Record<string, string> = { Host: new URL(origin).host };
  if (cookie) headers.Cookie = cookie;
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port: server.port, path, headers }, (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (c) => (text += c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: text.replace(/<!-- -->/g, "") }));
      })
      .on("error", reject);
  });
}

const stat = (html: string, label: string) => new RegExp(`<span class="stat-value">([^<]*)</span> <span class="stat-label">${label}</span>`).exec(html)?.[1];

describe("the dashboard screen", () => {
  it("shows an admin the figures, their definitions, the charts with their tables, and recent activity", async () => {
    for (const [host, path] of [
      ["main", "/admin"],
      ["admin", "/"],
    ] as const) {
      const page = await get(host, path, adminCookie);
      expect(page.status).toBe(200);
      const html = page.body;
      // Today (November 2026) nothing was sold; the totals are the fixture's, with o5 and j4 (75,000 + 12,500).
      expect(stat(html, "Active users now")).toBe("1");
      expect(stat(html, "Orders today")).toBe("0");
      expect(stat(html, "Total users")).toBe("5");
      expect(stat(html, "Total orders")).toBe("4");
      expect(stat(html, "Total revenue")).toBe("UGX 87,500");
      expect(stat(html, "Published gigs")).toBe("2");
      expect(stat(html, "Conversion rate \\(7 days\\)")).toBe("0.0%");
      expect(html).toContain("the fees the ledger credits to the platform");
      expect(html).toMatch(/<caption>Top countries \(last 7 days\)<\/caption>.*<th scope="row">Rwanda<\/th><td>1 \(100%\)<\/td>/s);
      expect(html).toMatch(/<caption>Devices \(last 7 days\)<\/caption>.*<th scope="row">tablet<\/th>/s);
      expect(html).toContain(`<td data-label="What">${words("admin.activity.orderPlaced")}</td>`);
      expect(html).toContain(`<td data-label="What">${words("admin.activity.joined")}</td>`);
      // A kind this code does not know (an older row) is still a sentence, with the kind in it.
      expect(html).toContain("did something this screen does not name yet (something_new)");
    }
  });

  it("is for admins only", async () => {
    expect(await get("main", "/admin", memberCookie)).toMatchObject({ status: 302, location: "/" });
    expect((await get("admin", "/", memberCookie)).status).toBe(403);
  });
});
