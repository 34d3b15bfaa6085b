/**
 * Saved gigs and saved sellers: a member's hearts (ADR 052). Saving is idempotent (a second save of the same gig
 * or seller changes nothing), and only the member's own rows are ever read or written: the member's id is in
 * every WHERE. /saved lists them newest first, a page at a time; gig cards, gig pages and profiles ask which of
 * what they show the member has saved, from these rows, never from a cached page (ADR 019).
 */
import { gigCardColumns, toGigCard, visibleGigs, type GigCard } from "~/models/gig.server";
import type { Level } from "~/domain/catalog-vocabulary";
import type { Db } from "~/server/db.server";

/** How many of each /saved shows on a page. */
export const SAVED_PAGE_SIZE = 12;

export type SavedKind = "gig" | "seller";

/** Saves a gig for the member; false when it was already saved. */
export async function insertSavedGig(db: Db, userId: number, gigId: number): Promise<boolean> {
  const rows = await db("saved_gigs").insert({ user_id: userId, gig_id: gigId }).onConflict(["user_id", "gig_id"]).ignore().returning("gig_id");
  return rows.length > 0;
}

/** Takes a gig off the member's saved ones; false when it was not saved. */
export async function deleteSavedGig(db: Db, userId: number, gigId: number): Promise<boolean> {
  return (await db("saved_gigs").where({ user_id: userId, gig_id: gigId }).delete()) > 0;
}

/** Saves a seller for the member; false when they were already saved. */
export async function insertSavedSeller(db: Db, userId: number, sellerId: number): Promise<boolean> {
  const rows = await db("saved_sellers").insert({ user_id: userId, seller_id: sellerId }).onConflict(["user_id", "seller_id"]).ignore().returning("seller_id");
  return rows.length > 0;
}

/** Takes a seller off the member's saved ones; false when they were not saved. */
export async function deleteSavedSeller(db: Db, userId: number, sellerId: number): Promise<boolean> {
  return (await db("saved_sellers").where({ user_id: userId, seller_id: sellerId }).delete()) > 0;
}

/** Which of these gigs the member has saved (a page of cards asks once for all of them). */
export async function savedGigIdsAmong(db: Db, userId: number, gigIds: number[]): Promise<number[]> {
  if (!gigIds.length) return [];
  const rows = await db("saved_gigs").where({ user_id: userId }).whereIn("gig_id", gigIds).select("gig_id");
  return rows.map((r) => Number(r.gig_id));
}

export async function isGigSaved(db: Db, userId: number, gigId: number): Promise<boolean> {
  return Boolean(await db("saved_gigs").where({ user_id: userId, gig_id: gigId }).first("gig_id"));
}

export async function isSellerSaved(db: Db, userId: number, sellerId: number): Promise<boolean> {
  return Boolean(await db("saved_sellers").where({ user_id: userId, seller_id: sellerId }).first("seller_id"));
}

/** How many gigs and sellers the member has saved: what they can still see (a gig taken down or a seller gone is not counted). */
export async function savedCounts(db: Db, userId: number): Promise<{ gigs: number; sellers: number }> {
  const [gigs, sellers] = await Promise.all([
    visibleGigs(db).join("saved_gigs as s", "s.gig_id", "g.id").where("s.user_id", userId).count<{ count: string }[]>({ count: "*" }).first(),
    visibleSellers(db).join("saved_sellers as s", "s.seller_id", "u.id").where("s.user_id", userId).count<{ count: string }[]>({ count: "*" }).first(),
  ]);
  return { gigs: Number(gigs?.count ?? 0), sellers: Number(sellers?.count ?? 0) };
}

/** Active, not deleted sellers: the ones a member's saved list shows. */
function visibleSellers(db: Db) {
  return db("users as u").where({ "u.role": "freelancer", "u.status": "active" }).whereNull("u.deleted_at");
}

/** A page (1, 2, …) of the member's saved gigs that buyers can see, newest save first. */
export async function listSavedGigs(db: Db, userId: number, page: number): Promise<GigCard[]> {
  const rows = await visibleGigs(db)
    .join("saved_gigs as s", "s.gig_id", "g.id")
    .where("s.user_id", userId)
    .select(gigCardColumns(db))
    .orderBy([
      { column: "s.created_at", order: "desc" },
      { column: "s.gig_id", order: "desc" },
    ])
    .limit(SAVED_PAGE_SIZE)
    .offset((page - 1) * SAVED_PAGE_SIZE);
  return rows.map(toGigCard);
}

export type SavedSeller = {
  id: number;
  name: string;
  username: string;
  avatarKey: string | null;
  level: Level;
  rating: number;
  reviewsCount: number;
  location: string;
  savedAt: Date;
};

/** A page (1, 2, …) of the member's saved sellers who are still active, newest save first. */
export async function listSavedSellers(db: Db, userId: number, page: number): Promise<SavedSeller[]> {
  const rows = await visibleSellers(db)
    .join("saved_sellers as s", "s.seller_id", "u.id")
    .where("s.user_id", userId)
    .select("u.id", "u.name", "u.username", "u.avatar_key", "u.level", "u.rating", "u.reviews_count", "u.location", "s.created_at")
    .orderBy([
      { column: "s.created_at", order: "desc" },
      { column: "s.seller_id", order: "desc" },
    ])
    .limit(SAVED_PAGE_SIZE)
    .offset((page - 1) * SAVED_PAGE_SIZE);
  return rows.map((r) => ({
    id: Number(r.id),
    name: r.name,
    username: r.username,
    avatarKey: r.avatar_key ?? null,
    level: r.level,
    rating: Number(r.rating),
    reviewsCount: Number(r.reviews_count),
    location: r.location,
    savedAt: r.created_at,
  }));
}

/** Which of these sellers the member has saved (a page of the directory asks once for all of them). */
export async function savedSellerIdsAmong(db: Db, userId: number, sellerIds: number[]): Promise<number[]> {
  if (!sellerIds.length) return [];
  const rows = await db("saved_sellers").where({ user_id: userId }).whereIn("seller_id", sellerIds).select("seller_id");
  return rows.map((r) => Number(r.seller_id));
}
