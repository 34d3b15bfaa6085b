/**
 * Saved gigs and sellers (ADR 052) against a real Postgres and Redis, called as any door calls them: who may save
 * what (a member; not their own gig or themselves; only what buyers can see), saving twice and unsaving what is
 * not saved change nothing, what /saved and the dashboard count, and a saved seller's first publication of a gig:
 * one after-commit effect, which notifies each member who saved them in their language and mails only those who
 * chose that mail, once however often it runs.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getDashboardStats } from "~/models/dashboard.server";
import { listNotifications } from "~/models/notification.server";
import { listSavedGigs, listSavedSellers, savedCounts } from "~/models/saved.server";
import { systemActor, type Actor } from "~/operations/core.server";
import { saveGig } from "~/operations/gigs.server";
import { notifySavedSellerGig, setSaved } from "~/operations/saved.server";
import { gigFormSchema } from "~/schemas/gig";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createUser, type TestUser } from "../support/factories";

process.env.QUEUE_PREFIX = `t_saved_${process.pid}_${Date.now()}`;

let t: TestDatabase;
let seller: TestUser;
let buyer: TestUser;
let other: TestUser;

const client = { ip: "203.0.113.10", userAgent: "Mozilla/5.0 (Linux; Android 13)", analyticsConsent: false, tabSessionId: null };
const member = (u: TestUser): Extract<Actor, { kind: "member" }> => ({
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
  client,
});
const save = (u: TestUser, kind: "gig" | "seller", id: number, saved = true) => setSaved(member(u), { kind, id, saved }, { db: t.db });

beforeAll(async () => {
  t = await createTestDatabase();
  seller = await createUser(t.db, { role: "freelancer", name: "Nakato Saved" });
  buyer = await createUser(t.db, { role: "client", name: "Okello Saver" });
  other = await createUser(t.db, { role: "client", name: "Auma Saver" });
});

afterAll(async () => {
  await t?.drop();
});

describe("saving gigs and sellers", () => {
  it("saves a gig and a seller once, however often it is asked, and unsaves them", async () => {
    const gig = await createGig(t.db, { sellerId: seller.id, title: "Logo in a day" });
    expect(await save(buyer, "gig", gig.id)).toEqual({ ok: true, value: { kind: "gig", id: gig.id, saved: true } });
    expect(await save(buyer, "gig", gig.id)).toMatchObject({ ok: true, value: { saved: true } });
    expect(await save(buyer, "seller", seller.id)).toMatchObject({ ok: true, value: { saved: true } });
    expect(await save(buyer, "seller", seller.id)).toMatchObject({ ok: true, value: { saved: true } });
    expect(await t.db("saved_gigs").where({ user_id: buyer.id })).toHaveLength(1);
    expect(await t.db("saved_sellers").where({ user_id: buyer.id })).toHaveLength(1);
    expect(await savedCounts(t.db, buyer.id)).toEqual({ gigs: 1, sellers: 1 });
    expect((await listSavedGigs(t.db, buyer.id, 1)).map((g) => g.title)).toEqual(["Logo in a day"]);
    expect((await listSavedSellers(t.db, buyer.id, 1)).map((s) => s.name)).toEqual(["Nakato Saved"]);
    const stats = await getDashboardStats(t.db, member(buyer).user);
    expect(stats.find((s) => s.name === "savedSellers")?.value).toBe(1);

    expect(await save(buyer, "gig", gig.id, false)).toMatchObject({ ok: true, value: { saved: false } });
    expect(await save(buyer, "gig", gig.id, false)).toMatchObject({ ok: true, value: { saved: false } });
    expect(await save(buyer, "seller", seller.id, false)).toMatchObject({ ok: true, value: { saved: false } });
    expect(await savedCounts(t.db, buyer.id)).toEqual({ gigs: 0, sellers: 0 });
    expect((await getDashboardStats(t.db, member(buyer).user)).find((s) => s.name === "savedSellers")?.value).toBe(0);
  });

  it("refuses a visitor, a seller's own gig and saving oneself, and what buyers cannot see, writing nothing", async () => {
    const gig = await createGig(t.db, { sellerId: seller.id });
    const draft = await createGig(t.db, { sellerId: seller.id, status: "draft" });
    const anonymous: Actor = { kind: "anonymous", client };
    expect(await setSaved(anonymous, { kind: "gig", id: gig.id, saved: true }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await save(seller, "gig", gig.id)).toMatchObject({ ok: false, error: "forbidden", code: "saved.own_gig" });
    expect(await save(seller, "seller", seller.id)).toMatchObject({ ok: false, error: "forbidden", code: "saved.own_profile" });
    expect(await save(buyer, "gig", draft.id)).toMatchObject({ ok: false, error: "not_found" });
    expect(await save(buyer, "gig", 999_999_999)).toMatchObject({ ok: false, error: "not_found" });
    // A client is no seller to save.
    expect(await save(buyer, "seller", other.id)).toMatchObject({ ok: false, error: "not_found" });
    expect(await t.db("saved_gigs").whereIn("user_id", [seller.id, buyer.id]).whereIn("gig_id", [gig.id, draft.id])).toEqual([]);
    expect(await t.db("saved_sellers").where({ user_id: seller.id })).toEqual([]);
  });

  it("no longer counts a saved seller who was suspended", async () => {
    const gone = await createUser(t.db, { role: "freelancer", name: "Soon Suspended" });
    const saver = await createUser(t.db, { role: "client" });
    expect(await save(saver, "seller", gone.id)).toMatchObject({ ok: true });
    expect((await savedCounts(t.db, saver.id)).sellers).toBe(1);
    await t.db("users").where({ id: gone.id }).update({ status: "suspended" });
    expect((await savedCounts(t.db, saver.id)).sellers).toBe(0);
    expect(await listSavedSellers(t.db, saver.id, 1)).toEqual([]);
  });
});

describe("a saved seller's new gig", () => {
  const gigValue = (title: string) =>
    gigFormSchema("publish").parse({
      title,
      category: "graphics-design",
      description: "Three concepts and the files for print and the web.",
      basic: { price: "75000", delivery: "3" },
      standard: {},
      premium: {},
    });

  it("queues one effect at the first publication only, and tells each follower once, mailing only those who chose it", async () => {
    const maker = await createUser(t.db, { role: "freelancer", name: "Mukasa Maker" });
    const mailMe = await createUser(t.db, { role: "client", name: "Mail Me" });
    const quiet = await createUser(t.db, { role: "client", name: "Quiet One" });
    const stranger = await createUser(t.db, { role: "client", name: "Not Following" });
    await t.db("users").where({ id: mailMe.id }).update({ notify_email_marketing: true, language: "sw" });
    await t.db("users").where({ id: quiet.id }).update({ notify_email_marketing: false, language: "lg" });
    for (const follower of [mailMe, quiet]) expect(await save(follower, "seller", maker.id)).toMatchObject({ ok: true });

    const draft = await saveGig(member(maker), { intent: "draft", gig: gigValue("Banner design") }, { db: t.db });
    expect(draft.ok).toBe(true);
    const id = draft.ok ? draft.value.id : 0;
    const effects = () => t.db("effects").where({ kind: "saved_seller_gig" }).whereRaw("(payload->>'gigId')::bigint = ?", [id]);
    expect(await effects()).toEqual([]);
    // Published, then saved as published again: one effect, keyed by the gig.
    expect(await saveGig(member(maker), { intent: "publish", gig: gigValue("Banner design"), gigId: id }, { db: t.db })).toMatchObject({ ok: true });
    expect(await saveGig(member(maker), { intent: "publish", gig: gigValue("Banner design v2"), gigId: id }, { db: t.db })).toMatchObject({ ok: true });
    const queued = await effects();
    expect(queued).toHaveLength(1);
    expect(queued[0].dedupe_key).toBe(`saved_seller_gig:${id}`);

    const system = systemActor("effects");
    expect(await notifySavedSellerGig(system, { gigId: id }, { db: t.db })).toEqual({ ok: true, value: { notified: 2, mailed: 1 } });
    // Carried out again (a worker that died before marking it done): nothing more.
    expect(await notifySavedSellerGig(system, { gigId: id }, { db: t.db })).toEqual({ ok: true, value: { notified: 0, mailed: 0 } });

    const notes = await t.db("notifications").where({ kind: "saved_seller_gig" }).whereIn("user_id", [mailMe.id, quiet.id, stranger.id]).orderBy("user_id");
    expect(notes.map((n) => [Number(n.user_id), n.body_key, n.body_values.name, n.body_values.title])).toEqual([
      [mailMe.id, "notify.saved.newGig", "Mukasa Maker", "Banner design v2"],
      [quiet.id, "notify.saved.newGig", "Mukasa Maker", "Banner design v2"],
    ]);
    // Said in each reader's language, and leading to the gig.
    expect((await listNotifications(t.db, mailMe.id, 1))[0]).toMatchObject({
      gigId: id,
      body: "Mukasa Maker, muuzaji uliyemhifadhi, amechapisha huduma mpya: “Banner design v2”",
    });
    expect((await listNotifications(t.db, quiet.id, 1))[0]).toMatchObject({
      gigId: id,
      body: "Mukasa Maker, omutunzi gwe mwatereka, afulumizza omulimu omupya: “Banner design v2”",
    });
    const mails = await t.db("outbox").whereIn("to_address", [mailMe.email, quiet.email, stranger.email]);
    expect(mails).toHaveLength(1);
    // In the follower's language (Swahili), with a link to the gig.
    expect(mails[0].subject).toBe("Soko: Mukasa Maker ana huduma mpya");
    expect(mails[0].body).toContain(`/gig/${id}`);
  });

  it("is refused to anyone but the platform, and tells nobody of a gig taken down meanwhile", async () => {
    const maker = await createUser(t.db, { role: "freelancer" });
    const fan = await createUser(t.db, { role: "client" });
    expect(await save(fan, "seller", maker.id)).toMatchObject({ ok: true });
    const gig = await createGig(t.db, { sellerId: maker.id, status: "paused" });
    expect(await notifySavedSellerGig(member(fan), { gigId: gig.id }, { db: t.db })).toMatchObject({ ok: false, error: "forbidden" });
    expect(await notifySavedSellerGig(systemActor("effects"), { gigId: gig.id }, { db: t.db })).toEqual({ ok: true, value: { notified: 0, mailed: 0 } });
    expect(await t.db("notifications").where({ user_id: fan.id })).toEqual([]);
  });
});
