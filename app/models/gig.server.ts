/**
 * Gigs: the gig entity's reads and writes. A gig card (what browse, search, the landing and a seller's
 * profile show), the gig page, a seller's own gigs, and saving, pausing and deleting them. The only module
 * that writes `gigs`, `gig_packages`, `gig_images` and `search_terms`; it keeps each gig's starting price,
 * fastest delivery and the searchable words in step with its packages, in the same transaction.
 * Browsing and searching the catalog are app/models/catalog-search.server.ts (its spelling correction
 * app/models/catalog-spelling.server.ts); they read gig cards from here.
 */
import { gigReviewsJson, reviewPageFrom, type Review } from "~/models/review.server";
import type { Level } from "~/domain/catalog-vocabulary";
import { trustBadgesOf, type TrustBadges } from "~/domain/trust";
import { prepared, type Db } from "~/server/db.server";
import { TIERS, type GigFormValue, type PackageInput, type Tier } from "~/schemas/gig";

/** What a gig card shows (landing Featured Services, browse, search and seller profiles). */
export type GigCard = {
  id: number;
  title: string;
  categoryName: string;
  categorySlug: string;
  rating: number;
  reviewsCount: number;
  startingPriceUgx: number;
  sellerName: string;
  sellerUsername: string;
  imageKey: string | null;
};

export type GigStatus = "draft" | "published" | "paused";

/** Published gigs of active sellers that have a package to buy: what any buyer may see. */
export function visibleGigs(db: Db) {
  return db("gigs as g")
    .join("users as u", "u.id", "g.seller_id")
    .where("g.status", "published")
    .andWhere("u.status", "active")
    .whereNotNull("g.starting_price_ugx");
}

/** The columns of a gig card, for a query of `gigs as g` joined with `users as u` (visibleGigs). */
export function gigCardColumns(db: Db) {
  return [
    "g.id",
    "g.title",
    "g.rating",
    "g.reviews_count",
    "g.starting_price_ugx",
    "u.name as seller_name",
    "u.username as seller_username",
    db.raw("(SELECT c.name FROM categories c WHERE c.id = g.category_id) AS category_name"),
    db.raw("(SELECT c.slug FROM categories c WHERE c.id = g.category_id) AS category_slug"),
    db.raw("(SELECT i.storage_key FROM gig_images i WHERE i.gig_id = g.id ORDER BY i.position, i.id LIMIT 1) AS image_key"),
  ];
}

/** A gig card from a row of gigCardColumns. */
export function toGigCard(r: Record<string, unknown>): GigCard {
  return {
    id: Number(r.id),
    title: String(r.title),
    categoryName: String(r.category_name),
    categorySlug: String(r.category_slug),
    rating: Number(r.rating),
    reviewsCount: Number(r.reviews_count),
    startingPriceUgx: Number(r.starting_price_ugx),
    sellerName: String(r.seller_name),
    sellerUsername: String(r.seller_username),
    imageKey: r.image_key == null ? null : String(r.image_key),
  };
}

/** A seller's published gigs, for their public profile: best rated first. */
export async function listSellerGigs(db: Db, sellerId: number): Promise<GigCard[]> {
  const rows = await visibleGigs(db)
    .where("g.seller_id", sellerId)
    .select(gigCardColumns(db))
    .orderBy([
      { column: "g.rating", order: "desc" },
      { column: "g.id", order: "asc" },
    ])
    .limit(50);
  return rows.map(toGigCard);
}

// ---------------------------------------------------------------------------------------------------------
// One gig.

export type GigPackage = Omit<PackageInput, "tier"> & { tier: Tier; popular: boolean };

export type GigPage = {
  id: number;
  title: string;
  description: string;
  tags: string[];
  status: GigStatus;
  rating: number;
  reviewsCount: number;
  category: { slug: string; name: string };
  seller: {
    id: number;
    name: string;
    username: string;
    location: string;
    level: Level | null;
    rating: number;
    reviewsCount: number;
    avatarKey: string | null;
    /** For the page's "About the seller" card. */
    responseTimeHours: number | null;
    memberSince: Date;
    languages: string[];
    /** http(s) only, or null. */
    portfolioUrl: string | null;
    yearsExperience: number | null;
    /** "Email verified", "Phone verified", "Vetted" (ADR 051). */
    trust: TrustBadges;
  };
  packages: GigPackage[];
  images: string[];
};

/** The gig page's gig with one page of its reviews, newest first, and whether there is another page. */
export type GigPageWithReviews = { gig: GigPage; reviews: Review[]; hasMore: boolean };

/**
 * A gig as its page shows it. Anyone sees a published gig of an active seller; the owner (and an admin)
 * also sees drafts and paused gigs. Anyone else gets null, exactly as for an id that does not exist.
 */
export async function getGigPage(db: Db, id: number, viewer: Viewer): Promise<GigPage | null> {
  return (await readGigPage(db, id, viewer, null))?.gig ?? null;
}

/** getGigPage with the given page of the gig's reviews (1 is the newest), read in the same statement. */
export function getGigPageWithReviews(db: Db, id: number, viewer: Viewer, reviewsPage: number): Promise<GigPageWithReviews | null> {
  return readGigPage(db, id, viewer, reviewsPage);
}

type Viewer = { id: number; role: string } | null;

async function readGigPage(db: Db, id: number, viewer: Viewer, reviewsPage: number | null): Promise<GigPageWithReviews | null> {
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  // The gig page is the catalog's most viewed, rendered for every member and on every page-cache miss: its gig,
  // packages, images and reviews are one prepared statement, one round trip (ADR 023); named columns, so a
  // migration cannot change the statement's result. A gig the viewer may not see is read whole and dropped.
  const row = await prepared(
    db("gigs as g")
      .join("users as u", "u.id", "g.seller_id")
      .join("categories as c", "c.id", "g.category_id")
      .where("g.id", id)
      .first(
        "g.id",
        "g.title",
        "g.description",
        "g.tags",
        "g.status",
        "g.rating",
        "g.reviews_count",
        "g.seller_id",
        "g.starting_price_ugx",
        "c.slug as category_slug",
        "c.name as category_name",
        "u.name as seller_name",
        "u.username as seller_username",
        "u.location as seller_location",
        "u.level as seller_level",
        "u.rating as seller_rating",
        "u.reviews_count as seller_reviews_count",
        "u.avatar_key as seller_avatar_key",
        "u.response_time_hours as seller_response_time_hours",
        "u.created_at as seller_created_at",
        "u.languages as seller_languages",
        "u.portfolio_url as seller_portfolio_url",
        "u.years_experience as seller_years_experience",
        "u.status as seller_status",
        "u.email_verified_at as seller_email_verified_at",
        "u.phone_verified_at as seller_phone_verified_at",
        "u.vetted_at as seller_vetted_at",
        db.raw(
          `(SELECT coalesce(json_agg(json_build_object('tier', p.tier, 'name', p.name, 'description', p.description,
                      'price_ugx', p.price_ugx, 'delivery_days', p.delivery_days, 'revisions', p.revisions,
                      'features', p.features, 'popular', p.popular)), '[]'::json)
              FROM gig_packages p WHERE p.gig_id = g.id) AS packages`,
        ),
        db.raw(`(SELECT coalesce(array_agg(i.storage_key ORDER BY i.position, i.id), '{}') FROM gig_images i WHERE i.gig_id = g.id) AS images`),
        ...(reviewsPage === null ? [] : [db.raw("? AS reviews", [gigReviewsJson(db, id, reviewsPage)])]),
      ),
  );
  if (!row) return null;
  const own = viewer !== null && (viewer.id === Number(row.seller_id) || viewer.role === "admin");
  const publicGig = row.status === "published" && row.seller_status === "active" && row.starting_price_ugx !== null;
  if (!publicGig && !own) return null;
  const gig: GigPage = {
    id: Number(row.id),
    title: row.title,
    description: row.description,
    tags: row.tags,
    status: row.status,
    rating: Number(row.rating),
    reviewsCount: Number(row.reviews_count),
    category: { slug: row.category_slug, name: row.category_name },
    seller: {
      id: Number(row.seller_id),
      name: row.seller_name,
      username: row.seller_username,
      location: row.seller_location ?? "",
      level: row.seller_level ?? null,
      rating: Number(row.seller_rating),
      reviewsCount: Number(row.seller_reviews_count),
      avatarKey: row.seller_avatar_key ?? null,
      responseTimeHours: row.seller_response_time_hours == null ? null : Number(row.seller_response_time_hours),
      memberSince: row.seller_created_at,
      languages: row.seller_languages ?? [],
      portfolioUrl: /^https?:\/\//i.test(row.seller_portfolio_url ?? "") ? row.seller_portfolio_url : null,
      yearsExperience: row.seller_years_experience ?? null,
      trust: trustBadgesOf(row, "seller_"),
    },
    packages: toPackages(row.packages),
    images: row.images as string[],
  };
  return { gig, ...(reviewsPage === null ? { reviews: [], hasMore: false } : reviewPageFrom(row.reviews)) };
}

/** A gig's packages from their rows, basic to premium. */
function toPackages(rows: Record<string, unknown>[]): GigPackage[] {
  return rows
    .map((p) => ({
      tier: p.tier as Tier,
      name: p.name as string,
      description: p.description as string,
      priceUgx: Number(p.price_ugx),
      deliveryDays: p.delivery_days as number,
      revisions: p.revisions as number,
      features: p.features as string[],
      popular: p.popular as boolean,
    }))
    .sort((a, b) => TIERS.indexOf(a.tier) - TIERS.indexOf(b.tier));
}

async function listPackages(db: Db, gigId: number): Promise<GigPackage[]> {
  return toPackages(
    await db("gig_packages").where({ gig_id: gigId }).select("tier", "name", "description", "price_ugx", "delivery_days", "revisions", "features", "popular"),
  );
}

async function listImages(db: Db, gigId: number): Promise<string[]> {
  const rows = await db("gig_images").where({ gig_id: gigId }).orderBy(["position", "id"]).select("storage_key");
  return rows.map((r) => r.storage_key as string);
}

/** The seller's own gig as the edit form needs it; null when it is not theirs (or does not exist). */
export async function getOwnGig(db: Db, gigId: number, sellerId: number) {
  if (!Number.isSafeInteger(gigId) || gigId <= 0) return null;
  const gig = await db("gigs as g")
    .join("categories as c", "c.id", "g.category_id")
    .where({ "g.id": gigId, "g.seller_id": sellerId })
    .first("g.id", "g.title", "g.description", "g.tags", "g.status", "c.slug as category");
  if (!gig) return null;
  const [packages, images] = await Promise.all([listPackages(db, gigId), listImages(db, gigId)]);
  return {
    id: Number(gig.id),
    title: gig.title as string,
    description: gig.description as string,
    tags: gig.tags as string[],
    status: gig.status as GigStatus,
    category: gig.category as string,
    packages,
    images,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Writing.

export class GigInputError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

export const NOT_YOUR_IMAGE = "One of the images is not yours to use";

/** Of these image keys, the ones a seller may put on a gig: their own uploads, and the gig's current images. */
export async function ownImages(db: Db, sellerId: number, keys: string[], current: string[] = []): Promise<string[]> {
  if (keys.length === 0) return [];
  const owned = new Set<string>(await db("uploads").whereIn("storage_key", keys).andWhere("owner_id", sellerId).pluck("storage_key"));
  return keys.filter((key) => owned.has(key) || current.includes(key));
}

/** The images of a seller's gig (empty when it is not theirs). */
export async function gigImagesOf(db: Db, sellerId: number, gigId: number): Promise<string[]> {
  const gig = await db("gigs").where({ id: gigId, seller_id: sellerId }).first("id");
  return gig ? listImages(db, gigId) : [];
}

/** Remembers an image a member uploaded (and the bytes written for it), so only they can attach it to a gig. */
export async function recordUpload(db: Db, ownerId: number, storageKey: string, sizeBytes = 0) {
  await db("uploads").insert({ storage_key: storageKey, owner_id: ownerId, size_bytes: sizeBytes }).onConflict("storage_key").ignore();
}

/**
 * A seller's own gig, locked for the rest of the transaction (an operation about to change it reads it
 * first): null when it is not theirs, or does not exist.
 */
export async function lockOwnGig(db: Db, sellerId: number, gigId: number) {
  if (!Number.isSafeInteger(gigId) || gigId <= 0) return null;
  const row = await db("gigs").where({ id: gigId, seller_id: sellerId }).forUpdate().first("id", "title", "status", "published_at");
  if (!row) return null;
  return { id: Number(row.id), title: row.title as string, status: row.status as GigStatus, publishedAt: (row.published_at as Date | null) ?? null };
}

/**
 * Creates (no gigId) or updates a seller's gig with its packages and images. Throws GigInputError for a
 * category that does not exist or an image the seller did not upload (before writing anything); returns the
 * id and the images no gig uses any more (the caller deletes their files after the commit). It opens no
 * transaction of its own: the operation that calls it runs it inside its one transaction (ADR 012).
 */
export async function saveGig(
  db: Db,
  sellerId: number,
  value: GigFormValue,
  status: "draft" | "published",
  gigId?: number,
): Promise<{ id: number; removedImages: string[] }> {
  let current: { status: GigStatus; published_at: Date | null; category_id: number } | undefined;
  if (gigId !== undefined) {
    current = await db("gigs").where({ id: gigId, seller_id: sellerId }).forUpdate().first("status", "published_at", "category_id");
    if (!current) throw new GigInputError("form", "This gig does not exist");
  }
  // A hidden category (ADR 026) is no choice for a new gig or a move, but a gig already in it keeps it.
  const category = await db("categories").where({ slug: value.categorySlug }).first("id", "hidden");
  if (!category || (category.hidden && category.id !== current?.category_id)) throw new GigInputError("category", "Choose a category from the list");
  const previousImages = gigId === undefined ? [] : await listImages(db, gigId);
  const allowed = new Set(await ownImages(db, sellerId, value.images, previousImages));
  if (value.images.some((key) => !allowed.has(key))) throw new GigInputError("images", NOT_YOUR_IMAGE);

  const packages = value.packages;
  const columns = {
    category_id: category.id,
    title: value.title,
    description: value.description,
    tags: value.tags,
    status,
    starting_price_ugx: packages.length ? Math.min(...packages.map((p) => p.priceUgx)) : null,
    fastest_delivery_days: packages.length ? Math.min(...packages.map((p) => p.deliveryDays)) : null,
    published_at: status === "published" ? (current?.published_at ?? db.fn.now()) : (current?.published_at ?? null),
    updated_at: db.fn.now(),
  };
  let id = gigId;
  if (id === undefined) {
    const [row] = await db("gigs")
      .insert({ ...columns, seller_id: sellerId })
      .returning("id");
    id = Number(row.id);
  } else {
    await db("gigs").where({ id }).update(columns);
    await db("gig_packages").where({ gig_id: id }).delete();
    await db("gig_images").where({ gig_id: id }).delete();
  }
  if (packages.length) {
    const popular = packages.some((p) => p.tier === "standard") ? "standard" : null;
    await db("gig_packages").insert(
      packages.map((p) => ({
        gig_id: id,
        tier: p.tier,
        name: p.name,
        description: p.description,
        price_ugx: p.priceUgx,
        delivery_days: p.deliveryDays,
        revisions: p.revisions,
        features: p.features,
        popular: p.tier === popular,
      })),
    );
  }
  if (value.images.length) {
    await db("gig_images").insert(value.images.map((key, position) => ({ gig_id: id, storage_key: key, position, alt: value.title })));
  }
  if (status === "published") await addSearchTerms(db, [id]);
  // An image taken off the gig is gone for good (its files are deleted after commit), so it is no longer
  // an upload the seller could put back on a form.
  const removedImages = previousImages.filter((key) => !value.images.includes(key));
  if (removedImages.length) await db("uploads").whereIn("storage_key", removedImages).delete();
  return { id, removedImages };
}

/** Pauses a published gig or publishes a paused one again; false when it is not the seller's or not in that state. */
export async function setGigStatus(db: Db, sellerId: number, gigId: number, status: "paused" | "published"): Promise<boolean> {
  const from = status === "paused" ? "published" : "paused";
  const updated = await db("gigs")
    .where({ id: gigId, seller_id: sellerId, status: from })
    .whereNotNull("starting_price_ugx")
    .update({ status, updated_at: db.fn.now() });
  return updated === 1;
}

/**
 * Puts one more image at the end of a seller's gig (the caller holds the gig's lock): the gig's images after
 * it, or null when the gig already shows `max` images. No transaction of its own: the operation's.
 */
export async function appendGigImage(db: Db, gigId: number, storageKey: string, max: number): Promise<string[] | null> {
  const images = await listImages(db, gigId);
  if (images.includes(storageKey)) return images;
  if (images.length >= max) return null;
  const gig = await db("gigs").where({ id: gigId }).first("title");
  const last = await db("gig_images").where({ gig_id: gigId }).max<{ position: number | null }>("position as position").first();
  await db("gig_images").insert({ gig_id: gigId, storage_key: storageKey, position: (last?.position ?? -1) + 1, alt: gig?.title ?? "" });
  await db("gigs").where({ id: gigId }).update({ updated_at: db.fn.now() });
  return [...images, storageKey];
}

/**
 * Deletes a seller's gig (its packages and images go with it) and forgets its images as uploads; returns
 * their keys (to delete their files after the commit), or null when it is not theirs. No transaction of its
 * own: the operation's.
 */
export async function deleteGig(db: Db, sellerId: number, gigId: number): Promise<string[] | null> {
  const gig = await db("gigs").where({ id: gigId, seller_id: sellerId }).forUpdate().first("id");
  if (!gig) return null;
  const images = await listImages(db, gigId);
  await db("gigs").where({ id: gigId }).delete();
  if (images.length) await db("uploads").whereIn("storage_key", images).delete();
  return images;
}

/**
 * Forgets a member's upload that no gig uses (an image taken off a form before it was saved):
 * "removed" (the caller deletes its files after the commit), "in_use" when a gig still shows it (it goes
 * when that gig is saved without it), "not_found" when it is not their upload.
 */
export async function forgetUpload(db: Db, ownerId: number, storageKey: string): Promise<"removed" | "in_use" | "not_found"> {
  const upload = await db("uploads").where({ storage_key: storageKey, owner_id: ownerId }).forUpdate().first("storage_key");
  if (!upload) return "not_found";
  if (await db("gig_images").where({ storage_key: storageKey }).first("id")) return "in_use";
  await db("uploads").where({ storage_key: storageKey, owner_id: ownerId }).delete();
  return "removed";
}

/** Adds the words of these gigs (title, tags, description) to the words search can correct towards. */
async function addSearchTerms(db: Db, gigIds: number[] | null) {
  await db.raw(
    `INSERT INTO search_terms (term)
     SELECT DISTINCT w FROM gigs g,
       regexp_split_to_table(lower(g.title || ' ' || soko_tags_text(g.tags) || ' ' || g.description), '[^a-z0-9]+') AS w
     WHERE g.status = 'published' AND length(w) BETWEEN 3 AND 40 ${gigIds ? "AND g.id = ANY(?::bigint[])" : ""}
     ON CONFLICT DO NOTHING`,
    gigIds ? [gigIds] : [],
  );
}

/**
 * Recomputes every gig's starting price and fastest delivery from its packages, and the search words, for
 * data written in bulk (demo data, the benchmark's 100,000 gigs).
 */
export async function refreshCatalog(db: Db) {
  await db.raw(`
    UPDATE gigs g SET starting_price_ugx = p.price, fastest_delivery_days = p.days
    FROM (SELECT gig_id, min(price_ugx) AS price, min(delivery_days) AS days FROM gig_packages GROUP BY gig_id) p
    WHERE p.gig_id = g.id AND (g.starting_price_ugx IS DISTINCT FROM p.price OR g.fastest_delivery_days IS DISTINCT FROM p.days)`);
  await addSearchTerms(db, null);
}
