/**
 * Conversions that stand for business facts come from the server, never from a browser (ADR 007).
 * An account cannot post an order of any value into the revenue report; joining through the real
 * /register form and publishing a gig through the real gig form each record their conversion once, with
 * platform "server"; recording never breaks the action when Redis is away. The built web server, the
 * worker (in this process), Postgres, Redis and ClickHouse (databases of this file) are all real.
 * Runs the built app: `npm run build` first.
 */
import { randomUUID } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serverSessionId } from "~/analytics/ingest.server";
import { conversions } from "~/analytics/reports.server";
import { startAnalyticsPipeline } from "../support/analytics-events";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { gigFormData, VALID_GIG_FIELDS } from "../support/gig-form";
import type { TestServer } from "../support/test-server";

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

type Row = {
  event_id: string;
  session_id: string;
  user_id: number;
  platform: string;
  conversion_type: string;
  value: number;
  metadata: string;
  ip: string;
  country: string;
  event_time: string;
};

describe("conversions that are business facts", () => {
  let t: TestDatabase;
  let pipeline: Awaited<ReturnType<typeof startAnalyticsPipeline>>;
  let server: TestServer;
  let clickhouse: ClickHouseClient;
  const tokens: Record<string, string> = {};
  const ids: Record<string, number> = {};

  beforeAll(async () => {
    t = await createTestDatabase();
    for (const [key, role] of [
      ["buyer", "client"],
      ["seller", "freelancer"],
    ] as const) {
      ids[key] = (await createUser(t.db, { role, name: `Test ${key}`, email: `${key}@example.ug` })).id;
      tokens[key] = await createSession(t.db, ids[key]!);
    }
    pipeline = await startAnalyticsPipeline({ DATABASE_URL: t.url }, { name: "anaconv" });
    ({ server, clickhouse } = pipeline);
    // Re-sent copies stay separate rows, so "once" below is the reports' doing, not a merge's.
    await clickhouse.command({ query: `SYSTEM STOP MERGES ${pipeline.database}.conversions` });
  });
  afterAll(async () => {
    await pipeline?.stop();
    await t?.drop();
  });

  async function select<T>(query: string): Promise<T[]> {
    return (await clickhouse.query({ query, format: "JSONEachRow" })).json<T>();
  }
  /** The conversions of a type as stored: every copy, and as the reports see them (FINAL: one per event). */
  const stored = (type: string) => select<Row>(`SELECT * FROM conversions WHERE conversion_type = '${type}' ORDER BY event_time`);
  const once = (type: string) => select<Row>(`SELECT * FROM conversions FINAL WHERE conversion_type = '${type}' ORDER BY event_time`);

  /** A form posted as a browser posts it from our page (urlencoded, or multipart for FormData). */
  function submit(path: string, body: Record<string, string> | FormData, headers: Record<string, string> = {}) {
    return fetch(`${server.baseUrl}${path}`, {
      method: "POST",
      redirect: "manual",
      headers: { "User-Agent": ANDROID, Origin: server.baseUrl, ...headers },
      body: body instanceof FormData ? body : new URLSearchParams(body),
    });
  }

  it("refuses an order of 9,999,999 posted by an account (400 naming the allowed types), and the revenue report does not move", async () => {
    const before = await conversions(clickhouse, "1d");
    const post = (event: Record<string, unknown>) =>
      fetch(`${server.baseUrl}/api/v1/analytics/conversion`, {
        method: "POST",
        headers: { "Content-Type": "text/plain", "User-Agent": ANDROID, Origin: server.baseUrl, Cookie: `soko_consent=granted; soko_session=${tokens.buyer}` },
        body: JSON.stringify(event),
      });
    const event = () => ({ event_id: randomUUID(), session_id: "1764000000000-f4k3d0", timestamp: Date.now(), platform: "web" });
    const fake = await post({ ...event(), conversion_type: "order_placed", value: 9_999_999, metadata: { gig: 1 } });
    expect(fake.status).toBe(400);
    const answer = (await fake.json()) as { error: string; issues: { message: string }[] };
    expect(answer.issues[0]!.message).toMatch(
      /order_placed is recorded by the server, not sent from a browser: send one of search, package_selected, contact_seller/,
    );

    // A step a browser may report, with a value: stored, and still no money in the report.
    const step = { ...event(), conversion_type: "package_selected", value: 9_999_999 };
    expect((await post(step)).status).toBe(202);
    await expect.poll(async () => (await stored("package_selected")).length, { timeout: 15_000 }).toBe(1);
    expect(await conversions(clickhouse, "1d")).toEqual(before);
    expect(await stored("order_placed")).toEqual([]);
  });

  it("records one signup, from the server, when someone joins through the /register form", async () => {
    const tab = `${Date.now()}-t4bs3ss10n`;
    const join = (email: string, ip: string, cookie: string) =>
      submit(
        "/register",
        { name: "Amina Nansubuga", email, role: "client", password: "a-long-password", confirmPassword: "a-long-password" },
        { "X-Forwarded-For": ip, Cookie: cookie },
      );

    // Analytics allowed: the member and the tracker's session (its soko_sid cookie) are on the row.
    const before = Date.now();
    const consenting = await join("amina@example.ug", "41.210.145.12", `soko_consent=granted; soko_sid=${tab}`);
    expect(consenting.status).toBe(302);
    expect(consenting.headers.get("location")).toBe("/dashboard");
    const amina = Number((await t.db("users").where({ email: "amina@example.ug" }).first("id")).id);
    await expect.poll(async () => (await stored("signup")).length, { timeout: 15_000 }).toBe(1);
    const [row] = await stored("signup");
    expect(row).toMatchObject({
      user_id: amina,
      session_id: tab,
      platform: "server",
      value: 0,
      metadata: '{"role":"client"}',
      ip: "41.210.145.0",
      country: "Uganda",
    });
    expect(Date.parse(`${row!.event_time.replace(" ", "T")}Z`)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);

    // Not allowed (no choice, or "denied"): counted all the same, but anonymous, in the server's own session
    // of that address and browser; a soko_sid cookie left from an earlier "allow" is not used.
    const anonymous = await join("brian@example.ug", "41.210.146.20", `soko_consent=denied; soko_sid=${tab}`);
    expect(anonymous.status).toBe(302);
    await expect.poll(async () => (await stored("signup")).length, { timeout: 15_000 }).toBe(2);
    const second = (await stored("signup")).find((r) => r.event_id !== row!.event_id)!;
    expect(second).toMatchObject({ user_id: 0, platform: "server", metadata: '{"role":"client"}' });
    expect(second.session_id).toBe(serverSessionId("41.210.146.20", ANDROID, Date.parse(`${second.event_time.replace(" ", "T")}Z`)));

    // A join that fails records nothing.
    expect((await join("amina@example.ug", "41.210.147.1", "")).status).toBe(400);
    expect((await conversions(clickhouse, "1d")).signups).toBe(2);
    expect(await stored("signup")).toHaveLength(2);
  });

  it("records one gig_published when a seller publishes a gig, however often it is saved again", async () => {
    const form = (intent: string) => gigFormData([], { ...VALID_GIG_FIELDS, intent });
    const seller = { Cookie: `soko_session=${tokens.seller}` };
    // A draft is not published: nothing.
    const draft = await submit("/gig/create", form("draft"), seller);
    expect(draft.headers.get("location")).toBe("/dashboard?gig=draft");
    const gigId = Number((await t.db("gigs").where({ seller_id: ids.seller }).orderBy("id", "desc").first("id")).id);

    const published = await submit(`/gig/${gigId}/edit`, form("publish"), seller);
    expect(published.headers.get("location")).toBe("/dashboard?gig=published");
    await expect.poll(async () => (await stored("gig_published")).length, { timeout: 15_000 }).toBe(1);
    const { published_at: publishedAt } = await t.db("gigs").where({ id: gigId }).first("published_at");
    const [row] = await stored("gig_published");
    expect(row).toMatchObject({ platform: "server", metadata: JSON.stringify({ gig: gigId }), value: 0 });
    // At the gig's first publication.
    expect(Date.parse(`${row!.event_time.replace(" ", "T")}Z`)).toBe(Math.floor((publishedAt as Date).getTime() / 1000) * 1000);

    // Saved as published again: the same fact, which the outbox already holds under its key
    // (conversion:gig_published:<id>), so it is not sent again; every report counts one.
    const again = await submit(`/gig/${gigId}/edit`, form("publish"), seller);
    expect(again.headers.get("location")).toBe("/dashboard?gig=published");
    expect(
      await t
        .db("effects")
        .where({ dedupe_key: `conversion:gig_published:${gigId}` })
        .pluck("id"),
    ).toHaveLength(1);
    await expect.poll(async () => (await t.db("effects").whereNull("done_at").pluck("id")).length, { timeout: 15_000 }).toBe(0);
    expect(await stored("gig_published")).toHaveLength(1);
    expect(await once("gig_published")).toHaveLength(1);
  });
});
