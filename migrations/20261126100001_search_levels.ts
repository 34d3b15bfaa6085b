import type { Knex } from "knex";

/**
 * Search ranks a bounded candidate set (ADR 022): ranking every gig that matches a broad query ("logo
 * design" matches 11,000 of 100,000) read and scored every matching row, 21–34 ms a call.
 *
 * Each gig's search vector now also carries its popularity levels: '~level 1' … '~level k', where k is
 * rating × ln(1 + reviews) ÷ 5, at most 6 (a featured gig has all six). The lexemes hold a space, which the
 * text parser never yields, so no query a buyer types can match them. A query that also asks for
 * '~level k' is answered by the same GIN index, reading only the posting lists and the heap rows of the
 * gigs at level k or above: the model ranks those first (listCatalog, relevance with a search). The levels
 * have no positions, so they change no ts_rank (its default normalisation ignores the document's length).
 *
 * The GIN index is rebuilt with fastupdate off: a search never has to read a pending list, and gigs are
 * written rarely next to how often they are searched.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE FUNCTION soko_search_levels(rating numeric, reviews_count integer, featured boolean) RETURNS tsvector
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT array_to_tsvector(ARRAY(
          SELECT '~level ' || k
          FROM generate_series(1, CASE WHEN featured THEN 6
                                       ELSE least(6, floor(rating * ln(1 + greatest(reviews_count, 0)) / 5))::int END) AS k))
      $$;

    ALTER TABLE gigs DROP COLUMN search_vector;
    ALTER TABLE gigs ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english', title), 'A') ||
      setweight(to_tsvector('english', soko_tags_text(tags)), 'B') ||
      setweight(to_tsvector('english', description), 'C') ||
      soko_search_levels(rating, reviews_count, featured)
    ) STORED;
    CREATE INDEX gigs_search_vector_idx ON gigs USING gin (search_vector) WITH (fastupdate = off);
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    ALTER TABLE gigs DROP COLUMN search_vector;
    ALTER TABLE gigs ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english', title), 'A') ||
      setweight(to_tsvector('english', soko_tags_text(tags)), 'B') ||
      setweight(to_tsvector('english', description), 'C')
    ) STORED;
    CREATE INDEX gigs_search_vector_idx ON gigs USING gin (search_vector);
    DROP FUNCTION soko_search_levels(numeric, integer, boolean);
  `);
}
