/**
 * The analytics tables (migrations/clickhouse/) on the local ClickHouse (18.16), and the one module that
 * puts values into ClickHouse SQL (app/analytics/clickhouse-sql.server.ts), checked against the server.
 */
import { randomBytes, randomUUID } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { ClickHouseError } from "@clickhouse/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import {
  clickHouseErrorCode,
  clickHouseErrorMessage,
  escapeString,
  identifier,
  insertErrorKind,
  quote,
  quoteList,
  toDateTimeString,
} from "~/analytics/clickhouse-sql.server";
import { TABLES } from "~/analytics/events";
import { getEnv } from "~/server/env.server";
import { migrateClickHouse, splitStatements } from "../../scripts/lib/migrate";

const env = getEnv();
const database = `soko_test_${randomBytes(5).toString("hex")}`;
const admin = createClickHouse(clickHouseOptions(env, "default"));
const migrationsDir = path.resolve(import.meta.dirname, "../../migrations/clickhouse");

async function rows<T>(query: string): Promise<T[]> {
  return (await admin.query({ query, format: "JSONEachRow" })).json<T>();
}

const COMMON = [
  ["event_id", "UUID"],
  ["session_id", "String"],
  ["user_id", "UInt64"],
  ["event_time", "DateTime('UTC')"],
  ["received_at", "DateTime('UTC')"],
  ["platform", "LowCardinality(String)"],
  ["ip", "String"],
  ["country", "LowCardinality(String)"],
  ["city", "String"],
  ["device", "LowCardinality(String)"],
  ["browser", "LowCardinality(String)"],
  ["os", "LowCardinality(String)"],
];

/** Each table's layout: columns in order, then the sorting key. */
const SPEC: Record<string, { columns: string[][]; orderBy: string }> = {
  sessions: {
    columns: [
      ["user_agent", "String"],
      ["screen_resolution", "String"],
      ["timezone", "String"],
    ],
    orderBy: "toStartOfHour(event_time), session_id, event_id",
  },
  pageviews: {
    columns: [
      ["page", "String"],
      ["title", "String"],
      ["url", "String"],
      ["referrer", "String"],
    ],
    orderBy: "toStartOfHour(event_time), page, event_id",
  },
  actions: {
    columns: [
      ["action_type", "LowCardinality(String)"],
      ["page", "String"],
      ["element_id", "String"],
      ["element_class", "String"],
      ["element_tag", "String"],
      ["element_text", "String"],
      ["x", "UInt32"],
      ["y", "UInt32"],
      ["value", "Float64"],
    ],
    orderBy: "toStartOfHour(event_time), page, action_type, event_id",
  },
  errors: {
    columns: [
      ["page", "String"],
      ["message", "String"],
      ["stack", "String"],
    ],
    orderBy: "toStartOfHour(event_time), page, event_id",
  },
  conversions: {
    columns: [
      ["conversion_type", "LowCardinality(String)"],
      ["value", "UInt64"],
      ["metadata", "String"],
    ],
    orderBy: "toStartOfHour(event_time), conversion_type, event_id",
  },
  user_actions: {
    columns: [
      ["action", "String"],
      ["details", "String"],
      ["page", "String"],
    ],
    orderBy: "toStartOfHour(event_time), action, event_id",
  },
};

beforeAll(async () => {
  await migrateClickHouse(clickHouseOptions(env, database));
});

afterAll(async () => {
  await admin.command({ query: `DROP DATABASE IF EXISTS ${database}` });
  await admin.close();
});

describe("ClickHouse analytics schema", () => {
  it("is applied once, and every statement can run again without error (a migration that died half-way)", async () => {
    expect(await migrateClickHouse(clickHouseOptions(env, database))).toEqual([]);
    const applied = await rows<{ name: string }>(`SELECT name FROM ${database}.schema_migrations ORDER BY name`);
    const files = (await fs.readdir(migrationsDir)).filter((f) => f.endsWith(".sql")).sort();
    expect(applied.map((r) => r.name)).toEqual(files);
    for (const file of files) {
      const sql = (await fs.readFile(path.join(migrationsDir, file), "utf8")).replaceAll("{database}", database);
      for (const statement of splitStatements(sql)) {
        await admin.command({ query: statement });
      }
    }
    const tables = await rows<{ name: string }>(`SELECT name FROM system.tables WHERE database = ${quote(database)} ORDER BY name`);
    // The event tables, the pipeline's counters, and the reports' derived tables (003, 005, 006, 007, 008; ADR 018).
    const derived = ["session_hours", "session_days", "page_days", "page_sessions", "page_hours", "click_days", "rollup_builds"];
    expect(tables.map((t) => t.name)).toEqual([...Object.values(TABLES), "pipeline_minutes", "schema_migrations", ...derived].sort());
  });

  it.each(Object.entries(SPEC))("%s has its columns in order, its key, partitions and engine", async (table, spec) => {
    const columns = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.${table}`);
    expect(columns.map((c) => [c.name, c.type])).toEqual([...COMMON, ...spec.columns]);
    const [info] = await rows<{ engine_full: string; partition_key: string; sorting_key: string }>(
      `SELECT engine_full, partition_key, sorting_key FROM system.tables
       WHERE database = ${quote(database)} AND name = ${quote(table)}`,
    );
    expect(info?.engine_full).toMatch(/^ReplacingMergeTree\(received_at\)/);
    expect(info?.partition_key).toBe("toYYYYMM(event_time)");
    expect(info?.sorting_key).toBe(spec.orderBy);
  });

  it("reads an hour of events without reading the rest of its day (004: the key starts with the hour)", async () => {
    // 3 days × 24 hours × 2,000 page views: a day is 48,000 rows (6 granules of 8,192), an hour 2,000. Under
    // the old key (toDate first) the hour's read would read its whole day; max_rows_to_read makes that fail.
    const start = Date.UTC(2026, 10, 20) / 1000;
    await admin.command({
      query: `INSERT INTO ${database}.pageviews (event_id, session_id, event_time, received_at, page)
              SELECT generateUUIDv4(), concat('s-', toString(number % 500)), toDateTime(${start} + intDiv(number * 3600, 2000)),
                     toDateTime(${start}), concat('/gig/', toString(number % 40))
              FROM system.numbers LIMIT 144000`,
    });
    const hour = start + 30 * 3600;
    const read = (extra: string) =>
      rows<{ n: number }>(
        `SELECT count() AS n FROM ${database}.pageviews${extra}
         WHERE event_time >= toDateTime(${hour}) AND event_time < toDateTime(${hour + 3600})
         SETTINGS max_rows_to_read = 20000`,
      );
    expect(await read("")).toEqual([{ n: 2000 }]);
    expect(await read(" FINAL")).toEqual([{ n: 2000 }]);
    // The same read of a whole day is refused: the setting does bound what is read.
    await expect(
      rows(
        `SELECT count() AS n FROM ${database}.pageviews WHERE event_time >= toDateTime(${start}) AND event_time < toDateTime(${start + 86400}) SETTINGS max_rows_to_read = 20000`,
      ),
    ).rejects.toThrow(/Limit for rows|too many rows|TOO_MANY_ROWS/i);
  });

  it("click_days holds the heatmap's cells per page and device (005)", async () => {
    const columns = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.click_days`);
    expect(columns.map((c) => [c.name, c.type])).toEqual([
      ["day", "Date"],
      ["version", "UInt64"],
      ["page", "String"],
      ["device", "String"],
      ["cell_col", "UInt8"],
      ["cell_row", "UInt8"],
      ["unplaced", "UInt8"],
      ["clicks", "UInt64"],
    ]);
  });

  it("page_hours holds each page's views and sessions per hour, ordered by page (006)", async () => {
    const columns = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.page_hours`);
    expect(columns.map((c) => [c.name, c.type])).toEqual([
      ["day", "Date"],
      ["version", "UInt64"],
      ["hour", "DateTime('UTC')"],
      ["page", "String"],
      ["views", "UInt64"],
      ["sessions", "AggregateFunction(uniq, String)"],
    ]);
    const [info] = await rows<{ sorting_key: string }>(`SELECT sorting_key FROM system.tables WHERE database = ${quote(database)} AND name = 'page_hours'`);
    expect(info?.sorting_key).toBe("page, hour");
  });

  it("session_days holds each build's sessions whole, and session_hours' key starts with whether a session is confined (007)", async () => {
    const columns = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.session_days`);
    expect(columns.map((c) => [c.name, c.type])).toEqual([
      ["day", "Date"],
      ["version", "UInt64"],
      ["session_id", "String"],
      ["first_hour", "DateTime('UTC')"],
      ["last_hour", "DateTime('UTC')"],
      ["confined", "UInt8"],
      ["active", "UInt8"],
      ["pageview_count", "UInt64"],
      ["interaction_count", "UInt64"],
      ["duration", "UInt32"],
      ["session_device", "String"],
      ["session_country", "String"],
      ["session_browser", "String"],
      ["session_source", "String"],
      ["gig_view", "UInt8"],
      ["continued", "UInt8"],
      ["converted", "UInt8"],
    ]);
    const keys = await rows<{ name: string; sorting_key: string }>(
      `SELECT name, sorting_key FROM system.tables WHERE database = ${quote(database)} AND name IN ('session_days', 'session_hours') ORDER BY name`,
    );
    expect(keys).toEqual([
      { name: "session_days", sorting_key: "confined, first_hour, session_id" },
      { name: "session_hours", sorting_key: "confined, hour, session_id, user_id" },
    ]);
    const pieces = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.session_hours`);
    expect(pieces.at(-1)).toMatchObject({ name: "confined", type: "UInt8" });
  });

  it("page_days counts each page's confined sessions apart from the others' state, and page_sessions names their pages (008)", async () => {
    const days = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.page_days`);
    expect(days.map((c) => [c.name, c.type])).toEqual([
      ["day", "Date"],
      ["version", "UInt64"],
      ["page", "String"],
      ["views", "UInt64"],
      ["confined_sessions", "UInt64"],
      ["open_sessions", "AggregateFunction(uniq, String)"],
    ]);
    const sessions = await rows<{ name: string; type: string }>(`DESCRIBE TABLE ${database}.page_sessions`);
    expect(sessions.map((c) => [c.name, c.type])).toEqual([
      ["day", "Date"],
      ["version", "UInt64"],
      ["session_id", "String"],
      ["page", "String"],
    ]);
    const keys = await rows<{ name: string; sorting_key: string; partition_key: string }>(
      `SELECT name, sorting_key, partition_key FROM system.tables WHERE database = ${quote(database)} AND name IN ('page_days', 'page_sessions') ORDER BY name`,
    );
    expect(keys).toEqual([
      { name: "page_days", sorting_key: "page", partition_key: "(day, version)" },
      { name: "page_sessions", sorting_key: "session_id, page", partition_key: "(day, version)" },
    ]);
  });

  it.each(Object.keys(SPEC))("%s keeps one row per re-sent event under FINAL: the one received last", async (table) => {
    const eventId = randomUUID();
    const other = randomUUID();
    const row = (received: string, sessionId: string, platform: string) => ({
      event_id: eventId,
      session_id: sessionId,
      event_time: "2026-11-20 10:00:00",
      received_at: received,
      platform,
      page: "/gigs",
      action_type: "click",
      conversion_type: "signup",
      action: "search",
    });
    const insert = async (values: Record<string, unknown>[]) => {
      const columns = new Set(SPEC[table]!.columns.map((c) => c[0]));
      const trimmed = values.map((v) => Object.fromEntries(Object.entries(v).filter(([k]) => columns.has(k) || COMMON.some((c) => c[0] === k))));
      await admin.insert({ table: `${database}.${table}`, values: trimmed, format: "JSONEachRow" });
    };
    // The server's page view without JavaScript, then the tracker re-sending it (another insert, a later time,
    // its own session and platform). Only sessions have session_id in their key: a session is re-sent as itself.
    const resentSession = table === "sessions" ? "1763632800000-0a1b2c3d4e5f" : "1763632800000-k3j9x2";
    await insert([row("2026-11-20 10:00:01", "1763632800000-0a1b2c3d4e5f", "web-nojs")]);
    await insert([row("2026-11-20 10:00:05", resentSession, "web"), { ...row("2026-11-20 10:00:02", "s-2", "web"), event_id: other }]);
    const where = `event_id IN (${quote(eventId)}, ${quote(other)})`;
    const kept = await rows<{ event_id: string; platform: string; received_at: string }>(
      `SELECT toString(event_id) AS event_id, platform, toString(received_at) AS received_at
       FROM ${database}.${table} FINAL WHERE ${where} ORDER BY received_at`,
    );
    expect(kept).toEqual([
      { event_id: other, platform: "web", received_at: "2026-11-20 10:00:02" },
      { event_id: eventId, platform: "web", received_at: "2026-11-20 10:00:05" },
    ]);
    const [counts] = await rows<{ n: number; exact: number }>(`SELECT count() AS n, uniqExact(event_id) AS exact FROM ${database}.${table} WHERE ${where}`);
    // Without FINAL both copies may still be there until a merge; uniqExact counts the event once either way.
    expect(counts).toMatchObject({ exact: 2 });
    await admin.command({ query: `OPTIMIZE TABLE ${database}.${table} FINAL` });
    const [merged] = await rows<{ n: number }>(`SELECT count() AS n FROM ${database}.${table} WHERE ${where}`);
    expect(merged?.n).toBe(2);
  });
});

describe("clickhouse-sql: values into SQL for 18.16 (no query parameters)", () => {
  const nasty = [
    "",
    "plain",
    "O'Brien",
    "it\\'s",
    "back\\slash\\",
    "line\nbreak\r\ttab",
    "nul\0byte\x01\x1f\x7f",
    "'; DROP DATABASE default; --",
    "\\'; SELECT 1 --",
    "Kampala é ü 😀 ̈",
    "{name:String}",
  ];

  it.each(nasty.map((s) => [JSON.stringify(s), s]))("quote(%s) reads back unchanged from the server", async (_, value) => {
    const [row] = await rows<{ v: string; l: number }>(`SELECT ${quote(value)} AS v, length(${quote(value)}) AS l`);
    expect(row?.v).toBe(value);
    expect(row?.l).toBe(Buffer.byteLength(value));
  });

  it("quotes numbers, booleans, dates, null and lists as ClickHouse literals, and refuses what it cannot", async () => {
    const date = new Date("2026-11-20T10:11:12.999Z");
    const [row] = await rows<Record<string, unknown>>(
      `SELECT ${quote(42)} AS int, ${quote(-1.5)} AS float, ${quote(12345678901234567890n)} AS big, ${quote(true)} AS yes,
              toString(${quote(date)}) AS at, isNull(${quote(null)}) AS nil, ${quote(["a'", "b"])} AS arr,
              2 IN ${quoteList([1, 2])} AS hit, 'x' IN ${quoteList([])} AS miss`,
    );
    expect(row).toEqual({
      int: 42,
      float: -1.5,
      big: Number(12345678901234567890n), // JSON reads the UInt64 back as a double
      yes: 1,
      at: "2026-11-20 10:11:12",
      nil: 1,
      arr: ["a'", "b"],
      hit: 1,
      miss: 0,
    });
    expect(() => quote(Number.NaN)).toThrow(/NaN/);
    expect(() => quote(Number.POSITIVE_INFINITY)).toThrow();
    expect(() => quote(new Date("nope"))).toThrow(/invalid date/);
    expect(escapeString("a'b\\c")).toBe("a\\'b\\\\c");
  });

  it("lets only plain names through as identifiers", () => {
    expect(identifier("soko_test_1")).toBe("soko_test_1");
    for (const bad of ["", "1abc", "a b", "a;DROP", "a.b", "`a`", "a'"]) expect(() => identifier(bad)).toThrow(/identifier/);
  });

  it("writes DateTime values as UTC seconds from ISO strings, milliseconds and dates; null for non-dates", () => {
    expect(toDateTimeString("2026-11-20T13:11:12.345+03:00")).toBe("2026-11-20 10:11:12");
    expect(toDateTimeString(0)).toBe("1970-01-01 00:00:00");
    expect(toDateTimeString(new Date(Date.UTC(2026, 0, 2, 3, 4, 5)))).toBe("2026-01-02 03:04:05");
    expect(toDateTimeString("yesterday")).toBeNull();
    expect(toDateTimeString(Number.NaN)).toBeNull();
  });

  it("reads error codes from 18.16's messages and current servers' errors, and tells data errors from outages", async () => {
    // The real server (18.16): values it cannot parse, and a table that is not there.
    const scratch = `${database}.scratch`;
    await admin.command({ query: `CREATE TABLE ${scratch} (id UUID, at DateTime('UTC')) ENGINE = MergeTree ORDER BY id` });
    const badUuid = await admin.insert({ table: scratch, values: [{ id: "not-a-uuid", at: "2026-11-20 10:00:00" }], format: "JSONEachRow" }).then(
      () => null,
      (e: unknown) => e,
    );
    // 18.16 says 27 (a parse assertion) or 376 (CANNOT_PARSE_UUID) depending on the string's length.
    expect([27, 376]).toContain(clickHouseErrorCode(badUuid));
    expect(insertErrorKind(badUuid)).toBe("data");
    expect(clickHouseErrorMessage(badUuid)).toMatch(/^Code: (27|376), .*key id/);
    expect(clickHouseErrorMessage(badUuid)).not.toMatch(/e\.what\(\)/);
    const badDate = await admin.insert({ table: scratch, values: [{ id: randomUUID(), at: "the day after tomorrow" }], format: "JSONEachRow" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(insertErrorKind(badDate)).toBe("data");
    const noTable = await admin.insert({ table: `${database}.not_migrated_yet`, values: [{ id: randomUUID() }], format: "JSONEachRow" }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(clickHouseErrorCode(noTable)).toBe(60);
    expect(insertErrorKind(noTable)).toBe("retry");

    // Nothing listening: the network, so retry.
    const down = createClickHouse({ url: "http://127.0.0.1:9", database: "default" });
    const unreachable = await down.insert({ table: "t", values: [{ a: 1 }], format: "JSONEachRow" }).then(
      () => null,
      (e: unknown) => e,
    );
    await down.close();
    expect(clickHouseErrorCode(unreachable)).toBeNull();
    expect(insertErrorKind(unreachable)).toBe("retry");

    // A current server's error as @clickhouse/client builds it (code as a string, type from the message).
    const current = new ClickHouseError({
      message: "Cannot parse input: expected '\"' before: 'x'",
      code: "27",
      type: "CANNOT_PARSE_INPUT_ASSERTION_FAILED",
    });
    expect(clickHouseErrorCode(current)).toBe(27);
    expect(insertErrorKind(current)).toBe("data");
    expect(insertErrorKind(new ClickHouseError({ message: "Too many parts", code: "252", type: "TOO_MANY_PARTS" }))).toBe("retry");
    expect(clickHouseErrorCode(new Error("Code: 241. DB::Exception: Memory limit (MEMORY_LIMIT_EXCEEDED)"))).toBe(241);
    expect(clickHouseErrorCode("Code: 27")).toBeNull();
  });
});
