/**
 * The catalog: browsing and searching the gigs a buyer may see, one page at a time (filters, full-text
 * search ranked over a bounded candidate set, sorts, keyset cursors, capped counts), and the landing's
 * Featured Services, its first page. Reads only: gigs, their cards and the searchable words are
 * app/models/gig.server.ts's. A search reads `gig_search`, which triggers keep in step with `gigs` and
 * `users` (migration 20261126210001); its spelling check is app/models/catalog-spelling.server.ts.
 */
import type { Knex } from "knex";
import { searchQuery, spellingCheck } from "~/models/catalog-spelling.server";
import { gigCardColumns, toGigCard, visibleGigs, type GigCard } from "~/models/gig.server";
import { prepared, type Db } from "~/server/db.server";
import { PRICE_RANGES, type CatalogQuery, type Sort } from "~/schemas/gig";

/** Featured Services on the landing page: the catalog's default order (featured first, then best rated). */
export async function listFeaturedGigs(db: Db, { limit = 4 }: { limit?: number } = {}): Promise<GigCard[]> {
  const { gigs } = await listCatalog(db, { ...EMPTY_QUERY }, { limit, count: false });
  return gigs;
}

export const PAGE_SIZE = 12;
/** Result counts stop at this many ("1,000+"), so a broad query never counts the whole table. */
export const COUNT_CAP = 1000;

export const EMPTY_QUERY: CatalogQuery = { q: "", category: null, price: null, rating: null, delivery: null, vetted: false, sort: "relevance", cursor: null };

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
            keys: [{ expr: "g.featured", type: "boolean" }, { expr: "g.rating", type: "numeric" }, { expr: "g.reviews_count", type: "bigint" }, id],
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

/**
 * Whether a page's cursor fits this query's order. The pages start over at the first page on a cursor that
 * does not; the JSON API refuses it instead, so a client learns its mistake.
 */
export function catalogCursorFits(query: CatalogQuery): boolean {
  if (!query.cursor) return true;
  const searching = query.q.replace(/\u0000/g, " ").trim() !== "";
  if (searching && query.sort === "relevance") return searchCursor(query.cursor) !== null;
  return decodeCursor(query.cursor, orderOf(query.sort, searching)) !== null;
}

/**
 * The buyer's filters. `unindexed` writes price and rating as expressions no index answers (`+ 0`): where a
 * search reads its matches level by level from the GIN bitmaps, Postgres would otherwise AND each level's
 * bitmap with one of every gig in the price range (20,000 rows under UGX 100,000, built again for each level),
 * where checking the matches' own rows is cheaper. A search sorted by price, rating or date keeps them
 * indexed, to start and stop its walk of that index in the range.
 */
function applyFilters(builder: Knex.QueryBuilder, db: Db, query: CatalogQuery, { unindexed = false, searchRows = false } = {}) {
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
  // Vetted sellers only (ADR 051): a search row carries its seller's vetting (indexed); browsing joins the seller.
  if (query.vetted) builder.whereRaw(searchRows ? "g.seller_vetted" : "u.vetted_at IS NOT NULL");
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
    const [rows, matched] = await Promise.all([
      levelPage(search(spelled!.query), level, after[1] === "true", after.slice(2)),
      count ? countMatches(cap) : null,
    ]);
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
  const columns = `id, ${searchOrder(top)
    .keys.map((_, i) => `key_${i}`)
    .join(", ")}`;
  const ranked = db
    .select("c.*", db.raw("count(*) OVER () AS candidates"))
    .from(db.raw("(? OFFSET 0) AS c", [keysOf(fromLevel(top), searchOrder(top), String(top))]))
    .orderByRaw(
      searchOrder(top)
        .keys.map((_, i) => `c.key_${i} desc`)
        .join(", "),
    )
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
  const result = (await prepare(
    statement.with("ranked", ranked).with("counted", counted).with("chosen", chosen).joinRaw("RIGHT JOIN counted ON true"),
  )) as Record<string, unknown>[];
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
  const filtered = Boolean(query.category || query.price || query.rating || query.delivery || query.vetted);
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
          .crossJoin(
            tsquery === null ? db.raw("(SELECT (SELECT s.query FROM spelling AS s) AS query) AS sq") : db.raw("(SELECT ?::tsquery AS query) AS sq", [tsquery]),
          )
          .whereRaw("g.search_vector @@ sq.query")
          .whereRaw(atLevels(levels)),
        db,
        query,
        { unindexed: !indexedFilters, searchRows: true },
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
      const result = (await cards(picked, order, ["counted.n AS counted_n"]).with("counted", counted).joinRaw("RIGHT JOIN counted ON true")) as Record<
        string,
        unknown
      >[];
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
