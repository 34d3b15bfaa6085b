/**
 * The directory of freelancers (the /freelancers page and the JSON API's GET /users/freelancers, one model for
 * both): active freelancers, filtered by skill, category (one of their published gigs is in it), location,
 * language, minimum rating, level and vetting (an admin checked their portfolio), sorted by rating, by level or by
 * recent activity, each sort with its own keyset cursor (the last row's sort values and id) so that a page never
 * repeats or skips a member however many rows come before it. Each sort reads along its own partial index
 * (migrations/20261207140001_saved_gigs_and_directory.ts, whose expressions are these). Reads only what anyone may
 * see of a member (no email, no payout number), as their public profile does.
 */
import type { Knex } from "knex";
import type { Level } from "~/domain/catalog-vocabulary";
import type { Db } from "~/server/db.server";

export const DIRECTORY_SORTS = ["rating", "level", "active"] as const;
export type DirectorySort = (typeof DIRECTORY_SORTS)[number];

export type DirectoryQuery = {
  /** One of the member's skills, whatever its case. */
  skill?: string;
  /** A category's slug or id: members with a published gig in it. */
  category?: string;
  /** Part of the member's location, whatever its case. */
  location?: string;
  /** One of the languages they speak, whatever its case. */
  language?: string;
  /** The lowest rating (0–5). */
  rating?: number;
  /** The member's level (its code: top_rated). */
  level?: Level;
  /** Only freelancers an admin vetted. */
  vetted?: boolean;
  /** Best rated first (the default), highest level first, or most recently active first; then by id. */
  sort?: DirectorySort;
  limit: number;
  /** The next page after this cursor (a page's `next`)… */
  after: DirectoryCursor | null;
  /** …or the page before this one (a page's `previous`); with both, `before` wins. */
  before?: DirectoryCursor | null;
};

/**
 * Where a page ends, for its sort: the last row's rating (as Postgres prints it, exact), its level's rank, or the
 * time it was last active (as Postgres prints it, to the microsecond), and its id.
 */
export type DirectoryCursor =
  { sort: "rating"; rating: string; id: number } | { sort: "level"; rank: number; rating: string; id: number } | { sort: "active"; at: string; id: number };

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
  vetted: boolean;
  lastActiveAt: Date | null;
};

/** The level's rank, as the level index has it: top_rated 3, level_2 2, level_1 1, anything else 0. */
const LEVEL_RANK = "(CASE u.level WHEN 'top_rated' THEN 3 WHEN 'level_2' THEN 2 WHEN 'level_1' THEN 1 ELSE 0 END)";
/** When they were last active; never counts as the epoch, last (as the activity index has it). */
const ACTIVE_AT = "coalesce(u.last_active_at, 'epoch'::timestamptz)";

const RATING = "\\d\\.\\d{2}";
const ID = "([1-9]\\d{0,15})";
/** A time as Postgres prints a timestamptz in UTC: 2026-12-07 13:40:00.123456+00. */
const TIME = "(\\d{4}-\\d{2}-\\d{2} \\d{2}:\\d{2}:\\d{2}(?:\\.\\d{1,6})?\\+00)";

export function encodeDirectoryCursor(cursor: DirectoryCursor): string {
  const text =
    cursor.sort === "rating"
      ? `${cursor.rating}:${cursor.id}` // the form cursors had before the other sorts, still valid
      : cursor.sort === "level"
        ? `level:${cursor.rank}:${cursor.rating}:${cursor.id}`
        : `active:${cursor.at}:${cursor.id}`;
  return Buffer.from(text, "utf8").toString("base64url");
}

const safeId = (text: string) => {
  const id = Number(text);
  return Number.isSafeInteger(id) ? id : null;
};

/** A cursor this list gave, or null for anything else (the caller refuses it). */
export function decodeDirectoryCursor(text: string): DirectoryCursor | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(text)) return null;
  const plain = Buffer.from(text, "base64url").toString("utf8");
  let m = new RegExp(`^(${RATING}):${ID}$`).exec(plain);
  if (m) {
    const id = safeId(m[2]!);
    return id !== null && Number(m[1]) <= 5 ? { sort: "rating", rating: m[1]!, id } : null;
  }
  m = new RegExp(`^level:([0-3]):(${RATING}):${ID}$`).exec(plain);
  if (m) {
    const id = safeId(m[3]!);
    return id !== null && Number(m[2]) <= 5 ? { sort: "level", rank: Number(m[1]), rating: m[2]!, id } : null;
  }
  m = new RegExp(`^active:${TIME}:${ID}$`).exec(plain);
  if (m) {
    const id = safeId(m[2]!);
    return id !== null && !Number.isNaN(Date.parse(m[1]!.replace(" ", "T").replace("+00", "Z"))) ? { sort: "active", at: m[1]!, id } : null;
  }
  return null;
}

/** `%` and `_` typed by someone are themselves in a LIKE pattern, not wildcards. */
const likeEscaped = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * One page of the directory, the cursor of the next (null on the last) and of the previous (null on the first).
 * A cursor of another sort is ignored (the first page): the callers refuse it first.
 */
export async function listFreelancers(
  db: Db,
  q: DirectoryQuery,
): Promise<{ items: DirectoryEntry[]; next: DirectoryCursor | null; previous: DirectoryCursor | null }> {
  const sort = q.sort ?? "rating";
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
      db.raw(`${LEVEL_RANK} AS level_rank`),
      // In UTC whatever the session's zone, so the cursor's text is the same time however it is read back.
      db.raw(`to_char(${ACTIVE_AT} AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') || '+00' AS active_key`),
      "u.reviews_count",
      "u.location",
      "u.bio",
      "u.skills",
      "u.languages",
      "u.portfolio_url",
      "u.years_experience",
      "u.response_time_hours",
      "u.created_at",
      "u.vetted_at",
      "u.last_active_at",
    );
  if (q.skill) query.whereRaw("EXISTS (SELECT 1 FROM unnest(u.skills) AS s(skill) WHERE lower(s.skill) = lower(?))", [q.skill]);
  if (q.language) query.whereRaw("EXISTS (SELECT 1 FROM unnest(u.languages) AS l(language) WHERE lower(l.language) = lower(?))", [q.language]);
  if (q.location) query.whereRaw("u.location ILIKE ? ESCAPE '\\'", [`%${likeEscaped(q.location)}%`]);
  if (q.level) query.where("u.level", q.level);
  if (q.rating !== undefined) query.where("u.rating", ">=", q.rating);
  if (q.vetted) query.whereNotNull("u.vetted_at");
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
  // Forward from `after` (or the start), or backward from `before` (read in the reverse order, then turned round).
  const before = q.before && q.before.sort === sort ? q.before : null;
  const after = !before && q.after && q.after.sort === sort ? q.after : null;
  const keys = SORT_KEYS[sort];
  const from = before ?? after;
  if (from) {
    const values = valuesOf(from);
    // (k1 past v1) OR (k1 = v1 AND ((k2 past v2) OR (k2 = v2 AND …))), "past" in the direction of reading.
    const sql: string[] = [];
    const bindings: unknown[] = [];
    keys.forEach(([expr, order, cast], i) => {
      const forwardOp = order === "desc" ? "<" : ">";
      const op = before ? (forwardOp === "<" ? ">" : "<") : forwardOp;
      const value = `?${cast}`;
      sql.push(i < keys.length - 1 ? `(${expr} ${op} ${value} OR (${expr} = ${value} AND ` : `${expr} ${op} ${value}`);
      bindings.push(values[i], ...(i < keys.length - 1 ? [values[i]] : []));
    });
    query.whereRaw(`(${sql.join("")}${"))".repeat(keys.length - 1)})`, bindings as Knex.RawBinding[]);
  }
  const flip = (order: "asc" | "desc") => (before ? (order === "asc" ? "DESC" : "ASC") : order.toUpperCase());
  query.orderByRaw(keys.map(([expr, order]) => `${expr} ${flip(order)}`).join(", "));
  const rows = await query.limit(q.limit + 1);
  const more = rows.length > q.limit;
  const page = rows.slice(0, q.limit);
  if (before) page.reverse();
  const first = page[0];
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
      vetted: u.vetted_at !== null,
      lastActiveAt: u.last_active_at ?? null,
    })),
    // Going forward, there is more after if a row was left over; going backward, the page came from the one after it.
    next: last && (before ? true : more) ? cursorOf(sort, last) : null,
    previous: first && (before ? more : Boolean(after)) ? cursorOf(sort, first) : null,
  };
}

/** Each sort's keys in order: the expression, its direction, and the cast of a cursor's value compared with it. */
const SORT_KEYS: Record<DirectorySort, [expr: string, order: "asc" | "desc", cast: string][]> = {
  rating: [
    ["u.rating", "desc", "::numeric"],
    ["u.id", "asc", "::bigint"],
  ],
  level: [
    [LEVEL_RANK, "desc", "::int"],
    ["u.rating", "desc", "::numeric"],
    ["u.id", "asc", "::bigint"],
  ],
  active: [
    [ACTIVE_AT, "desc", "::timestamptz"],
    ["u.id", "asc", "::bigint"],
  ],
};

const valuesOf = (c: DirectoryCursor): (string | number)[] =>
  c.sort === "rating" ? [c.rating, c.id] : c.sort === "level" ? [c.rank, c.rating, c.id] : [c.at, c.id];

function cursorOf(sort: DirectorySort, row: Record<string, unknown>): DirectoryCursor {
  const id = Number(row.id);
  if (sort === "level") return { sort, rank: Number(row.level_rank), rating: String(row.rating_key), id };
  if (sort === "active") return { sort, at: String(row.active_key), id };
  return { sort, rating: String(row.rating_key), id };
}
