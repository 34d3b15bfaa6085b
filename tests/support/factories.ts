/**
 * Test data: the one place that knows how a valid row looks (like the Epic Stack's tests/db-utils.ts).
 * Tests ask for a member, a session, a category, a gig with its packages or a review, and say only what
 * matters to them; everything else gets a valid default. Rows go in the way the app writes them (sessions
 * and gigs through their models, reviews through the reviews operation), so a test sees what the app itself
 * would have stored. Members are written directly: a join's operation also records activity and effects.
 *
 * Not the same thing as gig-form.ts, which is the form a browser posts.
 */
import type { Knex } from "knex";
import { recordUpload, saveGig } from "~/models/gig.server";
import { postJournal } from "~/models/ledger-journals.server";
import { createSession as startSession } from "~/models/session.server";
import type { Role, UserStatus } from "~/models/user.server";
import { systemActor } from "~/operations/core.server";
import { createReviews } from "~/operations/reviews.server";
import type { Db } from "~/server/db.server";
import type { GigFormValue, PackageInput, Tier } from "~/schemas/gig";
import { hashPassword } from "~/server/password.server";
import { LOGO_CATEGORY } from "./gig-form";

/** The password every factory member has unless a test gives another. */
export const DEFAULT_PASSWORD = "correct-horse-9";

let sequence = 0;
const next = () => ++sequence;

// scrypt at N=2^17 costs about 0.3 s a hash: one hash per distinct password per test process is enough
// (members who share a password share a salt here, which only tests do).
const hashes = new Map<string, Promise<string>>();
function cachedHash(password: string): Promise<string> {
  let hash = hashes.get(password);
  if (!hash) {
    hash = hashPassword(password);
    hashes.set(password, hash);
    hash.catch(() => hashes.delete(password));
  }
  return hash;
}

/** A username from a name, as the users table allows them (3 to 30 of a-z, 0-9 and _). */
function usernameOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "_")
    .replace(/^_+|_+$/g, "")
    .slice(0, 30)
    .padEnd(3, "_");
}

export type UserOptions = {
  role?: Role;
  name?: string;
  /** Made from the name when not given. */
  username?: string;
  /** `<username with dots>@example.ug` when not given. */
  email?: string;
  /** The plain password (DEFAULT_PASSWORD when not given); null for a member without one. */
  password?: string | null;
  /** A stored hash as it is, instead of hashing `password` (an old or damaged hash). */
  passwordHash?: string;
  status?: UserStatus;
  preferredCurrency?: "UGX" | "USD";
  /** A verified phone (+2567XXXXXXXX): texts go to it and payouts are allowed (ADR 050). */
  verifiedPhone?: string;
  /** False for a member who has not followed their verification link yet (ADR 051); verified by default. */
  emailVerified?: boolean;
};

export type TestUser = { id: number; name: string; username: string; email: string; password: string | null; role: Role };

/** A member, written as a join writes one (level by role), without the join's activity row. */
export async function createUser(db: Db, options: UserOptions = {}): Promise<TestUser> {
  const role = options.role ?? "client";
  const name = options.name ?? `Test ${role} ${next()}`;
  const username = options.username ?? usernameOf(name);
  const email = options.email ?? `${username.replace(/_/g, ".")}@example.ug`;
  const password = options.password === undefined ? DEFAULT_PASSWORD : options.password;
  const passwordHash = options.passwordHash ?? (password === null ? null : await cachedHash(password));
  const [row] = await db("users")
    .insert({
      name,
      username,
      email,
      password_hash: passwordHash,
      role,
      status: options.status ?? "active",
      level: role === "freelancer" ? "new" : "member",
      ...(options.preferredCurrency ? { preferred_currency: options.preferredCurrency } : {}),
      ...(options.verifiedPhone ? { phone: options.verifiedPhone, phone_verified_at: db.fn.now() } : {}),
      email_verified_at: options.emailVerified === false ? null : db.fn.now(),
    })
    .returning("id");
  return { id: Number(row.id), name, username, email, password, role };
}

/** A signed-in session of a member, through the model; returns the cookie's token. */
export async function createSession(db: Db, userId: number, { persistent = false }: { persistent?: boolean } = {}): Promise<string> {
  return (await startSession(db, { userId, persistent })).token;
}

export type CategoryOptions = { slug?: string; name?: string; position?: number };

/**
 * A category: LOGO_CATEGORY (the one gig-form.ts's valid gig names) when no slug is given. Every test database
 * already has the six a migration makes (ADR 026): a slug among them is that category, reused as it is (a
 * name or position given for it is set on it); any other slug is a new category, after the six unless a
 * position is given.
 */
export async function createCategory(db: Db, options: CategoryOptions = {}): Promise<{ id: number; slug: string; name: string }> {
  const slug = options.slug ?? LOGO_CATEGORY.slug;
  const existing = await db("categories").where({ slug }).first("id", "name");
  if (existing) {
    const changes = { ...(options.name ? { name: options.name } : {}), ...(options.position !== undefined ? { position: options.position } : {}) };
    if (Object.keys(changes).length) await db("categories").where({ id: existing.id }).update(changes);
    return { id: Number(existing.id), slug, name: options.name ?? existing.name };
  }
  const name = options.name ?? titleOf(slug);
  const last = await db("categories").max<{ max: number | null }>("position as max").first();
  const [row] = await db("categories")
    .insert({ slug, name, position: options.position ?? (last?.max ?? -1) + 1 })
    .returning("id");
  return { id: Number(row.id), slug, name };
}

const titleOf = (slug: string) =>
  slug
    .split("-")
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(" ");

/** A package as a test names it: its price and delivery; the rest has the form's defaults. */
export type PackageOptions = { priceUgx: number; deliveryDays: number } & Partial<Omit<PackageInput, "tier" | "priceUgx" | "deliveryDays">>;

export type GigOptions = {
  sellerId: number;
  /** A category's slug; LOGO_CATEGORY (one of the migration's six) when not given. */
  category?: string;
  title?: string;
  /** Empty unless given (the form asks for one before publishing; empty keeps search tests' words their own). */
  description?: string;
  tags?: string[];
  status?: "draft" | "published" | "paused";
  /** By tier; a Basic package at UGX 75,000 in 3 days when not given, none with `{}`. */
  packages?: Partial<Record<Tier, PackageOptions>>;
  /** Image storage keys, recorded as the seller's uploads first (the model only takes a seller's own). */
  images?: string[];
  /** What reviews and the platform set, not the seller's form. */
  rating?: number;
  reviewsCount?: number;
  featured?: boolean;
  /** When the gig was first published (now, for a published gig, when not given). */
  publishedAt?: Date | string | null;
};

const TIER_ORDER: Tier[] = ["basic", "standard", "premium"];
const TIER_NAME: Record<Tier, string> = { basic: "Basic", standard: "Standard", premium: "Premium" };

/**
 * A gig with its packages and images, saved by the model as the gig form saves one (starting price,
 * fastest delivery and search words kept in step), then given what a seller cannot set: a rating, a
 * review count, a featured flag, a publication time, the paused state.
 */
export async function createGig(db: Knex, options: GigOptions): Promise<{ id: number; title: string }> {
  const status = options.status ?? "published";
  const category = options.category ?? LOGO_CATEGORY.slug;
  const title = options.title ?? `Test gig ${next()}`;
  const packages = Object.entries(options.packages ?? { basic: { priceUgx: 75_000, deliveryDays: 3 } })
    .filter((entry): entry is [string, PackageOptions] => entry[1] !== undefined)
    .sort(([a], [b]) => TIER_ORDER.indexOf(a as Tier) - TIER_ORDER.indexOf(b as Tier))
    .map(([tier, p]): PackageInput => ({
      tier: tier as Tier,
      name: TIER_NAME[tier as Tier],
      description: "",
      revisions: 1,
      features: [],
      ...p,
    }));
  const images = options.images ?? [];
  for (const key of images) await recordUpload(db, options.sellerId, key);
  const value: GigFormValue = {
    title,
    categorySlug: category,
    description: options.description ?? "",
    tags: options.tags ?? [],
    images,
    packages,
  };
  const { id } = await saveGig(db, options.sellerId, value, status === "draft" ? "draft" : "published");
  const set = {
    ...(status === "paused" ? { status } : {}),
    ...(options.rating !== undefined ? { rating: options.rating } : {}),
    ...(options.reviewsCount !== undefined ? { reviews_count: options.reviewsCount } : {}),
    ...(options.featured !== undefined ? { featured: options.featured } : {}),
    ...(options.publishedAt !== undefined ? { published_at: options.publishedAt } : {}),
  };
  if (Object.keys(set).length) await db("gigs").where({ id }).update(set);
  return { id, title };
}

export type ReviewOptions = { gigId: number; reviewerId: number; rating: number; comment?: string; createdAt?: Date };

/**
 * A review of a published gig, with the gig's and its seller's rating and review count rolled up in the same
 * transaction. Every factory review is written by writeReview, the one place that knows how reviews are made.
 */
export function createReview(db: Knex, options: ReviewOptions): Promise<{ id: number }> {
  return writeReview(db, options);
}

/** Through the reviews operation, as the platform (the demo data's way in): its rules hold for test data too. */
async function writeReview(db: Knex, { gigId, reviewerId, rating, comment = "", createdAt }: ReviewOptions): Promise<{ id: number }> {
  const result = await createReviews(systemActor("test data"), { gigId, reviews: [{ reviewerId, rating, comment, createdAt }] }, { db });
  if (!result.ok) throw new Error(`createReview: ${JSON.stringify(result)}`);
  return { id: result.value.ids[0]! };
}

export type CompletedOrderOptions = { sellerId: number; buyerId: number; gigId: number; priceUgx?: number; completedAt?: Date };

/**
 * An order as it stands once completed (ADR 049's figures read it): paid, delivered on time and approved at
 * `completedAt` (now by default), its money through the ledger's own journals (captured into escrow, then
 * released to the seller less the 20% seller fee). For tests that need a seller's history, not its steps:
 * the steps themselves are tests/support/orders.ts's completedTestOrder.
 */
export async function createCompletedOrder(db: Knex, options: CompletedOrderOptions): Promise<{ id: number }> {
  const priceUgx = options.priceUgx ?? 150_000;
  const sellerFeeUgx = Math.round(priceUgx * 0.2);
  const buyerFeeUgx = Math.max(1_000, Math.round(priceUgx * 0.05));
  const completedAt = options.completedAt ?? new Date();
  const day = 24 * 60 * 60 * 1000;
  const paidAt = new Date(completedAt.getTime() - 3 * day);
  return db.transaction(async (trx) => {
    const [row] = await trx("orders")
      .insert({
        buyer_id: options.buyerId,
        seller_id: options.sellerId,
        gig_id: options.gigId,
        gig_title: `Completed order ${next()}`,
        tier: "basic",
        package_name: "Basic",
        price_ugx: priceUgx,
        buyer_fee_ugx: buyerFeeUgx,
        seller_fee_ugx: sellerFeeUgx,
        ugx_per_usd: 3700,
        delivery_days: 3,
        revisions_allowed: 1,
        status: "completed",
        checkout_key: `factory-${next()}-${Date.now()}`,
        created_at: paidAt,
        paid_at: paidAt,
        due_at: new Date(paidAt.getTime() + 3 * day),
        delivered_at: new Date(paidAt.getTime() + 2 * day),
        completed_at: completedAt,
        updated_at: completedAt,
      })
      .returning("id");
    const id = Number(row.id);
    await trx("deliveries").insert({ order_id: id, message: "Here it is", created_at: new Date(paidAt.getTime() + 2 * day) });
    await postJournal(trx, "payment_captured", { orderId: id, priceUgx, paidUgx: priceUgx + buyerFeeUgx });
    await postJournal(trx, "escrow_released", { orderId: id, sellerId: options.sellerId, priceUgx, sellerFeeUgx, buyerFeeUgx });
    return { id };
  });
}
