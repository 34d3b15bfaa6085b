import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { listCategories } from "~/models/category.server";
import { listConversations } from "~/models/conversation.server";
import { balanceOf, escrow, memberBalances } from "~/models/ledger.server";
import { verifyPassword } from "~/server/password.server";
import { DELIVERY_DAYS } from "~/schemas/gig";
import { getEnv } from "~/server/env.server";
import { closeLimitRedis } from "~/server/rate-limit.server";
import { imageFile } from "~/server/files/storage.server";
import { COVER_HEIGHT, COVER_WIDTH } from "../../scripts/lib/covers";
import { DEMO_ACCOUNTS, DEMO_PASSWORD, isDatabaseEmpty, seedDemoData } from "../../scripts/lib/seed";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestServer } from "../support/test-server";

// The seed's covers go where the image storage keeps uploads, and its gigs and uploads count against rate
// limits in Redis: a directory and a key prefix of this file's own (both read from the env when first used).
const { prefix, uploads } = vi.hoisted(() => {
  const prefix = `t_seed_${process.pid}_${Date.now()}`;
  const uploads = `${process.env.TMPDIR ?? "/tmp"}/soko-seed-${process.pid}-${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  process.env.UPLOAD_DIR = uploads;
  return { prefix, uploads };
});
afterAll(async () => {
  await closeLimitRedis();
  fs.rmSync(uploads, { recursive: true, force: true });
});

/** Each gig's images, with the owner of each image's upload row. */
const gigImages = (t: TestDatabase) =>
  t
    .db("gigs as g")
    .leftJoin("gig_images as i", "i.gig_id", "g.id")
    .leftJoin("uploads as u", "u.storage_key", "i.storage_key")
    .select("g.id", "g.seller_id", "i.storage_key", "u.owner_id");

describe("demo data", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    expect(getEnv()).toMatchObject({ QUEUE_PREFIX: prefix, UPLOAD_DIR: uploads });
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it("loads into an empty database only", async () => {
    expect(await isDatabaseEmpty(t.db)).toBe(true);
    await seedDemoData(t.db);
    expect(await isDatabaseEmpty(t.db)).toBe(false);
  });

  it("has the six categories, in order", async () => {
    const categories = await listCategories(t.db);
    expect(categories.map((c) => c.name)).toEqual([
      "Graphics & Design",
      "Web Development",
      "Writing & Translation",
      "Video & Animation",
      "Digital Marketing",
      "Local Services",
    ]);
    expect(categories.map((c) => c.slug)).toEqual([
      "graphics-design",
      "web-development",
      "writing-translation",
      "video-animation",
      "digital-marketing",
      "local-services",
    ]);
    for (const c of categories) expect(c.gigCount).toBeGreaterThanOrEqual(10);
  });

  it("has at least 60 published gigs, each with three packages priced and timed as docs/product.md says", async () => {
    const gigs = await t.db("gigs").where({ status: "published" }).select("id", "rating", "reviews_count");
    expect(gigs.length).toBeGreaterThanOrEqual(60);
    const packages = await t.db("gig_packages").select("gig_id", "tier", "price_ugx", "delivery_days");
    expect(packages).toHaveLength(gigs.length * 3);
    for (const p of packages) {
      expect(p.price_ugx).toBeGreaterThanOrEqual(75_000);
      expect(p.price_ugx).toBeLessThanOrEqual(800_000);
      expect(DELIVERY_DAYS[p.tier as keyof typeof DELIVERY_DAYS]).toContain(p.delivery_days);
    }
    for (const g of gigs) {
      expect(g.rating).toBeGreaterThanOrEqual(0);
      expect(g.rating).toBeLessThanOrEqual(5);
      if (g.reviews_count > 0) expect(g.rating).toBeGreaterThanOrEqual(3.5);
    }
  });

  it("features the best-reviewed gig of four different categories", async () => {
    const featured = await t.db("gigs").where({ featured: true }).select("category_id", "rating", "reviews_count");
    expect(featured).toHaveLength(4);
    expect(new Set(featured.map((g) => g.category_id)).size).toBe(4);
    for (const g of featured) {
      expect(g.reviews_count).toBeGreaterThanOrEqual(20);
      const better = await t.db("gigs").where({ category_id: g.category_id }).andWhere("reviews_count", ">=", 20).andWhere("rating", ">", g.rating).first();
      expect(better).toBeUndefined();
    }
  });

  it("gives every gig a cover image its seller uploaded, stored in every size the catalog shows", async () => {
    const rows = await gigImages(t);
    expect(rows.length).toBeGreaterThanOrEqual(60);
    expect(new Set(rows.map((r) => r.id)).size).toBe(rows.length); // one image a gig
    for (const row of rows) {
      expect(row.storage_key, `gig ${row.id}`).toBeTruthy();
      expect(row.owner_id, `gig ${row.id}`).toBe(row.seller_id);
      for (const size of ["small", "thumb", "large"] as const) expect(fs.existsSync(imageFile(row.storage_key, size)!), `gig ${row.id} ${size}`).toBe(true);
    }
    const large = await sharp(imageFile(rows[0]!.storage_key, "large")!).metadata();
    expect({ format: large.format, width: large.width, height: large.height }).toEqual({ format: "webp", width: COVER_WIDTH, height: COVER_HEIGHT });
  });

  it("was made through the operations: each step left the activity row and the effects a member's own would", async () => {
    const kinds = await t.db("activity").groupBy("kind").select("kind", t.db.raw("count(*)::int as n"));
    const byKind = Object.fromEntries(kinds.map((k) => [k.kind, k.n]));
    const count = async (table: string) => Number((await t.db(table).count<{ n: string }[]>({ n: "*" }))[0]!.n);
    expect(byKind.joined).toBe(await count("users"));
    expect(byKind.gig_published).toBe(await count("gigs"));
    expect(byKind.review_left).toBe(await count("reviews"));
    // The first publication of each gig is a business conversion, recorded for the worker after the commit.
    const conversions = await t.db("effects").where({ kind: "conversion" }).select("payload");
    expect(conversions.filter((c) => c.payload.fact.type === "gig_published")).toHaveLength(await count("gigs"));
  });

  it("has orders between the demo client and freelancer, taken through the operations: one cleared, one delivered, one in progress, one in dispute", async () => {
    const client = await t.db("users").where({ email: DEMO_ACCOUNTS.client.email }).first("id");
    const freelancer = await t.db("users").where({ email: DEMO_ACCOUNTS.freelancer.email }).first("id", "mobile_money_number");
    const orders = await t
      .db("orders")
      .where({ buyer_id: client.id, seller_id: freelancer.id })
      .orderBy("id")
      .select("id", "status", "cleared_at", "price_ugx", "seller_fee_ugx");
    expect(orders.map((o) => o.status)).toEqual(["completed", "delivered", "in_progress", "delivered"]);
    expect(orders[0].cleared_at).not.toBeNull();
    expect(await t.db("disputes").where({ order_id: orders[3].id, status: "open" }).first("id")).toBeDefined();
    expect(await t.db("reviews").where({ order_id: orders[0].id }).first("rating")).toEqual({ rating: 5 });
    // The cleared order's earnings are the freelancer's to withdraw; the others' money waits in escrow.
    expect(await memberBalances(t.db, freelancer.id)).toMatchObject({ availableUgx: orders[0].price_ugx - orders[0].seller_fee_ugx, pendingUgx: 0 });
    for (const o of orders.slice(1)) expect(await balanceOf(t.db, escrow(o.id))).toBe(o.price_ugx);
    expect(freelancer.mobile_money_number).toBe("+256772100200");
  });

  it("has a conversation between the demo client and freelancer, whose last message the freelancer has not read", async () => {
    const client = await t.db("users").where({ email: DEMO_ACCOUNTS.client.email }).first("id");
    const freelancer = await t.db("users").where({ email: DEMO_ACCOUNTS.freelancer.email }).first("id");
    const { conversations } = await listConversations(t.db, freelancer.id);
    expect(conversations).toHaveLength(1);
    expect(conversations[0]).toMatchObject({ other: { id: client.id }, unreadCount: 1, lastMessage: { body: "Thank you, I will send it this evening." } });
    expect(await t.db("messages").where({ conversation_id: conversations[0]!.id }).orderBy("id").pluck("status")).toEqual(["read", "read", "sent"]);
  });

  it("has an admin, clients and freelancers whose demo password verifies against a scrypt hash", async () => {
    const roles = await t.db("users").groupBy("role").select("role", t.db.raw("count(*)::int as n"));
    const byRole = Object.fromEntries(roles.map((r) => [r.role, r.n]));
    expect(byRole.admin).toBe(1);
    expect(byRole.client).toBeGreaterThanOrEqual(3);
    expect(byRole.freelancer).toBeGreaterThanOrEqual(5);
    const admin = await t.db("users").where({ email: DEMO_ACCOUNTS.admin.email }).first();
    expect(admin.role).toBe("admin");
    expect(admin.password_hash).toMatch(/^scrypt\$/);
    expect(await verifyPassword(DEMO_PASSWORD, admin.password_hash)).toBe(true);
    expect(await verifyPassword("wrong", admin.password_hash)).toBe(false);
  });
});

describe("npm run seed (scripts/migrate.ts --seed)", () => {
  let t: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-seed-uploads-"));
  });
  afterAll(async () => {
    await t.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  // Production never falls back to the embedded services (app/server/env.server.ts): the script is given this
  // run's Redis and ClickHouse by URL, as test servers are (tests/support/test-server.ts), whatever the shell set.
  const seed = (env: Record<string, string>) =>
    spawnSync(path.resolve("node_modules/.bin/tsx"), ["scripts/migrate.ts", "--seed"], {
      env: { ...process.env, DATABASE_URL: t.url, REDIS_URL: getEnv().REDIS_URL, CLICKHOUSE_URL: getEnv().CLICKHOUSE_URL, UPLOAD_DIR: dir, ...env },
      encoding: "utf8",
    });
  const users = async () => Number((await t.db("users").count<{ n: string }[]>({ n: "*" }))[0]!.n);

  it("never loads demo data in production unless asked with SEED_DEMO=1", async () => {
    const refused = seed({ NODE_ENV: "production", SEED_DEMO: "" });
    expect(refused.status, refused.stderr).toBe(0);
    expect(await users()).toBe(0);

    const asked = seed({ NODE_ENV: "production", SEED_DEMO: "1" });
    expect(asked.status, asked.stderr).toBe(0);
    expect(asked.stdout).toContain("loaded demo data");
    expect(await users()).toBeGreaterThan(0);
    // The covers are in the upload directory the script was given (the web server's own, under npm start).
    const keys = await t.db("gig_images").pluck("storage_key");
    expect(keys.length).toBeGreaterThanOrEqual(60);
    for (const key of keys) expect(fs.existsSync(imageFile(key, "thumb", dir)!), key).toBe(true);
  }, 120_000); // two runs of the seed script, each a process of its own: seconds apiece on a loaded machine

  it("shows each featured card with its cover, served by the web server from that directory", async () => {
    const server = await startTestServer({ DATABASE_URL: t.url, UPLOAD_DIR: dir, QUEUE_PREFIX: prefix });
    try {
      const html = await (await fetch(`${server.baseUrl}/`)).text();
      // Each card names its small and thumb renditions (ADR 054); both are served.
      const covers = [
        ...html.matchAll(
          /<img class="gig-thumb" src="(\/media\/[0-9a-f-]{36}-small\.webp)" srcSet="[^"]*-small\.webp 320w, (\/media\/[^ ]+-thumb\.webp) 480w"/g,
        ),
      ];
      expect(covers).toHaveLength(4);
      for (const [url, width] of [
        [covers[0]![1]!, 320],
        [covers[0]![2]!, 480],
      ] as const) {
        const image = await fetch(`${server.baseUrl}${url}`);
        expect(image.status).toBe(200);
        expect(image.headers.get("content-type")).toBe("image/webp");
        expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).width).toBe(width);
      }
    } finally {
      await server.stop();
    }
  });
});
