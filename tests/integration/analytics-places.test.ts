/**
 * Where a visitor was, as stored (ADR 021, amended 2026-11-27): the web process queues each event with the
 * truncated address (/24, /48) and no place, and the worker looks country and city up from that address as it
 * writes the row. The built web server, the worker (in this process) and ClickHouse (a database of this file)
 * are all real: what is asserted is what ClickHouse holds. Runs the built app: `npm run build` first.
 */
import { randomUUID } from "node:crypto";
import type { ClickHouseClient } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { quoteList } from "~/analytics/clickhouse-sql.server";
import { startAnalyticsPipeline } from "../support/analytics-events";
import type { TestServer } from "../support/test-server";

const ANDROID = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

type Stored = { ip: string; country: string; city: string };

describe("the place of each stored event", () => {
  let pipeline: Awaited<ReturnType<typeof startAnalyticsPipeline>>;
  let server: TestServer;
  let clickhouse: ClickHouseClient;

  beforeAll(async () => {
    pipeline = await startAnalyticsPipeline({}, { name: "anaplace" });
    ({ server, clickhouse } = pipeline);
  });
  afterAll(() => pipeline?.stop());

  /** One click (or `count` of them in one request) sent from `ip` through the tracking endpoint; their ids. */
  async function click(ip: string, count = 1): Promise<string[]> {
    const events = Array.from({ length: count }, () => ({
      event_id: randomUUID(),
      session_id: "1764000000000-pl4c3s",
      timestamp: Date.now(),
      platform: "web",
      action_type: "click",
      page: "/browse",
      x: 1,
      y: 2,
    }));
    const res = await fetch(`${server.baseUrl}/api/v1/analytics/action`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "User-Agent": ANDROID, "X-Forwarded-For": ip },
      body: JSON.stringify(events),
    });
    expect(res.status, await res.clone().text()).toBe(202);
    return events.map((e) => e.event_id);
  }

  /** The stored rows (address and place) of these events in `table`, once all of them are there. */
  async function stored(table: string, ids: string[]): Promise<Stored[]> {
    const query = `SELECT toString(event_id) AS id, ip, country, city FROM ${table} FINAL WHERE toString(event_id) IN ${quoteList(ids)}`;
    let rows: (Stored & { id: string })[] = [];
    await expect
      .poll(
        async () => {
          rows = await (await clickhouse.query({ query, format: "JSONEachRow" })).json<Stored & { id: string }>();
          return rows.length;
        },
        { timeout: 15_000 },
      )
      .toBe(ids.length);
    return ids.map((id) => {
      const { ip, country, city } = rows.find((r) => r.id === id)!;
      return { ip, country, city };
    });
  }

  it("an event sent from 41.210.145.12 is stored with its /24 and the place of that network: Uganda, Kampala", async () => {
    const ids = await click("41.210.145.12", 3);
    expect(await stored("actions", ids)).toEqual(Array(3).fill({ ip: "41.210.145.0", country: "Uganda", city: "Kampala" }));
  });

  it("IPv6 by its /48, an IPv4-mapped address as the IPv4 one, and 'Unknown' for what the database does not know", async () => {
    const [v6] = await click("2c0f:f6d0:12:3456:789a::1");
    const [mapped] = await click("::ffff:41.210.145.12");
    const [privateIp] = await click("10.1.2.3");
    const [kenyan] = await click("2c0f:fe38::1");
    expect(await stored("actions", [v6!, mapped!, privateIp!, kenyan!])).toEqual([
      { ip: "2c0f:f6d0:12::", country: "Uganda", city: "Kampala" },
      { ip: "41.210.145.0", country: "Uganda", city: "Kampala" },
      { ip: "10.1.2.0", country: "Unknown", city: "Unknown" },
      // A country without a city.
      { ip: "2c0f:fe38::", country: "Kenya", city: "Unknown" },
    ]);
  });

  it("the page view the server records for a page served without JavaScript is placed too", async () => {
    const res = await fetch(`${server.baseUrl}/terms`, { headers: { Accept: "text/html", "User-Agent": ANDROID, "X-Forwarded-For": "41.210.145.12" } });
    expect(res.status).toBe(200);
    const id = /<meta name="soko-pageview" content="([0-9a-f-]{36}) /.exec(await res.text())?.[1];
    expect(id).toBeDefined();
    expect(await stored("pageviews", [id!])).toEqual([{ ip: "41.210.145.0", country: "Uganda", city: "Kampala" }]);
  });
});
