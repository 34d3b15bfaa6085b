/**
 * The worker's hourly housekeeping: uploads no gig or profile uses after a day, with their files; the
 * requirement files of checkouts never paid, a day after they were given up; files no row names (images,
 * attachments of messages gone), a day old; expired sessions; reset links spent more than a day ago. The work is tested directly against a real database and a temporary upload directory, and the worker
 * process is tested to register the schedule (once, however often it starts) and run it.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Queue } from "bullmq";
import { Redis } from "ioredis";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEnv } from "~/server/env.server";
import { HOUSEKEEPING_EVERY_MS, HOUSEKEEPING_QUEUE, HOUSEKEEPING_SCHEDULER, startHousekeeping } from "../../worker/housekeeping-job.server";
import { systemActor } from "~/operations/core.server";
import { runHousekeeping as housekeepingOperation } from "~/operations/housekeeping.server";
import { startEffects } from "../../worker/effects-runner.server";
import { startTsx, waitUntil } from "../../scripts/lib/servers";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createUser } from "../support/factories";

const HOUR = 60 * 60_000;
const DAY = 24 * HOUR;

let t: TestDatabase;
let dir: string;
let ownerId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  ({ id: ownerId } = await createUser(t.db, { role: "freelancer", name: "Test Seller", email: "seller@example.ug" }));
});
afterAll(async () => {
  await t?.drop();
});
beforeEach(async () => {
  await t.db.raw("TRUNCATE uploads, gig_images, gigs, orders, conversations CASCADE");
  await t.db("effects").delete();
  await t.db("users").update({ avatar_key: null });
  await t.db("sessions").delete();
  await t.db("password_resets").delete();
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-housekeeping-"));
  return () => fs.rmSync(dir, { recursive: true, force: true });
});

const ago = (ms: number) => new Date(Date.now() - ms);

/** Writes the files of an image (as saveImage names them), last modified `age` ago. */
function writeImage(key: string, sizes: string[], age: number) {
  for (const size of sizes) {
    const file = path.join(dir, `${key}-${size}.webp`);
    fs.writeFileSync(file, "webp");
    fs.utimesSync(file, ago(age), ago(age));
  }
}
const files = () => fs.readdirSync(dir).sort();
const filesOf = (key: string) => files().filter((name) => name.startsWith(key));

async function upload(age: number, key = randomUUID()) {
  await t.db("uploads").insert({ storage_key: key, owner_id: ownerId, created_at: ago(age) });
  writeImage(key, ["thumb", "large"], age);
  return key;
}

/** A draft gig of the owner's with this image (the model takes only the owner's uploads: one is recorded if missing). */
async function gigWithImage(key: string) {
  await createGig(t.db, { sellerId: ownerId, title: "A gig", status: "draft", packages: {}, images: [key] });
}

/** The operation as the worker runs it: the platform acting, against this test's database. */
async function runHousekeeping({ db, uploadDir, now }: { db: TestDatabase["db"]; uploadDir: string; now?: Date }) {
  const result = await housekeepingOperation(systemActor("test"), { uploadDir, now }, { db });
  if (!result.ok) throw new Error(`housekeeping refused: ${result.error}`);
  return result.value;
}

describe("runHousekeeping", () => {
  it("is the platform's alone", async () => {
    const member = { kind: "anonymous" as const, client: { ip: "", userAgent: "", analyticsConsent: false, tabSessionId: null } };
    expect(await housekeepingOperation(member, { uploadDir: os.tmpdir() }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
  });

  it("removes an upload nothing uses after a day, row and files; keeps newer ones and those a gig or profile uses", async () => {
    const unused = await upload(2 * DAY);
    const fresh = await upload(2 * HOUR);
    const onGig = await upload(30 * DAY);
    await gigWithImage(onGig);
    const asAvatar = await upload(3 * DAY);
    await t.db("users").where({ id: ownerId }).update({ avatar_key: asAvatar });

    const result = await runHousekeeping({ db: t.db, uploadDir: dir });

    expect(result.uploads).toBe(1);
    expect((await t.db("uploads").pluck("storage_key")).sort()).toEqual([fresh, onGig, asAvatar].sort());
    expect(filesOf(unused)).toEqual([]);
    for (const key of [fresh, onGig, asAvatar]) expect(filesOf(key)).toHaveLength(2);
  });

  it("removes files more than a day old that no row names; keeps newer ones, named ones and files not ours", async () => {
    const crashed = randomUUID(); // written, then the process died before recording it
    writeImage(crashed, ["thumb", "large"], 2 * DAY);
    const justWritten = randomUUID(); // being saved right now
    writeImage(justWritten, ["thumb"], 60_000);
    const avatar = randomUUID(); // profile pictures have no uploads row: the user's row names them
    writeImage(avatar, ["avatar"], 90 * DAY);
    await t.db("users").where({ id: ownerId }).update({ avatar_key: avatar });
    const gigImage = randomUUID(); // a gig's image whose uploads row is gone
    writeImage(gigImage, ["thumb", "large"], 90 * DAY);
    await gigWithImage(gigImage);
    await t.db("uploads").where({ storage_key: gigImage }).delete();
    const recorded = await upload(2 * HOUR, randomUUID());
    fs.writeFileSync(path.join(dir, "README.txt"), "not an image of ours");
    fs.utimesSync(path.join(dir, "README.txt"), ago(9 * DAY), ago(9 * DAY));

    const result = await runHousekeeping({ db: t.db, uploadDir: dir });

    expect(result.strayFiles).toBe(2);
    expect(filesOf(crashed)).toEqual([]);
    expect(files()).toEqual(
      [
        "README.txt",
        `${justWritten}-thumb.webp`,
        `${avatar}-avatar.webp`,
        `${gigImage}-thumb.webp`,
        `${gigImage}-large.webp`,
        `${recorded}-thumb.webp`,
        `${recorded}-large.webp`,
      ].sort(),
    );
  });

  it("deletes expired sessions and keeps live ones", async () => {
    await t.db("sessions").insert([
      { id: "expired-a", user_id: ownerId, expires_at: ago(60_000) },
      { id: "expired-b", user_id: ownerId, expires_at: ago(40 * DAY), persistent: true },
      { id: "live", user_id: ownerId, expires_at: ago(-HOUR) },
    ]);
    const result = await runHousekeeping({ db: t.db, uploadDir: dir });
    expect(result.sessions).toBe(2);
    expect(await t.db("sessions").pluck("id")).toEqual(["live"]);
  });

  it("deletes reset links that expired or were used more than a day ago, and keeps the rest", async () => {
    await t.db("password_resets").insert([
      { id: "expired-long-ago", user_id: ownerId, expires_at: ago(2 * DAY) },
      { id: "used-long-ago", user_id: ownerId, expires_at: ago(-HOUR), used_at: ago(2 * DAY) },
      { id: "expired-just-now", user_id: ownerId, expires_at: ago(HOUR) },
      { id: "used-just-now", user_id: ownerId, expires_at: ago(-HOUR), used_at: ago(HOUR) },
      { id: "waiting", user_id: ownerId, expires_at: ago(-HOUR) },
    ]);
    const result = await runHousekeeping({ db: t.db, uploadDir: dir });
    expect(result.passwordResets).toBe(2);
    expect((await t.db("password_resets").pluck("id")).sort()).toEqual(["expired-just-now", "used-just-now", "waiting"]);
  });

  it("deletes effects carried out more than a day ago (a conversion's payload holds an address), and keeps the rest", async () => {
    await t.db("effects").delete();
    await t.db("effects").insert([
      { kind: "delete_image", payload: JSON.stringify({ key: "done-long-ago" }), done_at: ago(2 * DAY) },
      { kind: "delete_image", payload: JSON.stringify({ key: "done-just-now" }), done_at: ago(HOUR) },
      { kind: "delete_image", payload: JSON.stringify({ key: "given-up" }), failed_at: ago(2 * DAY) },
      { kind: "delete_image", payload: JSON.stringify({ key: "waiting" }) },
    ]);
    const result = await runHousekeeping({ db: t.db, uploadDir: dir });
    expect(result.effects).toBe(1);
    expect((await t.db("effects").pluck("payload")).map((p: { key: string }) => p.key).sort()).toEqual(["done-just-now", "given-up", "waiting"]);
    await t.db("effects").delete();
  });

  it("a second round finds nothing more, and a missing upload directory is no error", async () => {
    await upload(2 * DAY);
    await t.db("sessions").insert({ id: "expired", user_id: ownerId, expires_at: ago(60_000) });
    expect(await runHousekeeping({ db: t.db, uploadDir: dir })).toEqual({
      uploads: 1,
      unpaidOrderFiles: 0,
      strayFiles: 0,
      sessions: 1,
      passwordResets: 0,
      effects: 0,
      idempotencyKeys: 0,
    });
    expect(await runHousekeeping({ db: t.db, uploadDir: dir })).toEqual({
      uploads: 0,
      unpaidOrderFiles: 0,
      strayFiles: 0,
      sessions: 0,
      passwordResets: 0,
      effects: 0,
      idempotencyKeys: 0,
    });
    expect(await runHousekeeping({ db: t.db, uploadDir: path.join(dir, "never-made") })).toEqual({
      uploads: 0,
      unpaidOrderFiles: 0,
      strayFiles: 0,
      sessions: 0,
      passwordResets: 0,
      effects: 0,
      idempotencyKeys: 0,
    });
  });
});

describe("files of checkouts never paid, and attachments no message names", () => {
  let buyerId: number;
  beforeAll(async () => {
    ({ id: buyerId } = await createUser(t.db, { role: "client", name: "Test Buyer", email: "buyer@example.ug" }));
  });

  /** An order of the owner's gig as the state machine leaves it, made `age` ago. */
  async function order(status: "pending_payment" | "in_progress" | "cancelled", age: number, { paid = false, cancelledAge = age } = {}) {
    const [row] = await t.db("orders").insert(
      {
        buyer_id: buyerId,
        seller_id: ownerId,
        gig_title: "A logo",
        tier: "basic",
        package_name: "Basic",
        price_ugx: 100_000,
        buyer_fee_ugx: 3_000,
        seller_fee_ugx: 10_000,
        ugx_per_usd: 3700,
        delivery_days: 3,
        revisions_allowed: 1,
        requirements: "A green logo",
        status,
        checkout_key: randomUUID(),
        created_at: ago(age),
        updated_at: ago(age),
        paid_at: paid ? ago(age - 60_000) : null,
        cancelled_at: status === "cancelled" ? ago(cancelledAge) : null,
      },
      ["id"],
    );
    return Number(row.id);
  }

  /** A stored file (UPLOAD_DIR/order-files/<key>), last modified `age` ago. */
  function storedFile(age: number, key = randomUUID()) {
    fs.mkdirSync(path.join(dir, "order-files"), { recursive: true });
    const file = path.join(dir, "order-files", key);
    fs.writeFileSync(file, "%PDF-1.4 requirements");
    fs.utimesSync(file, ago(age), ago(age));
    return key;
  }
  const stored = (key: string) => fs.existsSync(path.join(dir, "order-files", key));

  /** A requirement file of the order, row and file, written when the order was placed. */
  async function requirementFile(orderId: number, age: number) {
    const key = storedFile(age);
    await t
      .db("order_files")
      .insert({ order_id: orderId, uploader_id: buyerId, storage_key: key, file_name: "brief.pdf", content_type: "application/pdf", size_bytes: 21 });
    return key;
  }

  /** The worker's effects, run against this test's database and upload directory until `done`. */
  async function carryOutEffects(done: () => boolean) {
    const worker = startEffects(parseEnv({ ...process.env, UPLOAD_DIR: dir }), { db: t.db, pollMs: 25 });
    try {
      await expect.poll(done, { timeout: 5_000 }).toBe(true);
    } finally {
      await worker.close();
    }
  }

  it("removes a day-old unpaid checkout's requirement files, rows then files (delete_file effects); keeps younger and paid ones", async () => {
    const cancelledLongAgo = await requirementFile(await order("cancelled", 2 * DAY), 2 * DAY);
    const neverPaid = await requirementFile(await order("pending_payment", 2 * DAY), 2 * DAY); // the payment poll never cancelled it
    const cancelledToday = await requirementFile(await order("cancelled", 3 * HOUR), 3 * HOUR);
    const stillPaying = await requirementFile(await order("pending_payment", 10 * 60_000), 10 * 60_000);
    const paidThenCancelled = await requirementFile(await order("cancelled", 5 * DAY, { paid: true, cancelledAge: 3 * DAY }), 5 * DAY);
    const inProgress = await requirementFile(await order("in_progress", 5 * DAY, { paid: true }), 5 * DAY);

    const result = await runHousekeeping({ db: t.db, uploadDir: dir });

    expect(result.unpaidOrderFiles).toBe(2);
    expect((await t.db("order_files").pluck("storage_key")).sort()).toEqual([cancelledToday, stillPaying, paidThenCancelled, inProgress].sort());
    expect((await t.db("effects").where({ kind: "delete_file" }).pluck("payload")).map((p: { key: string }) => p.key).sort()).toEqual(
      [cancelledLongAgo, neverPaid].sort(),
    );
    await carryOutEffects(() => !stored(cancelledLongAgo) && !stored(neverPaid));
    for (const key of [cancelledToday, stillPaying, paidThenCancelled, inProgress]) expect(stored(key), key).toBe(true);
    // The orders themselves stay, with their history.
    expect(await t.db("orders").pluck("id")).toHaveLength(6);
  });

  it("removes a deleted message's attachment a day old that no row names; keeps a younger one and those a message or order names", async () => {
    const conversationId = `conv_${randomUUID().replace(/-/g, "").slice(0, 16)}`;
    await t.db("conversations").insert({ id: conversationId, pair_key: `${Math.min(ownerId, buyerId)}:${Math.max(ownerId, buyerId)}` });
    const [message] = await t.db("messages").insert({ conversation_id: conversationId, sender_id: buyerId, body: "The brief", message_type: "file" }, ["id"]);
    const kept = storedFile(3 * DAY);
    await t
      .db("message_attachments")
      .insert({ message_id: message.id, storage_key: kept, file_name: "brief.pdf", content_type: "application/pdf", size_bytes: 21 });
    const deleted = storedFile(3 * DAY);
    await t
      .db("message_attachments")
      .insert({ message_id: message.id, storage_key: deleted, file_name: "old.pdf", content_type: "application/pdf", size_bytes: 21 });
    // The message goes without its files' effects (a row removed by a cascade, a crash, an effect given up).
    await t.db("message_attachments").where({ storage_key: deleted }).delete();
    const refusedSend = storedFile(2 * DAY); // written, then the message was refused and the process died before removing it
    const sending = storedFile(60_000); // being sent right now: its message row is not there yet
    const orderFile = await requirementFile(await order("in_progress", 3 * DAY, { paid: true }), 3 * DAY);
    fs.writeFileSync(path.join(dir, "order-files", "notes.txt"), "not a file of ours");
    fs.utimesSync(path.join(dir, "order-files", "notes.txt"), ago(9 * DAY), ago(9 * DAY));

    const result = await runHousekeeping({ db: t.db, uploadDir: dir });

    expect(result.strayFiles).toBe(2);
    expect(stored(deleted)).toBe(false);
    expect(stored(refusedSend)).toBe(false);
    for (const key of [kept, sending, orderFile, "notes.txt"]) expect(stored(key), key).toBe(true);
    expect(await t.db("message_attachments").pluck("storage_key")).toEqual([kept]);
  });
});

describe("the schedule", () => {
  const env = (prefix: string) => parseEnv({ ...process.env, QUEUE_PREFIX: prefix, DATABASE_URL: t.url });

  async function schedulers(prefix: string) {
    const redis = new Redis(env(prefix).REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(HOUSEKEEPING_QUEUE, { connection: redis, prefix });
    try {
      return (await queue.getJobSchedulers()).map((s) => ({ id: s.key, every: s.every }));
    } finally {
      await queue.close();
      redis.disconnect();
    }
  }

  async function forget(prefix: string) {
    const redis = new Redis(env(prefix).REDIS_URL, { maxRetriesPerRequest: null });
    const queue = new Queue(HOUSEKEEPING_QUEUE, { connection: redis, prefix });
    await queue.obliterate({ force: true });
    await queue.close();
    redis.disconnect();
  }

  async function until(check: () => Promise<boolean>, what: string, ms = 20_000) {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  it("is registered once, however often it starts, and its first round runs at once", async () => {
    const prefix = `hk_${process.pid}_${Date.now()}`;
    const unused = await upload(2 * DAY);
    const redis = new Redis(env(prefix).REDIS_URL, { maxRetriesPerRequest: null });
    const first = await startHousekeeping(env(prefix), redis, { db: t.db, uploadDir: dir });
    const second = await startHousekeeping(env(prefix), redis, { db: t.db, uploadDir: dir });
    try {
      expect(await schedulers(prefix)).toEqual([{ id: HOUSEKEEPING_SCHEDULER, every: HOUSEKEEPING_EVERY_MS }]);
      expect(HOUSEKEEPING_EVERY_MS).toBe(HOUR);
      await until(async () => (await t.db("uploads").where({ storage_key: unused }).first()) === undefined, "the first round");
      expect(filesOf(unused)).toEqual([]);
    } finally {
      await first.close();
      await second.close();
      redis.disconnect();
      await forget(prefix);
    }
  });

  it("the worker process registers it and runs it, then stops cleanly", async () => {
    const prefix = `hkw_${process.pid}_${Date.now()}`;
    const unused = await upload(2 * DAY);
    await t.db("sessions").insert({ id: "expired", user_id: ownerId, expires_at: ago(60_000) });
    const worker = startTsx("worker", ["worker/index.ts"], { QUEUE_PREFIX: prefix, DATABASE_URL: t.url, UPLOAD_DIR: dir });
    try {
      await waitUntil(worker, () => worker.output().includes("[housekeeping] removed"), "the worker's first round", 20_000);
      expect(worker.output()).toContain("[housekeeping] removed 1 unused uploads, 1 expired sessions");
      expect(await t.db("uploads").where({ storage_key: unused }).first()).toBeUndefined();
      expect(filesOf(unused)).toEqual([]);
      expect(await t.db("sessions").pluck("id")).toEqual([]);
      expect(await schedulers(prefix)).toEqual([{ id: HOUSEKEEPING_SCHEDULER, every: HOUSEKEEPING_EVERY_MS }]);
    } finally {
      worker.child.kill("SIGTERM");
      expect(await worker.exit).toBe(0);
      await forget(prefix);
    }
  }, 40_000);
});
