import type { Db } from "~/utils/db.server";

/** What a gig card shows (landing Featured Services; later browse, search and profiles). */
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

function gigCardQuery(db: Db) {
  return db("gigs as g")
    .join("categories as c", "c.id", "g.category_id")
    .join("users as u", "u.id", "g.seller_id")
    .where("g.status", "published")
    .andWhere("u.status", "active")
    // A gig is only shown with a package to buy (publishing requires Basic; this guards old rows).
    .whereExists((q) => q.select(db.raw("1")).from("gig_packages as p").whereRaw("p.gig_id = g.id"))
    .select(
      "g.id",
      "g.title",
      "c.name as category_name",
      "c.slug as category_slug",
      "g.rating",
      "g.reviews_count",
      "u.name as seller_name",
      "u.username as seller_username",
      db.raw("(SELECT min(p.price_ugx) FROM gig_packages p WHERE p.gig_id = g.id) AS starting_price_ugx"),
      db.raw(
        "(SELECT i.storage_key FROM gig_images i WHERE i.gig_id = g.id ORDER BY i.position LIMIT 1) AS image_key",
      ),
    );
}

function toGigCard(r: Record<string, unknown>): GigCard {
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

/** Featured Services on the landing page: gigs marked featured first, then the best rated. */
export async function listFeaturedGigs(db: Db, { limit = 4 }: { limit?: number } = {}): Promise<GigCard[]> {
  const rows = await gigCardQuery(db)
    .orderBy([
      { column: "g.featured", order: "desc" },
      { column: "g.rating", order: "desc" },
      { column: "g.reviews_count", order: "desc" },
      { column: "g.id", order: "asc" },
    ])
    .limit(limit);
  return rows.map(toGigCard);
}

/** A seller's published gigs, for their public profile: best rated first. */
export async function listSellerGigs(db: Db, sellerId: number): Promise<GigCard[]> {
  const rows = await gigCardQuery(db)
    .where("g.seller_id", sellerId)
    .orderBy([
      { column: "g.rating", order: "desc" },
      { column: "g.id", order: "asc" },
    ])
    .limit(50);
  return rows.map(toGigCard);
}
