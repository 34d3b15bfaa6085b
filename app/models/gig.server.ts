/**
 * Gigs: the catalog buyers browse and search, the gig page, and a seller's own gigs. The only module that
 * writes `gigs`, `gig_packages`, `gig_images` and `search_terms`; it keeps each gig's starting price,
 * fastest delivery and the searchable words in step with its packages, in the same transaction. A search
 * reads `gig_search`, which triggers keep in step with `gigs` and `users` (migration 20261126210001).
 */
import type { Knex } from "knex";
import { gigReviewsJson, reviewPageFrom, type Review } from "~/models/review.server";
import { prepared, type Db } from "~/server/db.server";
import {
  PRICE_RANGES,
  TIERS,
  type CatalogQuery,
  type GigFormValue,
  type PackageInput,
  type Sort,
  type Tier,
} from "~/schemas/gig";

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

function gigCardColumns(db: Db) {
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

/** Featured Services on the landing page: the catalog's default order (featured first, then best rated). */
export async function listFeaturedGigs(db: Db, { limit = 4 }: { limit?: number } = {}): Promise<GigCard[]> {
  const { gigs } = await listCatalog(db, { ...EMPTY_QUERY }, { limit, count: false });
  return gigs;
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
// The catalog: browse and search.

export const PAGE_SIZE = 12;
/** Result counts stop at this many ("1,000+"), so a broad query never counts the whole table. */
export const COUNT_CAP = 1000;

export const EMPTY_QUERY: CatalogQuery = { q: "", category: null, price: null, rating: null, delivery: null, sort: "relevance", cursor: null };

/**
 * A sort key: the expression ordered by, and its cursor form. Timestamps travel as epoch microseconds
 * (`param` turns them back), so a cursor can only ever hold digits, never an impossible date.
 */
type Key = { expr: string; type: "boolean" | "numeric" | "bigint"; text?: (key: string) => string; param?: string };
type Order = { keys: Key[]; direction: "asc" | "desc" };

const RANK = "(ts_rank(g.search_vector, sq.query) * 1000000)::bigint";

/**
 * A search sorted by relevance ranks a bounded candidate set. Ranking every match meant reading and scoring
 * every matching row: "logo design" matches 11% of the catalog, 21–34 ms a call at 100,000 gigs. A search
 * reads `gig_search` (migration 20261126210001): one narrow row per gig a buyer may see, with its popularity
 * level (rating × ln(1 + reviews) ÷ 5, at most 6; 6 when featured) and its text vector, indexed by one GIN
 * index per level, so "the matches at level 6" reads only the level-6 index and rows.
 *
 * The order, exactly: L is the highest level at which at least CANDIDATES visible gigs match the query and
 * the filters, or 0 when no level has that many. The candidates (every match when L is 0, else the matches at
 * level L or above) come first, by text rank, then rating, then newer id; then every other match in the same
 * order. A search matching at most CANDIDATES gigs is therefore ordered by text rank exactly as before; a
 * broad one shows the best text matches among its most popular gigs first, and reads only those rows. A
 * cursor carries L, so later pages keep the first page's order (a gig whose level changes between pages can
 * cross the page boundary, as one whose rating changes can in the rating sort). `candidates: Infinity` ranks
 * every match (the old order; the benchmark's A/B). ADR 022.
 */
export const CANDIDATES = 500;
/** The popularity levels of gig_search, highest first. */
const LEVELS = [6, 5, 4, 3, 2, 1, 0];
/**
 * The rows at these levels, written as an OR of equalities: Postgres answers each from its level's partial
 * GIN index and ORs the bitmaps (a range such as `level >= 5` would match none of the partial indexes).
 */
const atLevels = (levels: number[]) => `(${levels.map((k) => `g.level = ${k}`).join(" OR ")})`;
const fromLevel = (level: number) => LEVELS.filter((k) => k >= level);
const belowLevel = (level: number) => LEVELS.filter((k) => k < level);

/**
 * Relevance with a search: the candidate level (a constant), whether the row is a candidate (a constant per
 * branch of searchRows), text rank, rating, id.
 */
function searchOrder(level: number, candidate = true): Order {
  return {
    direction: "desc",
    keys: [
      { expr: String(level), type: "bigint" },
      { expr: String(candidate), type: "boolean" },
      { expr: RANK, type: "bigint" },
      { expr: "g.rating", type: "numeric" },
      { expr: "g.id", type: "bigint" },
    ],
  };
}

/** Each sort is one direction over a tuple ending in the id, so a page boundary is a row comparison. */
function orderOf(sort: Sort, searching: boolean): Order {
  const id: Key = { expr: "g.id", type: "bigint" };
  switch (sort) {
    case "rating":
      return { direction: "desc", keys: [{ expr: "g.rating", type: "numeric" }, { expr: "g.reviews_count", type: "bigint" }, id] };
    case "price-low":
      return { direction: "asc", keys: [{ expr: "g.starting_price_ugx", type: "bigint" }, id] };
    case "price-high":
      return { direction: "desc", keys: [{ expr: "g.starting_price_ugx", type: "bigint" }, id] };
    case "newest":
      return {
        direction: "desc",
        keys: [
          {
            expr: "g.published_at",
            type: "bigint",
            text: (key) => `(extract(epoch FROM ${key}) * 1000000)::bigint`,
            param: "(timestamptz 'epoch' + ?::bigint * interval '1 microsecond')",
          },
          id,
        ],
      };
    case "relevance":
      return searching
        ? searchOrder(0)
        : {
            direction: "desc",
            keys: [
              { expr: "g.featured", type: "boolean" },
              { expr: "g.rating", type: "numeric" },
              { expr: "g.reviews_count", type: "bigint" },
              id,
            ],
          };
  }
}

/** A cursor is the last row's sort values, as Postgres printed them (exact, whatever the type). */
function encodeCursor(values: string[]) {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

function decodeCursor(cursor: string | null, order: Order): string[] | null {
  if (!cursor) return null;
  try {
    const values: unknown = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
    if (!Array.isArray(values) || values.length !== order.keys.length) return null;
    // bigint stays within ±10^16: ids and prices are far smaller, and microseconds since 1970 reach year 2286.
    const patterns = { boolean: /^(true|false)$/, numeric: /^-?\d{1,12}(\.\d{1,6})?$/, bigint: /^-?\d{1,16}$/ };
    return values.every((v, i) => typeof v === "string" && patterns[order.keys[i]!.type].test(v)) ? (values as string[]) : null;
  } catch {
    return null;
  }
}

/** Words a buyer typed, lower-cased, as search_terms holds them. */
export function queryWords(q: string): string[] {
  return q
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean)
    .slice(0, 8);
}

/**
 * Replaces each query word that no published gig contains with the nearest word that one does (trigram
 * similarity), so 'logo desing' searches for 'logo design'. Returns the corrected text, or null when
 * every word was found as typed.
 */
export async function correctQuery(db: Db, q: string): Promise<string | null> {
  return (await searchQuery(db, q)).searchedFor;
}

/**
 * What a search looks for, in one statement: the corrected text (correctQuery) and the full-text query of
 * the text searched (the corrected one, else as typed), as tsquery text. The catalog's statements take the
 * query as a `tsquery` parameter: with plainto_tsquery(text) in them, a prepared statement's generic plan
 * would parse the text again for every row it ranks.
 */
async function searchQuery(db: Db, q: string): Promise<{ searchedFor: string | null; query: string }> {
  const { rows } = await prepared(
    db.raw<{ rows: { searched_for: string | null; query: string }[] }>(`SELECT s.searched_for, s.query::text AS query FROM (?) AS s`, [spellingCheck(db, q)]),
  );
  return { searchedFor: rows[0]?.searched_for ?? null, query: rows[0]?.query ?? "" };
}

/**
 * The spelling check as a query of one row: `searched_for` (the corrected text, or null) and `query` (the
 * tsquery of the text searched). A search's first page runs it inside its own statement (as the CTE
 * `spelling`), saving a round trip; other statements take searchQuery's result. (The words are materialised
 * so that each misspelt word's nearest term is looked up once, not once per use.)
 */
function spellingCheck(db: Db, q: string): Knex.Raw {
  const words = queryWords(q);
  const checked = words.map((w) => w.length >= 3 && !/^\d+$/.test(w));
  return db.raw(
    `WITH w AS MATERIALIZED (
       SELECT w.i, w.word,
         CASE WHEN NOT w.checked OR EXISTS (SELECT 1 FROM search_terms t WHERE t.term = w.word) THEN w.word
         ELSE coalesce((SELECT t.term FROM search_terms t WHERE t.term % w.word ORDER BY similarity(t.term, w.word) DESC, t.term LIMIT 1), w.word)
         END AS fix
       FROM unnest(?::text[], ?::boolean[]) WITH ORDINALITY AS w(word, checked, i)
     ), fixed AS (SELECT CASE WHEN bool_or(w.fix <> w.word) THEN string_agg(w.fix, ' ' ORDER BY w.i) END AS text FROM w)
     SELECT fixed.text AS searched_for, plainto_tsquery('english', coalesce(fixed.text, ?)) AS query FROM fixed`,
    [words, checked, q],
  );
}

/**
 * The buyer's filters. `unindexed` writes price and rating as expressions no index answers (`+ 0`): where a
 * search reads its matches level by level from the GIN bitmaps, Postgres would otherwise AND each level's
 * bitmap with one of every gig in the price range (20,000 rows under UGX 100,000, built again for each level),
 * where checking the matches' own rows is cheaper. A search sorted by price, rating or date keeps them
 * indexed, to start and stop its walk of that index in the range.
 */
function applyFilters(builder: Knex.QueryBuilder, db: Db, query: CatalogQuery, { unindexed = false } = {}) {
  const column = (name: string) => db.raw(unindexed ? `(g.${name} + 0)` : `g.${name}`);
  // A hidden category's filter matches nothing (ADR 026): browsing it is off, as its menu entries are.
  if (query.category) builder.whereIn("g.category_id", db("categories").select("id").where({ slug: query.category, hidden: false }));
  if (query.price) {
    const { min, max } = PRICE_RANGES[query.price];
    if (min !== null) builder.where(column("starting_price_ugx"), ">=", min);
    if (max !== null) builder.where(column("starting_price_ugx"), "<=", max);
  }
  if (query.rating) builder.where(column("rating"), ">=", Number(query.rating));
  if (query.delivery) builder.where("g.fastest_delivery_days", "<=", Number(query.delivery));
  return builder;
}

export type CatalogPage = {
  gigs: GigCard[];
  /** The next page's cursor, or null on the last page. */
  nextCursor: string | null;
  /** How many gigs match, up to COUNT_CAP; null when not asked for. */
  total: number | null;
  /** What was searched for when the query was corrected ('logo design' for 'logo desing'). */
  searchedFor: string | null;
};

/**
 * Selects the sort keys (key_i), pages after a cursor, orders and limits; the page's cards turn the keys of
 * their few rows into cursor text (a search's candidates would otherwise each have their text rank computed
 * twice and printed).
 * Limits are written into the text, not bound: a prepared statement's generic plan takes a bound limit for a
 * tenth of the rows and may then walk the whole table instead of reading the index.
 */
function pickRows(db: Db, builder: Knex.QueryBuilder, order: Order, after: string[] | null, n: number, compared = order.keys) {
  builder.select("g.id");
  order.keys.forEach((k, i) => builder.select(db.raw(`${k.expr} AS key_${i}`)));
  if (after) {
    const tuple = compared.map((k) => k.expr).join(", ");
    const params = compared.map((k) => k.param ?? `?::${k.type}`).join(", ");
    builder.whereRaw(`(${tuple}) ${order.direction === "desc" ? "<" : ">"} (${params})`, after);
  }
  return builder.orderByRaw(compared.map((k) => `${k.expr} ${order.direction}`).join(", ")).limit(n, { skipBinding: true });
}

type PickedRows = Knex.QueryBuilder | Knex.Raw;

/** How many rows a query has, counting no further than `cap` (a broad query never counts the whole table). */
function countUpTo(db: Db, builder: Knex.QueryBuilder, cap: number): Promise<number> {
  return countUpToQuery(db, builder, cap).then((r) => Number(r[0]?.n ?? 0));
}

/** countUpTo's statement: one row, `n`. */
function countUpToQuery(db: Db, builder: Knex.QueryBuilder, cap: number) {
  return db.from(builder.select(db.raw("1")).limit(cap, { skipBinding: true }).as("m")).count<{ n: string }[]>({ n: "*" });
}

/**
 * How many gigs match at each of these levels (highest first), each counted only up to what is left of
 * `cap` (an SQL expression) after the levels above it and `above` (an SQL expression: matches already
 * counted), so a level is not read at all once the cap is reached: a broad search reads its top levels' rows,
 * never every match. One row: `n_above`, and `n_<level>` for each level.
 */
function levelCounts(db: Db, matches: (level: number) => Knex.QueryBuilder, levels: number[], cap: string | number, above = "0"): Knex.Raw {
  const sql = [`(SELECT ${above} AS n_above) AS l_above`];
  const bindings: Knex.QueryBuilder[] = [];
  const counted = ["l_above.n_above"];
  for (const k of levels) {
    sql.push(`CROSS JOIN LATERAL (SELECT count(*) AS n_${k} FROM (? LIMIT greatest(0, ${cap} - (${counted.join(" + ")}))) AS m) AS l_${k}`);
    bindings.push(matches(k).select(db.raw("1")));
    counted.push(`l_${k}.n_${k}`);
  }
  return db.raw(`SELECT ${["l_above.n_above", ...levels.map((k) => `l_${k}.n_${k}`)].join(", ")} FROM ${sql.join(" ")}`, bindings);
}

/** The total of levelCounts' row (capped as it was). */
const sumCounts = (row: Record<string, unknown> | undefined, levels: number[]) => levels.reduce((sum, k) => sum + Number(row?.[`n_${k}`] ?? 0), 0);

/** Counting matches stops here: past the cap of the result count and past the candidates needed. */
const countCap = (candidates: number) => Math.max(COUNT_CAP, Number.isFinite(candidates) ? candidates : 0) + 1;

/** A search's matches at these levels (price and rating filters unindexed unless said: see applyFilters). */
type Matches = (levels: number[], options?: { indexedFilters?: boolean }) => Knex.QueryBuilder;
/** What a search looks for (searchQuery). */
type Spelled = { searchedFor: string | null; query: string };

/** A relevance search's cursor: its (level, candidate, rank, rating, id), or null for the first page. */
function searchCursor(cursor: string | null): string[] | null {
  const after = decodeCursor(cursor, searchOrder(0));
  return after && LEVELS.includes(Number(after[0])) ? after : null;
}

/**
 * The rows of a relevance search's page (see CANDIDATES). The first page is one statement: it ranks the top
 * level's matches, counting them as it goes (count(*) OVER ()), and counts the levels below, top down, up to
 * the count's cap. With enough candidates at the top that is the page and the total; with too few, the counts
 * name the highest level that has enough (`chosen`), and the same statement ranks the matches at that level
 * or above, in branches per level that a one-time filter leaves unstarted unless that level is needed.
 * `spelled` null: the statement runs the spelling check too (the CTE `spelling`, which `search(null)`'s
 * matches read the query from). After a cursor: its level, with the total counted beside it.
 */
async function searchRows(
  db: Db,
  search: (tsquery: string | null) => Matches,
  countMatches: (cap: number) => Promise<number>,
  after: string[] | null,
  spelled: Spelled | null,
  spelling: () => Knex.Raw,
  n: number,
  candidates: number,
  count: boolean,
  cards: (picked: PickedRows, order: Order, extra?: (string | Knex.Raw)[]) => Knex.QueryBuilder,
  prepare: <Q extends Knex.ChainableInterface>(query: Q) => Q,
): Promise<{ rows: Record<string, unknown>[]; order: Order; total: number | null; spelled: Spelled }> {
  const cap = countCap(candidates);
  const total = (counted: number) => (count ? Math.min(counted, COUNT_CAP + 1) : null);
  // One branch: the candidates at `level` or above (true), the other matches (false), or every match (level 0).
  const branch = (matches: Matches, level: number, candidate: boolean, after: string[] | null) => {
    const order = searchOrder(level, candidate);
    return pickRows(db, matches(candidate ? fromLevel(level) : belowLevel(level)), order, after, n, order.keys.slice(2));
  };
  // A page at a level after a cursor's (rank, rating, id), or from the start: past the candidates' last row,
  // only other matches; else the candidates, then (when the page is not full yet) the other matches.
  const levelPage = (matches: Matches, level: number, candidate: boolean, after: string[] | null) => {
    const order = searchOrder(level);
    if (level === 0 || !candidate) return prepare(cards(branch(matches, level, candidate, after), order));
    return prepare(cards(db.raw(`(?) UNION ALL (?) LIMIT ${n}`, [branch(matches, level, true, after), branch(matches, level, false, null)]), order));
  };

  if (after) {
    const level = Number(after[0]);
    const [rows, matched] = await Promise.all([levelPage(search(spelled!.query), level, after[1] === "true", after.slice(2)), count ? countMatches(cap) : null]);
    return { rows, order: searchOrder(level), total: matched === null ? null : total(matched), spelled: spelled! };
  }

  const matches = search(spelled ? spelled.query : null);
  const enough = Number.isFinite(candidates) ? Math.max(1, candidates) : 0;
  const top = Number.isFinite(candidates) ? LEVELS[0]! : 0;
  const below = belowLevel(top);
  // The candidates' keys in a subquery of their own (OFFSET 0 keeps Postgres from merging it), so the window
  // that counts them holds (id, keys) rows rather than each candidate's whole row: a quarter less work.
  const keysOf = (levels: number[], order: Order, level: string) => {
    const keys = matches(levels).select("g.id");
    order.keys.forEach((k, i) => keys.select(db.raw(`${i === 0 ? level : k.expr} AS key_${i}`)));
    return keys;
  };
  const columns = `id, ${searchOrder(top).keys.map((_, i) => `key_${i}`).join(", ")}`;
  const ranked = db
    .select("c.*", db.raw("count(*) OVER () AS candidates"))
    .from(db.raw("(? OFFSET 0) AS c", [keysOf(fromLevel(top), searchOrder(top), String(top))]))
    .orderByRaw(searchOrder(top).keys.map((_, i) => `c.key_${i} desc`).join(", "))
    .limit(n, { skipBinding: true });
  const counted = levelCounts(db, (k) => matches([k]), below, cap, "coalesce((SELECT candidates FROM ranked LIMIT 1), 0)");
  // The level of the candidates: the highest whose matches, with those above it, are enough (0 when none).
  let sum = "n_above";
  const cases = [`WHEN n_above >= ${enough} THEN ${top}`];
  for (const k of below.filter((k) => k > 0)) {
    sum += ` + n_${k}`;
    cases.push(`WHEN ${sum} >= ${enough} THEN ${k}`);
  }
  const chosen = db.raw(below.length ? `SELECT CASE ${cases.join(" ")} ELSE 0 END AS level FROM counted` : `SELECT ${top} AS level`);
  // Too few at the top: the matches at the chosen level or above, one branch per level, ranked.
  const lower = LEVELS.map((k) => {
    const gate = k >= top ? `(SELECT level FROM chosen) < ${top}` : `(SELECT level FROM chosen) <= ${k}`;
    return keysOf([k], searchOrder(top), "(SELECT level FROM chosen)").whereRaw(gate);
  });
  const page = below.length
    ? db.raw(
        `(SELECT ${columns} FROM ranked WHERE (SELECT level FROM chosen) = ${top}) UNION ALL ` +
          `(SELECT ${columns} FROM (${lower.map(() => "(?)").join(" UNION ALL ")}) AS l ORDER BY key_2 desc, key_3 desc, key_4 desc LIMIT ${n})`,
        lower,
      )
    : db.raw(`SELECT ${columns} FROM ranked`);
  const extra: (string | Knex.Raw)[] = ["counted.*", db.raw("(SELECT level FROM chosen) AS chosen_level")];
  if (!spelled) extra.push(db.raw("(SELECT s.searched_for FROM spelling AS s) AS searched_for, (SELECT s.query::text FROM spelling AS s) AS search_query"));
  const statement = cards(page, searchOrder(top), extra);
  if (!spelled) statement.with("spelling", spelling());
  const result = (await prepare(statement.with("ranked", ranked).with("counted", counted).with("chosen", chosen).joinRaw("RIGHT JOIN counted ON true"))) as Record<
    string,
    unknown
  >[];
  const counts = result[0]!;
  const level = Number(counts.chosen_level);
  const found = spelled ?? { searchedFor: (counts.searched_for as string | null) ?? null, query: String(counts.search_query ?? "") };
  const rows = result.filter((r) => r.id !== null);
  // A page the candidates do not fill (only with a tiny `candidates`) continues with the other matches.
  const filled = rows.length < n && level > 0 ? await levelPage(search(found.query), level, true, null) : rows;
  return { rows: filled, order: searchOrder(level), total: total(Number(counts.n_above) + sumCounts(counts, below)), spelled: found };
}

/**
 * One page of the catalog: filters, full-text search (with spelling correction) and sort, paged by keyset,
 * so pages never repeat or skip a gig even while gigs are added. A search reads gig_search, the visible
 * gigs' search rows; sorted by relevance it ranks a bounded candidate set first (CANDIDATES); `candidates`
 * changes its size (Infinity: rank every match).
 */
export async function listCatalog(
  db: Db,
  query: CatalogQuery,
  { limit = PAGE_SIZE, count = true, candidates = CANDIDATES }: { limit?: number; count?: boolean; candidates?: number } = {},
): Promise<CatalogPage> {
  query = { ...query, q: query.q.replace(/\u0000/g, " ").trim() };
  const searching = query.q !== "";
  // A search without filters (what the search box sends) runs prepared statements (ADR 023): a handful of
  // texts, planned once per connection. Each filter combination would be texts of its own, and a plan of the
  // first page's statement holds about 400 kB of a connection's memory, so a filtered search is planned anew.
  const filtered = Boolean(query.category || query.price || query.rating || query.delivery);
  const prepare = <Q extends Knex.ChainableInterface>(q: Q): Q => (filtered ? q : prepared(q));
  // The first page of a relevance search without filters runs the spelling check inside its one statement (a
  // round trip less); any other search runs it first and passes the query to its statements as a parameter
  // (a filtered search's plan then knows the query's words when it estimates their matches).
  const after = searching && query.sort === "relevance" ? searchCursor(query.cursor) : null;
  const inline = searching && query.sort === "relevance" && after === null && !filtered;
  const spelled = searching && !inline ? await searchQuery(db, query.q) : null;

  // A search's matches at these levels, for the query `tsquery` (null: the spelling CTE's), its price and
  // rating filters unindexed unless said (see applyFilters); browsing's visible gigs.
  const search =
    (tsquery: string | null): Matches =>
    (levels, { indexedFilters = false } = {}) =>
      applyFilters(
        db("gig_search as g")
          .crossJoin(tsquery === null ? db.raw("(SELECT (SELECT s.query FROM spelling AS s) AS query) AS sq") : db.raw("(SELECT ?::tsquery AS query) AS sq", [tsquery]))
          .whereRaw("g.search_vector @@ sq.query")
          .whereRaw(atLevels(levels)),
        db,
        query,
        { unindexed: !indexedFilters },
      );
  // Every search but an inline first page has its query by now.
  const matches = search(spelled?.query ?? "");
  const browsed = () => applyFilters(visibleGigs(db), db, query);
  // How many gigs match, up to `cap`. Level by level from the top, so a broad search reads only its top
  // levels' rows; with a price or rating filter, in one scan whose bitmap Postgres may AND with that filter's
  // index: most matches of the top levels can fail the filter, and reading them one by one cost more.
  const countMatches = async (cap: number) => {
    if (query.price || query.rating) return countUpTo(db, matches(LEVELS, { indexedFilters: true }), cap);
    const rows = (await prepare(levelCounts(db, (k) => matches([k]), LEVELS, cap))).rows as Record<string, unknown>[];
    return sumCounts(rows[0], LEVELS);
  };

  // The page's rows first (ids and sort keys only), then their cards: the card's subqueries (category,
  // first image) run for these few rows, not for every match that a search has to rank before sorting.
  const cards = (picked: PickedRows, order: Order, extra: (string | Knex.Raw)[] = []) =>
    db
      .from(db.raw("(?) AS p", [picked]))
      .join("gigs as g", "g.id", "p.id")
      .join("users as u", "u.id", "g.seller_id")
      .select(gigCardColumns(db))
      .select(order.keys.map((k, i) => db.raw(`(${k.text ? k.text(`p.key_${i}`) : `p.key_${i}`})::text AS cursor_${i}`)))
      .select(extra)
      .orderByRaw(order.keys.map((_, i) => `p.key_${i} ${order.direction}`).join(", "));

  let page: { rows: Record<string, unknown>[]; order: Order; total: number | null };
  let searchedFor = spelled?.searchedFor ?? null;
  if (searching && query.sort === "relevance") {
    const found = await searchRows(db, search, countMatches, after, spelled, () => spellingCheck(db, query.q), limit + 1, candidates, count, cards, prepare);
    page = found;
    searchedFor = found.spelled.searchedFor;
  } else if (searching) {
    const order = orderOf(query.sort, searching);
    const picked = pickRows(db, matches(LEVELS, { indexedFilters: true }), order, decodeCursor(query.cursor, order), limit + 1);
    const [rows, total] = await Promise.all([prepare(cards(picked, order)), count ? countMatches(COUNT_CAP + 1) : null]);
    page = { rows, order, total };
  } else {
    const order = orderOf(query.sort, searching);
    const picked = pickRows(db, browsed(), order, decodeCursor(query.cursor, order), limit + 1);
    if (count) {
      // The page and the count in one statement, one round trip: a row of nulls but the count when the page is empty.
      const counted = countUpToQuery(db, browsed(), COUNT_CAP + 1);
      const result = (await cards(picked, order, ["counted.n AS counted_n"]).with("counted", counted).joinRaw("RIGHT JOIN counted ON true")) as Record<string, unknown>[];
      page = { rows: result.filter((r) => r.id !== null), order, total: Number(result[0]!.counted_n) };
    } else {
      page = { rows: await cards(picked, order), order, total: null };
    }
  }
  const { rows, order, total } = page;
  const more = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return {
    gigs: shown.map(toGigCard),
    nextCursor: more && last ? encodeCursor(order.keys.map((_, i) => String(last[`cursor_${i}`]))) : null,
    total,
    searchedFor,
  };
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
  seller: { id: number; name: string; username: string; location: string; level: string | null; rating: number; reviewsCount: number; avatarKey: string | null };
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
        "u.status as seller_status",
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
  return { id: Number(gig.id), title: gig.title as string, description: gig.description as string, tags: gig.tags as string[], status: gig.status as GigStatus, category: gig.category as string, packages, images };
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
    const [row] = await db("gigs").insert({ ...columns, seller_id: sellerId }).returning("id");
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
