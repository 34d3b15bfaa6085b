/**
 * For the backup test: a marketplace with money in every state, messages, stored files and analytics rows,
 * made through the real operations; and a snapshot of everything the three services hold, to compare after
 * a restore.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { ClickHouseClient } from "@clickhouse/client";
import knex from "knex";
import { expect } from "vitest";
import { buildRollups } from "~/analytics/rollups.server";
import { resolveDispute } from "~/operations/disputes.server";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { cancelOrder, deliverOrder, openDispute, runOrderTimers } from "~/operations/orders.server";
import { requestWithdrawal } from "~/operations/payments.server";
import { storeMessageFiles } from "~/server/files/message-files.server";
import { loadSharp, saveImage } from "~/server/files/storage.server";
import { rowsOf } from "../../worker/ingest-rows.server";
import { queuedEvent } from "./analytics-events";
import type { TestUser } from "./factories";
import { DAY_MS } from "./order-checks";
import { completedTestOrder, memberActor, opts, paidTestOrder, placeTestOrder, system, type OrderTestContext } from "./orders";

type World = OrderTestContext & { seller: TestUser; buyer: TestUser; admin: TestUser; gigId: number };

const png = async (colour: string) =>
  (await loadSharp())({ create: { width: 24, height: 16, channels: 3, background: colour } })
    .png()
    .toBuffer();

/**
 * Orders in every state the money can be in: awaiting payment, given up unpaid, paid and in progress,
 * delivered, completed and cleared with a withdrawal on its way, cancelled by agreement with the refund sent,
 * disputed and open, disputed and split by an admin. A conversation with a file, and a gig image.
 */
export async function makeMarketplace(t: World) {
  const ok = (r: { ok: boolean }) => expect(r, JSON.stringify(r)).toMatchObject({ ok: true });
  await placeTestOrder(t, t.buyer, t.gigId);
  const abandoned = await placeTestOrder(t, t.buyer, t.gigId);
  ok(await cancelOrder(memberActor(t.buyer), { orderId: abandoned.orderId, reason: "Changed my mind" }, opts(t)));
  await paidTestOrder(t, t.buyer, t.gigId);
  await completedTestOrder(t, t.buyer, t.seller, t.gigId);
  ok(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * DAY_MS) }));
  // Delivered after the timers ran, so it waits for the buyer's answer.
  const delivered = await paidTestOrder(t, t.buyer, t.gigId);
  ok(await deliverOrder(memberActor(t.seller), { orderId: delivered.orderId, message: "First draft" }, opts(t)));
  ok(await requestWithdrawal(memberActor(t.seller), { amountUgx: 50_000, requestKey: "backup-test-withdrawal" }, opts(t)));
  const cancelled = await paidTestOrder(t, t.buyer, t.gigId);
  ok(await cancelOrder(memberActor(t.seller), { orderId: cancelled.orderId, reason: "I am travelling" }, opts(t)));
  ok(await cancelOrder(memberActor(t.buyer), { orderId: cancelled.orderId, reason: "Agreed" }, opts(t)));
  const disputed = await paidTestOrder(t, t.buyer, t.gigId);
  ok(await openDispute(memberActor(t.buyer), { orderId: disputed.orderId, reason: "Nothing arrived" }, opts(t)));
  const split = await paidTestOrder(t, t.buyer, t.gigId);
  ok(await openDispute(memberActor(t.seller), { orderId: split.orderId, reason: "Asked for more than the package" }, opts(t)));
  ok(await resolveDispute(memberActor(t.admin), { orderId: split.orderId, resolution: "split", refundUgx: 40_000, note: "Half done" }, opts(t)));

  const started = await startConversation(memberActor(t.buyer), { orderId: disputed.orderId }, { db: t.db });
  if (!started.ok) throw new Error(JSON.stringify(started));
  const conversationId = started.value.conversationId;
  ok(await sendMessage(memberActor(t.buyer), { conversationId, body: "Where is my logo?" }, { db: t.db }));
  const attachments = await storeMessageFiles([{ name: "draft.png", bytes: new Uint8Array(await png("#1a7f37")) }], { userId: t.seller.id, db: t.db });
  ok(await sendMessage(memberActor(t.seller), { conversationId, body: "Here is the draft", attachments }, { db: t.db }));
  await saveImage(await png("#d4a017"), ["thumb", "small"]);
}

/** Analytics events of every kind over three days (one sent twice, as a retry does), and their derived tables built. */
export async function makeAnalytics(clickhouse: ClickHouseClient) {
  const events = [];
  for (let day = 18; day <= 20; day++) {
    const at = (h: number) => ({
      event_time: `2026-11-${day}T${String(h).padStart(2, "0")}:11:12.000Z`,
      received_at: `2026-11-${day}T${String(h).padStart(2, "0")}:11:13.000Z`,
    });
    events.push(queuedEvent("session", at(9)), queuedEvent("pageview", at(10)), queuedEvent("pageview", { ...at(11), page: "/gigs/13", title: "Tab\there" }));
    events.push(queuedEvent("action", { ...at(12), value: 0.1, element_text: "Continue\nnow ü" }), queuedEvent("error", at(12)));
    events.push(queuedEvent("conversion", at(13)), queuedEvent("user_action", at(14)));
  }
  events.push(events[1]!);
  for (const [table, rows] of rowsOf(events, () => ({ country: "UG", city: "Kampala" }))) {
    await clickhouse.insert({ table, values: rows, format: "JSONEachRow" });
  }
  const round = await buildRollups(clickhouse, { now: new Date("2026-11-21T12:00:00Z") });
  expect(round.built.length).toBe(3);
}

/** Every row of every table (as JSON text, sorted) and every sequence's position. */
export async function postgresSnapshot(url: string) {
  const db = knex({ client: "pg", connection: url, pool: { min: 0, max: 1 } });
  try {
    const tables: string[] = await db("pg_tables").where({ schemaname: "public" }).orderBy("tablename").pluck("tablename");
    const rows: Record<string, string[]> = {};
    for (const table of tables)
      rows[table] = (await db.raw(`SELECT row_to_json(t)::text AS r FROM ?? t ORDER BY 1`, [table])).rows.map((r: { r: string }) => r.r);
    const sequences = (await db.raw(`SELECT sequencename, last_value FROM pg_sequences WHERE schemaname = 'public' ORDER BY 1`)).rows;
    return { rows, sequences };
  } finally {
    await db.destroy();
  }
}

/** Every row of every table of a ClickHouse database, as TabSeparated lines, sorted. */
export async function clickHouseSnapshot(clickhouse: ClickHouseClient, database: string) {
  const tables = await (
    await clickhouse.query({ query: `SELECT name FROM system.tables WHERE database = '${database}' ORDER BY name`, format: "JSONEachRow" })
  ).json<{
    name: string;
  }>();
  const rows: Record<string, string[]> = {};
  for (const { name } of tables) {
    const text = await (await clickhouse.query({ query: `SELECT * FROM ${database}.${name}`, format: "TabSeparated" })).text();
    rows[name] = text.split("\n").filter(Boolean).sort();
  }
  return rows;
}

/** Every file under `dir` by its path inside it, with its sha256. */
export function filesSnapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    const full = path.join(dir, rel);
    if (!fs.existsSync(full)) return;
    for (const entry of fs.readdirSync(full, { withFileTypes: true })) {
      const child = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.isDirectory()) walk(child);
      else
        out[child] = createHash("sha256")
          .update(fs.readFileSync(path.join(dir, child)))
          .digest("hex");
    }
  };
  walk("");
  return out;
}
