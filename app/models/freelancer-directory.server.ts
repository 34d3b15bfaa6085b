/**
 * The directory of freelancers (the JSON API's GET /users/freelancers): active freelancers, filtered by skill,
 * category (one of their published gigs is in it), location, minimum rating and level, best rated first and
 * then by id, paged by a keyset cursor (the last row's rating and id) so that a page never repeats or skips a
 * member however many rows come before it. Reads only what anyone may see of a member (no email, no payout
 * number), as their public profile does.
 */
import type { Knex } from "knex";
import type { Level } from "~/domain/catalog-vocabulary";
import type { Db } from "~/server/db.server";

export type DirectoryQuery = {
  /** One of the member's skills, whatever its case. */
  skill?: string;
  /** A category's slug or id: members with a published gig in it. */
  category?: string;
  /** Part of the member's location, whatever its case. */
  location?: string;
  /** The lowest rating (0–5). */
  rating?: number;
  /** The member's level (its code: top_rated). */
  level?: Level;
  limit: number;
  after: DirectoryCursor | null;
};

/** Where a page ends: the last row's rating (as Postgres prints it, exact) and id. */
export type DirectoryCursor = { rating: string; id: number };

export type DirectoryEntry = {
  id: number;
  name: string;
  username: string;
  avatarKey: string | null;
  level: Level;
  rating: number;
  reviewsCount: number;
  location: string;
  bio: string;
  skills: string[];
  languages: string[];
  portfolioUrl: string | null;
  yearsExperience: number | null;
  responseTimeHours: number | null;
  memberSince: Date;
};

const RATING = /^\d\.\d{2}$/;

export function encodeDirectoryCursor(cursor: DirectoryCursor): string {
  return Buffer.from(`${cursor.rating}:${cursor.id}`, "utf8").toString("base64url");
}

/** A cursor this list gave, or null for anything else (the caller refuses it). */
export function decodeDirectoryCursor(text: string): DirectoryCursor | null {
  if (!/^[A-Za-z0-9_-]{1,100}$/.test(text)) return null;
  const match = /^(\d\.\d{2}):([1-9]\d{0,15})$/.exec(Buffer.from(text, "base64url").toString("utf8"));
  if (!match || !RATING.test(match[1]!)) return null;
  const id = Number(match[2]);
  return Number.isSafeInteger(id) && Number(match[1]) <= 5 ? { rating: match[1]!, id } : null;
}

/** `%` and `_` typed by someone are themselves in a LIKE pattern, not wildcards. */
const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** One page of the directory and the cursor of the next (null on the last). */
export async function listFreelancers(db: Db, q: DirectoryQuery): Promise<{ items: DirectoryEntry[]; next: DirectoryCursor | null }> {
  const query = db("users as u")
    .where({ "u.role": "freelancer", "u.status": "active" })
    .whereNull("u.deleted_at")
    .select(
      "u.id",
      "u.name",
      "u.username",
      "u.avatar_key",
      "u.level",
      "u.rating",
      db.raw("u.rating::numeric(3, 2)::text AS rating_key"),
      "u.reviews_count",
      "u.location",
      "u.bio",
      "u.skills",
      "u.languages",
      "u.portfolio_url",
      "u.years_experience",
      "u.response_time_hours",
      "u.created_at",
    );
  if (q.skill) query.whereRaw("EXISTS (SELECT 1 FROM unnest(u.skills) AS s(skill) WHERE lower(s.skill) = lower(?))", [q.skill]);
  if (q.location) query.whereRaw("u.location ILIKE ? ESCAPE '\\'", [`%${likeEscaped(q.location)}%`]);
  if (q.level) query.where("u.level", q.level);
  if (q.rating !== undefined) query.where("u.rating", ">=", q.rating);
  if (q.category) {
    const byId = /^\d{1,9}$/.test(q.category);
    query.whereExists((sub: Knex.QueryBuilder) => {
      sub
        .select(db.raw("1"))
        .from("gigs as g")
        .join("categories as c", "c.id", "g.category_id")
        .whereRaw("g.seller_id = u.id")
        .where("g.status", "published")
        .where(byId ? { "c.id": Number(q.category) } : { "c.slug": q.category!.toLowerCase() });
    });
  }
  if (q.after) {
    const { rating, id } = q.after;
    query.where((w) => w.where("u.rating", "<", rating).orWhere((same) => same.where("u.rating", "=", rating).andWhere("u.id", ">", id)));
  }
  const rows = await query
    .orderBy("u.rating", "desc")
    .orderBy("u.id", "asc")
    .limit(q.limit + 1);
  const page = rows.slice(0, q.limit);
  const last = page[page.length - 1];
  return {
    items: page.map((u) => ({
      id: Number(u.id),
      name: u.name,
      username: u.username,
      avatarKey: u.avatar_key ?? null,
      level: u.level,
      rating: Number(u.rating),
      reviewsCount: Number(u.reviews_count),
      location: u.location,
      bio: u.bio,
      skills: u.skills,
      languages: u.languages,
      portfolioUrl: u.portfolio_url ?? null,
      yearsExperience: u.years_experience ?? null,
      responseTimeHours: u.response_time_hours ?? null,
      memberSince: u.created_at,
    })),
    next: rows.length > q.limit && last ? { rating: last.rating_key, id: Number(last.id) } : null,
  };
}
