/**
 * Spelling correction for catalog searches: each word a buyer typed that no published gig contains is
 * replaced with the nearest word one does. The words searched towards are `search_terms`, which
 * app/models/gig.server.ts keeps in step with published gigs; app/models/catalog-search.server.ts runs the
 * check before a search, or inside a first page's own statement.
 */
import type { Knex } from "knex";
import { prepared, type Db } from "~/server/db.server";

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
export async function searchQuery(db: Db, q: string): Promise<{ searchedFor: string | null; query: string }> {
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
export function spellingCheck(db: Db, q: string): Knex.Raw {
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
