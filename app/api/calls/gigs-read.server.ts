/**
 * Gigs, read (ADR 041): the catalog as /browse and /search show it (the same filters, sorts and keyset pages,
 * app/models/catalog-search.server.ts), the landing's Featured Services, a category's and a seller's gigs, and
 * one gig as its page shows it. A draft or paused gig is "not found" to anyone but its seller (and an admin, as
 * on its page). The card and gig shapes here are also what the write calls answer (gigs-write.server.ts).
 */
import { categoryWordsIn } from "~/i18n/categories.server";
import type { Locale } from "~/i18n/locales";
import { z } from "zod";
import { catalogCursorFits, EMPTY_QUERY, listCatalog, listFeaturedGigs } from "~/models/catalog-search.server";
import { getGigPageWithReviews, gigCardColumns, toGigCard, visibleGigs, type GigCard, type GigPage } from "~/models/gig.server";
import type { Review } from "~/models/review.server";
import { invalid, limitedBy, notFound, ok, type Actor, type Result } from "~/operations/core.server";
import { currentUsdRate } from "~/operations/exchange-rates.server";
import { DELIVERY_FILTERS, PRICE_RANGES, QUERY_MAX, RATING_FILTERS, SORTS, TIERS, type CatalogQuery } from "~/schemas/gig";
import { getDb, type Db } from "~/server/db.server";
import { addressKey, consumeCatalog } from "~/server/rate-limit.server";
import { imageUrl } from "~/utils/media";
import { call } from "../route.server";
import { IdParams, iso, Iso, Money, moneyOf, PageQuery, pageOf } from "../shapes";
import { msg } from "~/i18n/message-key";

const TAG = "Gigs";

// ---------------------------------------------------------------------------------------------------------
// Shapes.

export const GigImage = z.object({
  key: z.string().describe("The upload key: what `images` of POST and PUT /gigs take to keep this image."),
  thumb: z.string().describe("A path on this site: 480 px wide."),
  large: z.string().describe("A path on this site: 1280 px wide."),
});
export const imageOf = (key: string) => ({ key, thumb: imageUrl(key, "thumb"), large: imageUrl(key, "large") });

const GigStatus = z.enum(["draft", "published", "paused"]);

export const GigCardSchema = z.object({
  id: z.number().int(),
  title: z.string(),
  status: GigStatus.describe("Always `published` in the catalog; a seller's own list shows their drafts and paused gigs too."),
  seller: z.object({ id: z.number().int(), name: z.string(), username: z.string(), level: z.string().nullable(), rating: z.number() }),
  startingPrice: Money.nullable().describe("The lowest package's price; null for a draft without packages."),
  rating: z.number(),
  reviewsCount: z.number().int(),
  image: GigImage.nullable().describe("The first image, or null."),
  category: z.object({ id: z.number().int(), slug: z.string(), name: z.string() }),
});
type Card = z.infer<typeof GigCardSchema>;

const Package = z.object({
  name: z
    .string()
    .describe(
      "The seller's name for the package, as written. One left unnamed has its tier's default name (Basic, Standard, Premium), kept so that a gig read and written back stays unnamed: show it as the tier, in the reader's language.",
    ),
  description: z.string(),
  price: Money,
  deliveryDays: z.number().int(),
  revisions: z.number().int(),
  features: z.array(z.string()),
  popular: z.boolean(),
});

export const GigDetail = z.object({
  id: z.number().int(),
  title: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  status: GigStatus,
  rating: z.number(),
  reviewsCount: z.number().int(),
  category: z.object({ slug: z.string(), name: z.string() }),
  seller: z.object({
    id: z.number().int(),
    name: z.string(),
    username: z.string(),
    location: z.string(),
    level: z.string().nullable(),
    rating: z.number(),
    reviewsCount: z.number().int(),
    avatar: z.string().nullable().describe("A path on this site, or null."),
    trust: z
      .object({ emailVerified: z.boolean(), phoneVerified: z.boolean(), vetted: z.boolean() })
      .describe("The badges the gig page shows (ADR 051): email and phone verified, vetted by an admin."),
  }),
  startingPrice: Money.nullable(),
  packages: z.object({ basic: Package.nullable(), standard: Package.nullable(), premium: Package.nullable() }),
  images: z.array(GigImage),
  reviews: z
    .object({
      items: z.array(
        z.object({
          id: z.number().int(),
          rating: z.number(),
          comment: z.string(),
          reviewerName: z.string(),
          createdAt: Iso,
          reply: z.object({ text: z.string(), createdAt: Iso }).nullable().describe("The seller's reply, or null."),
        }),
      ),
      hasMore: z.boolean(),
    })
    .describe("The newest reviews (the first page of the gig page's), and whether there are more."),
});
type Detail = z.infer<typeof GigDetail>;

/** The USD rate for Money figures (null when none is set: `usd` is then null). */
export const usdRate = async () => (await currentUsdRate())?.ugxPerUsd ?? null;

/** What a card needs beyond the catalog's own card: the seller's id, level and rating, the category's id, the status. */
type CardExtra = { status: string; seller_id: unknown; category_id: unknown; starting_price_ugx: unknown; seller_level: unknown; seller_rating: unknown };
const EXTRA_COLUMNS = ["g.status", "g.seller_id", "g.category_id", "g.starting_price_ugx", "u.level as seller_level", "u.rating as seller_rating"];

/** A category named in the reader's language (categoryWordsIn). */
type CategoryNamer = Awaited<ReturnType<typeof categoryWordsIn>>;

function cardOf(card: GigCard, extra: CardExtra, rate: number | null, inWords: CategoryNamer): Card {
  return {
    id: card.id,
    title: card.title,
    status: extra.status as Card["status"],
    seller: {
      id: Number(extra.seller_id),
      name: card.sellerName,
      username: card.sellerUsername,
      level: extra.seller_level == null ? null : String(extra.seller_level),
      rating: Number(extra.seller_rating),
    },
    startingPrice: extra.starting_price_ugx == null ? null : moneyOf(Number(extra.starting_price_ugx), rate),
    rating: card.rating,
    reviewsCount: card.reviewsCount,
    image: card.imageKey ? imageOf(card.imageKey) : null,
    category: inWords({ id: Number(extra.category_id), slug: card.categorySlug, name: card.categoryName }),
  };
}

/** The catalog's cards as the API's, in their order (one read for the sellers' and categories' ids). */
async function cardsOf(db: Db, cards: GigCard[], locale: Locale): Promise<Card[]> {
  if (!cards.length) return [];
  const [rows, rate, inWords] = await Promise.all([
    db("gigs as g")
      .join("users as u", "u.id", "g.seller_id")
      .whereIn(
        "g.id",
        cards.map((c) => c.id),
      )
      .select("g.id", ...EXTRA_COLUMNS),
    usdRate(),
    categoryWordsIn(locale),
  ]);
  const byId = new Map(rows.map((r: CardExtra & { id: unknown }) => [Number(r.id), r]));
  return cards.flatMap((card) => {
    const extra = byId.get(card.id);
    return extra ? [cardOf(card, extra, rate, inWords)] : [];
  });
}

function packageOf(p: GigPage["packages"][number], rate: number | null) {
  return {
    name: p.name,
    description: p.description,
    price: moneyOf(p.priceUgx, rate),
    deliveryDays: p.deliveryDays,
    revisions: p.revisions,
    features: p.features,
    popular: p.popular,
  };
}

function detailOf(gig: GigPage, reviews: Review[], hasMore: boolean, rate: number | null, inWords: CategoryNamer): Detail {
  const packages = Object.fromEntries(
    TIERS.map((tier) => {
      const p = gig.packages.find((x) => x.tier === tier);
      return [tier, p ? packageOf(p, rate) : null];
    }),
  ) as Detail["packages"];
  const prices = gig.packages.map((p) => p.priceUgx);
  return {
    id: gig.id,
    title: gig.title,
    description: gig.description,
    tags: gig.tags,
    status: gig.status,
    rating: gig.rating,
    reviewsCount: gig.reviewsCount,
    category: inWords(gig.category),
    seller: {
      id: gig.seller.id,
      name: gig.seller.name,
      username: gig.seller.username,
      location: gig.seller.location,
      level: gig.seller.level,
      rating: gig.seller.rating,
      reviewsCount: gig.seller.reviewsCount,
      avatar: gig.seller.avatarKey ? imageUrl(gig.seller.avatarKey, "avatar") : null,
      trust: gig.seller.trust,
    },
    startingPrice: prices.length ? moneyOf(Math.min(...prices), rate) : null,
    packages,
    images: gig.images.map(imageOf),
    reviews: {
      items: reviews.map((r) => ({
        id: r.id,
        rating: r.rating,
        comment: r.comment,
        reviewerName: r.reviewerName,
        createdAt: iso(r.createdAt),
        reply: r.reply !== null && r.repliedAt ? { text: r.reply, createdAt: iso(r.repliedAt) } : null,
      })),
      hasMore,
    },
  };
}

const viewerOf = (actor: Actor) => (actor.kind === "member" ? { id: actor.user.id, role: actor.user.role } : null);

/** One gig as its page shows it to this actor, with the newest reviews; null when they may not see it. */
export async function gigDetail(actor: Actor, id: number, locale: Locale): Promise<Detail | null> {
  const [found, rate, inWords] = await Promise.all([getGigPageWithReviews(getDb(), id, viewerOf(actor), 1), usdRate(), categoryWordsIn(locale)]);
  return found ? detailOf(found.gig, found.reviews, found.hasMore, rate, inWords) : null;
}

// ---------------------------------------------------------------------------------------------------------
// The catalog's query.

const keysOf = <T extends string>(options: Record<T, unknown>) => Object.keys(options) as [T, ...T[]];

const CatalogFilters = z.object({
  price: z.enum(keysOf(PRICE_RANGES)).optional().describe("On the starting (lowest package) price."),
  rating: z.enum(keysOf(RATING_FILTERS)).optional().describe("This rating and up."),
  delivery: z.enum(keysOf(DELIVERY_FILTERS)).optional().describe("The fastest package delivers within this many days."),
  vetted: z
    .enum(["true", "false"], { errorMap: () => ({ message: "api.vetted.filter" }) })
    .optional()
    .describe("`true`: only gigs of sellers an admin vetted (ADR 051)."),
  sort: z.enum(keysOf(SORTS)).default("relevance").describe("`relevance`: featured, then best rated; with a search, the best matches."),
});
const categorySlug = z.string().regex(/^[a-z0-9-]{1,60}$/, "api.gigs.category");
const BrowseQuery = PageQuery.merge(CatalogFilters).extend({ category: categorySlug.optional() });
const SearchQuery = BrowseQuery.extend({
  q: z
    .string({ required_error: "api.gigs.query" })
    .trim()
    .min(1, "api.gigs.query")
    .max(QUERY_MAX, msg("api.field.searchTooLong", { max: QUERY_MAX })),
});
const CatalogPage = pageOf(GigCardSchema);
const SearchPage = CatalogPage.extend({
  searchedFor: z.string().nullable().describe("What was searched for instead, when the words were corrected ('logo design' for 'logo desing')."),
});

const BAD_CURSOR = { "query.cursor": [{ code: "schema" as const, message: "api.gigs.cursor" }] };

/**
 * One page of the catalog, as /browse and /search read it: limited per address like the pages (a script
 * hammering the search meets it), a cursor that does not fit the query refused.
 */
async function catalogPage(actor: Actor, query: Omit<CatalogQuery, "cursor"> & { cursor?: string; limit: number }, locale: Locale) {
  const { limit, ...rest } = query;
  const catalogQuery: CatalogQuery = { ...EMPTY_QUERY, ...rest, cursor: rest.cursor ?? null };
  if (!catalogCursorFits(catalogQuery)) return invalid(BAD_CURSOR);
  const limited = await consumeCatalog(addressKey(actor.kind === "system" ? "" : actor.client.ip));
  if (limited) return limitedBy(limited);
  const db = getDb();
  const page = await listCatalog(db, catalogQuery, { limit, count: false });
  return ok({ items: await cardsOf(db, page.gigs, locale), nextCursor: page.nextCursor, searchedFor: page.searchedFor });
}

/** A category by its numeric id or its slug; a hidden one only for an admin. */
export async function findCategory(db: Db, idOrSlug: string, actor: Actor) {
  const row = await db("categories")
    .where(/^\d{1,15}$/.test(idOrSlug) ? { id: Number(idOrSlug) } : { slug: idOrSlug })
    .first("id", "slug", "hidden");
  const admin = actor.kind === "member" && actor.user.role === "admin";
  return row && (!row.hidden || admin) ? { id: Number(row.id), slug: String(row.slug) } : null;
}

export const IdOrSlug = z.object({
  id: z.string().regex(/^(\d{1,15}|[a-z0-9-]{1,60})$/, "api.categories.id"),
});

// ---------------------------------------------------------------------------------------------------------
// A seller's gigs.

const UserParams = z.object({ id: z.string().regex(/^(\d{1,15}|[A-Za-z0-9_]{3,30})$/, "api.member.id") });
const SellerQuery = PageQuery.extend({
  cursor: z
    .string()
    .regex(/^\d{1,16}$/, "api.page.listCursor")
    .optional(),
});

/**
 * A seller's gigs, newest first: the published ones a buyer may see, or, to the seller themselves, every gig
 * of theirs (drafts and paused ones too). Paged by id.
 */
async function sellerGigs(
  actor: Actor,
  idOrUsername: string,
  { limit, cursor, locale }: { limit: number; cursor: string | undefined; locale: Locale },
): Promise<Result<z.infer<typeof CatalogPage>>> {
  const db = getDb();
  const user = await db("users")
    .where(/^\d+$/.test(idOrUsername) ? { id: Number(idOrUsername) } : { username: idOrUsername.toLowerCase() })
    .first("id");
  if (!user) return notFound();
  const sellerId = Number(user.id);
  const own = actor.kind === "member" && actor.user.id === sellerId;
  const gigs = own ? db("gigs as g").join("users as u", "u.id", "g.seller_id") : visibleGigs(db);
  gigs.where("g.seller_id", sellerId);
  if (cursor) gigs.where("g.id", "<", Number(cursor));
  const [rows, rate, inWords] = await Promise.all([
    gigs
      .select(gigCardColumns(db))
      .select(EXTRA_COLUMNS)
      .orderBy("g.id", "desc")
      .limit(limit + 1),
    usdRate(),
    categoryWordsIn(locale),
  ]);
  const shown = rows.slice(0, limit) as (Record<string, unknown> & CardExtra)[];
  return ok({
    items: shown.map((r) => cardOf(toGigCard(r), r, rate, inWords)),
    nextCursor: rows.length > limit ? String(shown.at(-1)!.id) : null,
  });
}

// ---------------------------------------------------------------------------------------------------------
// The calls.

export const gigReadCalls = [
  call({
    method: "get",
    path: "/gigs",
    operationId: "listGigs",
    summary: "Browse the catalog: filters, sorts and pages as on /browse",
    tag: TAG,
    access: "public",
    shared: true,
    query: BrowseQuery,
    response: CatalogPage,
    async handle({ actor, query, locale }) {
      const result = await catalogPage(actor, { ...query, q: "", category: query.category ?? null, ...nullFilters(query) }, locale);
      return result.ok ? ok({ items: result.value.items, nextCursor: result.value.nextCursor }) : result;
    },
  }),
  call({
    method: "get",
    path: "/gigs/search",
    operationId: "searchGigs",
    summary: "Search the catalog, with the same filters and sorts as browsing",
    description: "Misspelt words are corrected when a correction finds more: `searchedFor` says what was searched for then.",
    tag: TAG,
    access: "public",
    shared: true,
    query: SearchQuery,
    response: SearchPage,
    handle: ({ actor, query, locale }) => catalogPage(actor, { ...query, category: query.category ?? null, ...nullFilters(query) }, locale),
  }),
  call({
    method: "get",
    path: "/gigs/featured",
    operationId: "featuredGigs",
    summary: "The landing page's Featured Services",
    tag: TAG,
    access: "public",
    shared: true,
    query: z.object({
      limit: z.coerce
        .number({ invalid_type_error: msg("api.field.numberFrom", { field: "limit", min: 1, max: 24 }) })
        .int()
        .min(1)
        .max(24)
        .default(4),
    }),
    response: pageOf(GigCardSchema).describe("One page: `nextCursor` is always null."),
    async handle({ query, locale }) {
      const db = getDb();
      return ok({ items: await cardsOf(db, await listFeaturedGigs(db, { limit: query.limit }), locale), nextCursor: null });
    },
  }),
  call({
    method: "get",
    path: "/gigs/category/{id}",
    operationId: "listCategoryGigs",
    summary: "A category's gigs, by the category's number or slug, with the browse filters",
    tag: TAG,
    access: "public",
    shared: true,
    params: IdOrSlug,
    query: PageQuery.merge(CatalogFilters),
    response: CatalogPage,
    failures: [404],
    async handle({ actor, params, query, locale }) {
      const category = await findCategory(getDb(), params.id, actor);
      if (!category) return notFound();
      const result = await catalogPage(actor, { ...query, q: "", category: category.slug, ...nullFilters(query) }, locale);
      return result.ok ? ok({ items: result.value.items, nextCursor: result.value.nextCursor }) : result;
    },
  }),
  call({
    method: "get",
    path: "/gigs/user/{id}",
    operationId: "listUserGigs",
    summary: "A seller's gigs, by their number or username, newest first",
    description: "Their published gigs; with the seller's own token, their drafts and paused gigs too.",
    tag: TAG,
    access: "public",
    params: UserParams,
    query: SellerQuery,
    response: CatalogPage,
    failures: [404],
    handle: ({ actor, params, query, locale }) => sellerGigs(actor, params.id, { limit: query.limit, cursor: query.cursor, locale }),
  }),
  call({
    method: "get",
    path: "/gigs/{id}",
    operationId: "getGig",
    summary: "A gig as its page shows it: packages, seller, the newest reviews",
    description: "A draft or paused gig is 404 to anyone but its seller.",
    tag: TAG,
    access: "public",
    shared: true,
    params: IdParams,
    response: GigDetail,
    failures: [404],
    async handle({ actor, params, locale }) {
      const gig = await gigDetail(actor, params.id, locale);
      return gig ? ok(gig) : notFound("gig.not_found");
    },
  }),
];

/** The filters a query left out, as the catalog's nulls. */
function nullFilters(query: z.infer<typeof CatalogFilters>) {
  return { price: query.price ?? null, rating: query.rating ?? null, delivery: query.delivery ?? null, vetted: query.vetted === "true" };
}
