/**
 * The gig operations against a real Postgres (and Redis for their limits), called as any door calls them,
 * with actors built by hand as the seed builds one for a demo seller: who may save, pause, resume and delete
 * a gig and put images on it or take them off (a seller, on their own gigs only: anyone else's gig is not
 * found), what input is refused, the rate limits, and the activity rows and after-commit effects (image
 * deletions, the gig_published conversion once per gig) written iff the operation commits.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { randomUUID } from "node:crypto";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ConversionFact } from "~/analytics/conversions.server";
import { systemActor, type Actor } from "~/operations/core.server";
import { attachImage, deleteGig, detachImage, pauseGig, resumeGig, saveGig } from "~/operations/gigs.server";
import { gigFormSchema, type GigIntent } from "~/schemas/gig";
import { consume } from "~/server/rate-limit.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createReview, createUser, type TestUser } from "../support/factories";

// Limits are counted by user id in Redis, and images written under UPLOAD_DIR: this file's own of both.
process.env.QUEUE_PREFIX = `t_opgigs_${process.pid}_${Date.now()}`;
const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-op-gigs-"));
process.env.UPLOAD_DIR = uploadDir;

let t: TestDatabase;
let seller: TestUser;
let rival: TestUser;
let buyer: TestUser;
let admin: TestUser;
let png: Buffer;

const client = { ip: "203.0.113.9", userAgent: "Mozilla/5.0 (Linux; Android 13)", analyticsConsent: false, tabSessionId: null };
const member = (u: TestUser, from: typeof client = client): Extract<Actor, { kind: "member" }> => ({
  kind: "member",
  user: {
    sessionId: "test",
    id: u.id,
    name: u.name,
    username: u.username,
    email: u.email,
    role: u.role,
    preferredCurrency: "UGX",
    timeZone: "EAT",
    language: "en",
  },
  client: from,
});
const anonymous: Actor = { kind: "anonymous", client };
const system = systemActor("test");

beforeAll(async () => {
  t = await createTestDatabase();
  seller = await createUser(t.db, { role: "freelancer", name: "Gig Seller" });
  rival = await createUser(t.db, { role: "freelancer", name: "Rival Seller" });
  buyer = await createUser(t.db, { role: "client", name: "Gig Buyer" });
  admin = await createUser(t.db, { role: "admin", name: "Gig Admin" });
  png = await sharp({ create: { width: 64, height: 48, channels: 3, background: "#c60" } })
    .png()
    .toBuffer();
});
afterAll(async () => {
  await t?.drop();
  fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** The gig form as the shared schema parses it (what a route hands the operation). */
function gigValue(intent: GigIntent, fields: Record<string, unknown> = {}) {
  return gigFormSchema(intent).parse({
    title: "Logo design in three days",
    category: "graphics-design",
    description: "Three concepts and the files for print and the web.",
    basic: { price: "75000", delivery: "3" },
    standard: {},
    premium: {},
    ...fields,
  });
}
const save = (actor: Actor, intent: GigIntent, fields: Record<string, unknown> = {}, gigId?: number) =>
  saveGig(actor, { intent, gig: gigValue(intent, fields), gigId }, { db: t.db });

const count = async (table: string, where: Record<string, unknown> = {}) =>
  Number((await t.db(table).where(where).count<{ c: string }[]>({ c: "*" }).first())?.c);
const activities = (userId: number) => t.db("activity").where({ user_id: userId }).orderBy("id").select("kind", "details");
const snapshot = async () => ({
  gigs: await count("gigs"),
  packages: await count("gig_packages"),
  images: await count("gig_images"),
  uploads: await count("uploads"),
  activity: await count("activity"),
  effects: await count("effects"),
});
const filesIn = () => fs.readdirSync(uploadDir).sort();
const upload = async (owner: TestUser) => {
  const key = randomUUID();
  await t.db("uploads").insert({ storage_key: key, owner_id: owner.id });
  return key;
};
/** Makes every insert into `table` fail, as a database that refuses a write after the main one would. */
async function refusing<T>(table: string, work: () => Promise<T>): Promise<T> {
  await t.db.raw(`
    CREATE FUNCTION refuse_for_test() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION '${table} refused for the test'; END $$ LANGUAGE plpgsql;
    CREATE TRIGGER refuse_for_test BEFORE INSERT ON ${table} FOR EACH ROW EXECUTE FUNCTION refuse_for_test();
  `);
  try {
    return await work();
  } finally {
    await t.db.raw(`DROP TRIGGER refuse_for_test ON ${table}; DROP FUNCTION refuse_for_test();`);
  }
}

describe("saveGig", () => {
  it("saves a seller's draft: the gig, its activity, and no conversion", async () => {
    const before = await snapshot();
    const result = await save(member(seller), "draft", { title: "Draft: a brand booklet", description: "", basic: {} });
    expect(result).toMatchObject({ ok: true, value: { status: "draft" } });
    const id = result.ok ? result.value.id : 0;
    expect(await t.db("gigs").where({ id }).first("seller_id", "title", "status", "published_at")).toEqual({
      seller_id: seller.id,
      title: "Draft: a brand booklet",
      status: "draft",
      published_at: null,
    });
    expect((await activities(seller.id)).at(-1)).toEqual({ kind: "gig_saved", details: { gigId: id, title: "Draft: a brand booklet" } });
    expect(await snapshot()).toEqual({ ...before, gigs: before.gigs + 1, activity: before.activity + 1 });
  });

  it("publishes a gig with the gig_published conversion as an effect, once per gig at its first publication", async () => {
    const created = await save(member(seller), "publish", { title: "Published poster design" });
    expect(created).toMatchObject({ ok: true, value: { status: "published" } });
    const id = created.ok ? created.value.id : 0;
    const { published_at: publishedAt } = await t.db("gigs").where({ id }).first("published_at");
    expect(publishedAt).toBeInstanceOf(Date);
    expect((await activities(seller.id)).at(-1)).toEqual({ kind: "gig_published", details: { gigId: id, title: "Published poster design" } });
    const effects = await t.db("effects").where({ dedupe_key: `conversion:gig_published:${id}` });
    expect(effects).toHaveLength(1);
    const fact = (effects[0].payload as { fact: ConversionFact }).fact;
    expect(fact).toEqual({
      type: "gig_published",
      userId: seller.id,
      subjectId: id,
      atMs: (publishedAt as Date).getTime(),
      valueUgx: 0,
      metadata: { gig: id },
      client,
    });

    // Saved as published again (and paused and resumed): the first publication stands, the effect is not repeated.
    expect(await save(member(seller), "publish", { title: "Published poster design, edited" }, id)).toMatchObject({ ok: true });
    expect(await pauseGig(member(seller), { gigId: id }, { db: t.db })).toMatchObject({ ok: true });
    expect(await resumeGig(member(seller), { gigId: id }, { db: t.db })).toMatchObject({ ok: true });
    expect(await save(member(seller), "publish", { title: "Published poster design, edited twice" }, id)).toMatchObject({ ok: true });
    expect((await t.db("gigs").where({ id }).first("published_at")).published_at).toEqual(publishedAt);
    expect(await count("effects", { dedupe_key: `conversion:gig_published:${id}` })).toBe(1);
  });

  it("works for a seller acting with no request at all (the seed acts as each demo seller)", async () => {
    const seeded = member(seller, { ip: "", userAgent: "", analyticsConsent: false, tabSessionId: null });
    expect(await saveGig(seeded, { intent: "publish", gig: gigValue("publish", { title: "Seeded: drum lessons" }) }, { db: t.db })).toMatchObject({ ok: true });
  });

  it("refuses anyone but a seller, and stores nothing", async () => {
    const before = await snapshot();
    expect(await save(member(buyer), "publish")).toEqual({ ok: false, error: "forbidden", code: "seller.only_sellers", params: {} });
    expect(await save(member(admin), "publish")).toEqual({ ok: false, error: "forbidden", code: "seller.admins_do_not_sell", params: {} });
    expect(await save(anonymous, "publish")).toMatchObject({ ok: false, error: "forbidden" });
    expect(await save(system, "publish")).toMatchObject({ ok: false, error: "forbidden" });
    expect(await snapshot()).toEqual(before);
  });

  it("answers another seller's gig, or no gig, as not found, and changes nothing", async () => {
    const { id } = await createGig(t.db, { sellerId: seller.id, title: "Owner only: mascot" });
    const before = { gig: await t.db("gigs").where({ id }).first(), counts: await snapshot() };
    expect(await save(member(rival), "publish", { title: "Hijacked" }, id)).toMatchObject({ ok: false, error: "not_found" });
    expect(await save(member(seller), "publish", {}, 999_999)).toMatchObject({ ok: false, error: "not_found" });
    expect({ gig: await t.db("gigs").where({ id }).first(), counts: await snapshot() }).toEqual(before);
  });

  it("refuses bad input beside its field: an unknown category, another member's image, nobody's image", async () => {
    const theirs = await upload(rival);
    const before = await snapshot();
    expect(await save(member(seller), "publish", { category: "no-such-category" })).toEqual({
      ok: false,
      error: "invalid",
      issues: { category: [{ code: "gig.category_unknown", params: {} }] },
    });
    for (const images of [[theirs], [randomUUID()]]) {
      expect(await save(member(seller), "publish", { images })).toEqual({
        ok: false,
        error: "invalid",
        issues: { images: [{ code: "gig.image_not_yours", params: {} }] },
      });
    }
    expect(await snapshot()).toEqual(before);
  });

  it("deletes, after the commit, the images an edit takes off, and forgets them as uploads", async () => {
    const [kept, dropped] = [await upload(seller), await upload(seller)];
    const created = await save(member(seller), "draft", { title: "Gallery gig", images: [kept, dropped] });
    const id = created.ok ? created.value.id : 0;
    expect(await save(member(seller), "draft", { title: "Gallery gig", images: [kept] }, id)).toMatchObject({ ok: true });
    expect(await t.db("gig_images").where({ gig_id: id }).pluck("storage_key")).toEqual([kept]);
    expect(await t.db("uploads").where({ storage_key: dropped }).first()).toBeUndefined();
    expect(await t.db("effects").where({ kind: "delete_image" }).pluck("payload")).toContainEqual({ key: dropped });
    expect(await t.db("effects").where({ kind: "delete_image" }).pluck("payload")).not.toContainEqual({ key: kept });
  });

  it("writes no gig and no activity when a write after the main one fails", async () => {
    const before = await snapshot();
    await refusing("effects", () => expect(save(member(seller), "publish", { title: "Never committed" })).rejects.toThrow(/effects refused for the test/));
    expect(await snapshot()).toEqual(before);
    expect(await t.db("gigs").where({ title: "Never committed" }).first()).toBeUndefined();
  });

  it("counts new gigs against the seller's gigCreate limit, not edits", async () => {
    const limited = await createUser(t.db, { role: "freelancer", name: "Busy Seller" });
    const first = await save(member(limited), "draft", { title: "Before the limit", description: "", basic: {} });
    expect(first.ok).toBe(true);
    expect(await consume("gigCreate", [String(limited.id)], 29)).toBeNull(); // the rest of the hour's 30
    const before = await snapshot();
    const refused = await save(member(limited), "draft", { title: "Over the limit", description: "", basic: {} });
    expect(refused).toMatchObject({ ok: false, error: "limited", status: 429, code: "limit.exceeded", params: { limit: "gigCreate" } });
    expect(await snapshot()).toEqual(before);
    // Editing an existing gig is not creating one.
    expect(await save(member(limited), "draft", { title: "Edited after the limit", description: "", basic: {} }, first.ok ? first.value.id : 0)).toMatchObject({
      ok: true,
    });
  });
});

describe("pauseGig and resumeGig", () => {
  it("pause a published gig and publish it again, each with its activity; the wrong state is a conflict", async () => {
    const { id } = await createGig(t.db, { sellerId: seller.id, title: "Pausable banner" });
    expect(await pauseGig(member(seller), { gigId: id }, { db: t.db })).toEqual({ ok: true, value: { id, status: "paused" } });
    expect((await t.db("gigs").where({ id }).first("status")).status).toBe("paused");
    expect((await activities(seller.id)).at(-1)).toEqual({ kind: "gig_paused", details: { gigId: id } });

    const before = await snapshot();
    expect(await pauseGig(member(seller), { gigId: id }, { db: t.db })).toEqual({ ok: false, error: "conflict", code: "gig.not_published", params: {} });
    expect(await snapshot()).toEqual(before);

    expect(await resumeGig(member(seller), { gigId: id }, { db: t.db })).toEqual({ ok: true, value: { id, status: "published" } });
    expect((await activities(seller.id)).at(-1)).toEqual({ kind: "gig_resumed", details: { gigId: id } });
    const after = await snapshot();
    expect(await resumeGig(member(seller), { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "conflict", code: "gig.not_paused" });
    expect(await snapshot()).toEqual(after);
  });

  it("cannot pause or resume a draft", async () => {
    const { id } = await createGig(t.db, { sellerId: seller.id, status: "draft", packages: {} });
    const before = await snapshot();
    expect(await pauseGig(member(seller), { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "conflict" });
    expect(await resumeGig(member(seller), { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "conflict" });
    expect(await snapshot()).toEqual(before);
  });

  it("answers another seller's gig, or an id that is no gig, as not found; a visitor is forbidden", async () => {
    const { id } = await createGig(t.db, { sellerId: seller.id });
    const before = await snapshot();
    for (const actor of [member(rival), member(buyer), member(admin)]) {
      expect(await pauseGig(actor, { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    }
    for (const gigId of [0, -1, 999_999, Number.NaN])
      expect(await pauseGig(member(seller), { gigId }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await pauseGig(anonymous, { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await resumeGig(anonymous, { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await snapshot()).toEqual(before);
    expect((await t.db("gigs").where({ id }).first("status")).status).toBe("published");
  });
});

describe("deleteGig", () => {
  it("deletes the owner's gig with its packages; its images' files go after the commit", async () => {
    const key = randomUUID();
    const { id, title } = await createGig(t.db, { sellerId: seller.id, title: "Gig to delete", images: [key] });
    const before = await snapshot();
    expect(await deleteGig(member(seller), { gigId: id }, { db: t.db })).toEqual({ ok: true, value: { id, title } });
    expect(await t.db("gigs").where({ id }).first()).toBeUndefined();
    expect(await t.db("uploads").where({ storage_key: key }).first()).toBeUndefined();
    expect(await t.db("effects").where({ kind: "delete_image" }).pluck("payload")).toContainEqual({ key });
    expect((await activities(seller.id)).at(-1)).toEqual({ kind: "gig_deleted", details: { gigId: id, title } });
    expect(await snapshot()).toEqual({
      ...before,
      gigs: before.gigs - 1,
      packages: before.packages - 1,
      images: before.images - 1,
      uploads: before.uploads - 1,
      activity: before.activity + 1,
      effects: before.effects + 1,
    });
  });

  it("leaves the seller's rating and count to the reviews of the gigs they still have", async () => {
    const [kept, gone] = [
      await createGig(t.db, { sellerId: rival.id, title: "Kept gig" }),
      await createGig(t.db, { sellerId: rival.id, title: "Deleted gig" }),
    ];
    await createReview(t.db, { gigId: kept.id, reviewerId: buyer.id, rating: 5 });
    await createReview(t.db, { gigId: gone.id, reviewerId: buyer.id, rating: 1 });
    expect(await t.db("users").where({ id: rival.id }).first("rating", "reviews_count")).toEqual({ rating: 3, reviews_count: 2 });
    expect((await deleteGig(member(rival), { gigId: gone.id }, { db: t.db })).ok).toBe(true);
    expect(await t.db("users").where({ id: rival.id }).first("rating", "reviews_count")).toEqual({ rating: 5, reviews_count: 1 });
  });

  it("answers another seller's gig as not found and keeps it; a visitor is forbidden", async () => {
    const { id } = await createGig(t.db, { sellerId: seller.id, title: "Not yours to delete" });
    const before = await snapshot();
    expect(await deleteGig(member(rival), { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await deleteGig(member(seller), { gigId: -5 }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await deleteGig(anonymous, { gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await snapshot()).toEqual(before);
  });

  it("writes no activity and deletes nothing when a write after the main one fails", async () => {
    const { id } = await createGig(t.db, { sellerId: seller.id, title: "Survives a failed delete", images: [randomUUID()] });
    const before = await snapshot();
    await refusing("effects", () => expect(deleteGig(member(seller), { gigId: id }, { db: t.db })).rejects.toThrow(/effects refused/));
    expect(await snapshot()).toEqual(before);
    expect(await t.db("gigs").where({ id }).first("id")).toEqual({ id });
  });
});

describe("attachImage", () => {
  const file = (data: Buffer, name = "cover.png") => new File([new Uint8Array(data)], name, { type: "image/png" });

  it("stores a seller's image (three sizes) and records it as their upload", async () => {
    const result = await attachImage(member(seller), { file: file(png) }, { db: t.db });
    expect(result).toMatchObject({ ok: true, value: { key: expect.stringMatching(/^[0-9a-f-]{36}$/) } });
    const key = result.ok ? result.value.key : "";
    expect(await t.db("uploads").where({ storage_key: key }).first("owner_id")).toEqual({ owner_id: seller.id });
    expect(filesIn().filter((f) => f.startsWith(key))).toEqual([`${key}-large.webp`, `${key}-small.webp`, `${key}-thumb.webp`]);
    // The bytes written (every size) are kept with it: they count against the seller's storage cap.
    const written = ["large", "small", "thumb"].reduce((sum, size) => sum + fs.statSync(path.join(uploadDir, `${key}-${size}.webp`)).size, 0);
    expect(await t.db("uploads").where({ storage_key: key }).first("size_bytes")).toEqual({ size_bytes: written });
  });

  it("refuses a file that is not an image, beside the upload field and named, storing nothing", async () => {
    const before = { rows: await snapshot(), files: filesIn() };
    const result = await attachImage(member(seller), { file: file(Buffer.from("only text, pretending"), "logo.png") }, { db: t.db });
    expect(result).toEqual({ ok: false, error: "invalid", issues: { upload: [{ code: "image.wrong_type", params: { file: "logo.png" } }] } });
    expect({ rows: await snapshot(), files: filesIn() }).toEqual(before);
  });

  it("refuses a client, an admin and a visitor, writing no file", async () => {
    const before = { rows: await snapshot(), files: filesIn() };
    expect(await attachImage(member(buyer), { file: file(png) }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await attachImage(member(admin), { file: file(png) }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await attachImage(anonymous, { file: file(png) }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect({ rows: await snapshot(), files: filesIn() }).toEqual(before);
  });

  it("removes the file it wrote when its row cannot be committed", async () => {
    const before = { rows: await snapshot(), files: filesIn() };
    await refusing("uploads", () => expect(attachImage(member(seller), { file: file(png) }, { db: t.db })).rejects.toThrow(/uploads refused/));
    expect({ rows: await snapshot(), files: filesIn() }).toEqual(before);
  });

  it("counts each image against the seller's upload quota", async () => {
    const busy = await createUser(t.db, { role: "freelancer", name: "Busy Uploader" });
    expect(await consume("uploadFilesHour", [String(busy.id)], 100)).toBeNull(); // the hour's 100 files
    const before = { rows: await snapshot(), files: filesIn() };
    expect(await attachImage(member(busy), { file: file(png) }, { db: t.db })).toMatchObject({ ok: false, error: "limited", status: 429 });
    expect({ rows: await snapshot(), files: filesIn() }).toEqual(before);
  });
});

describe("detachImage", () => {
  it("forgets an upload no gig shows, and deletes its files after the commit", async () => {
    const key = await upload(seller);
    expect(await detachImage(member(seller), { key }, { db: t.db })).toEqual({ ok: true, value: { removed: true } });
    expect(await t.db("uploads").where({ storage_key: key }).first()).toBeUndefined();
    expect(await t.db("effects").where({ kind: "delete_image" }).pluck("payload")).toContainEqual({ key });
  });

  it("keeps an image the gig shows until the gig is saved without it", async () => {
    const key = randomUUID();
    const { id } = await createGig(t.db, { sellerId: seller.id, images: [key] });
    const before = await snapshot();
    expect(await detachImage(member(seller), { key, gigId: id }, { db: t.db })).toEqual({ ok: true, value: { removed: false } });
    expect(await snapshot()).toEqual(before);
    expect(await t.db("gig_images").where({ gig_id: id }).pluck("storage_key")).toEqual([key]);
  });

  it("answers another member's image, or another seller's gig, as not found; a visitor is forbidden", async () => {
    const theirs = await upload(rival);
    const { id } = await createGig(t.db, { sellerId: rival.id });
    const mine = await upload(seller);
    const before = await snapshot();
    expect(await detachImage(member(seller), { key: theirs }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await detachImage(member(seller), { key: mine, gigId: id }, { db: t.db })).toMatchObject({ ok: false, error: "not_found" });
    expect(await detachImage(anonymous, { key: theirs }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await snapshot()).toEqual(before);
  });
});
