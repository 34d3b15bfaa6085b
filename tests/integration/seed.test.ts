import { spawnSync } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listCategories } from "~/models/category.server";
import { verifyPassword } from "~/utils/password.server";
import { DELIVERY_DAYS } from "~/utils/gig-schemas";
import { CATEGORIES, DEMO_ACCOUNTS, DEMO_PASSWORD, isDatabaseEmpty, seedDemoData } from "../../scripts/lib/seed";
import { createTestDatabase, type TestDatabase } from "../support/databases";

describe("demo data", () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  it("loads into an empty database only", async () => {
    expect(await isDatabaseEmpty(t.db)).toBe(true);
    await seedDemoData(t.db);
    expect(await isDatabaseEmpty(t.db)).toBe(false);
  });

  it("has the six categories of the spec, in order", async () => {
    const categories = await listCategories(t.db);
    expect(categories.map((c) => c.name)).toEqual([
      "Graphics & Design",
      "Web Development",
      "Writing & Translation",
      "Video & Animation",
      "Digital Marketing",
      "Local Services",
    ]);
    expect(categories.map((c) => c.slug)).toEqual(CATEGORIES.map((c) => c.slug));
    for (const c of categories) expect(c.gigCount).toBeGreaterThanOrEqual(10);
  });

  it("has at least 60 published gigs, each with three packages priced and timed as the spec says", async () => {
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
      const better = await t.db("gigs")
        .where({ category_id: g.category_id })
        .andWhere("reviews_count", ">=", 20)
        .andWhere("rating", ">", g.rating)
        .first();
      expect(better).toBeUndefined();
    }
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
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.drop());

  const seed = (env: Record<string, string>) =>
    spawnSync(path.resolve("node_modules/.bin/tsx"), ["scripts/migrate.ts", "--seed"], {
      env: { ...process.env, DATABASE_URL: t.url, ...env },
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
  });
});
