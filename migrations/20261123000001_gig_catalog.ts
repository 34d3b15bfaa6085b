import type { Knex } from "knex";

/**
 * What browse and search need at 100,000 gigs:
 * - a gig's starting price and fastest delivery kept on the gig (the model sets them with the packages, in
 *   the same transaction), so filters and sorts read one row and can use an index;
 * - a weighted full-text vector (title A, tags B, description C) with a GIN index;
 * - `search_terms`, every word buyers can find, with a trigram index: a misspelt query word is replaced by
 *   its nearest known word ('desing' → 'design') before the full-text query runs;
 * - one partial index per sort order over published gigs, all ascending: keyset paging compares rows
 *   (a, b, id) < (x, y, z), which a btree answers by walking the index backwards;
 * - `uploads`: images a member uploaded, so a gig can only take images its owner uploaded.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;

    -- array_to_string is only STABLE; for text[] it is immutable in fact, which a generated column needs.
    CREATE FUNCTION soko_tags_text(text[]) RETURNS text
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT array_to_string($1, ' ') $$;

    ALTER TABLE gigs
      ADD COLUMN starting_price_ugx bigint,
      ADD COLUMN fastest_delivery_days integer,
      ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
        setweight(to_tsvector('english', title), 'A') ||
        setweight(to_tsvector('english', soko_tags_text(tags)), 'B') ||
        setweight(to_tsvector('english', description), 'C')
      ) STORED;

    UPDATE gigs g SET starting_price_ugx = p.price, fastest_delivery_days = p.days
    FROM (SELECT gig_id, min(price_ugx) AS price, min(delivery_days) AS days FROM gig_packages GROUP BY gig_id) p
    WHERE p.gig_id = g.id;

    CREATE INDEX gigs_search_vector_idx ON gigs USING gin (search_vector);
    CREATE INDEX gigs_relevance_idx ON gigs (featured, rating, reviews_count, id) WHERE status = 'published';
    CREATE INDEX gigs_rating_idx ON gigs (rating, reviews_count, id) WHERE status = 'published';
    CREATE INDEX gigs_price_idx ON gigs (starting_price_ugx, id) WHERE status = 'published';
    CREATE INDEX gigs_newest_idx ON gigs (published_at, id) WHERE status = 'published';

    CREATE TABLE search_terms (term text PRIMARY KEY);
    CREATE INDEX search_terms_trgm_idx ON search_terms USING gin (term gin_trgm_ops);

    CREATE TABLE uploads (
      storage_key text PRIMARY KEY,
      owner_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX uploads_owner_idx ON uploads (owner_id);
  `);
  await db.raw(`
    INSERT INTO search_terms (term)
    SELECT DISTINCT w FROM gigs, regexp_split_to_table(lower(title || ' ' || soko_tags_text(tags) || ' ' || description), '[^a-z0-9]+') AS w
    WHERE status = 'published' AND length(w) BETWEEN 3 AND 40
    ON CONFLICT DO NOTHING
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP TABLE IF EXISTS uploads, search_terms;
    DROP INDEX IF EXISTS gigs_search_vector_idx, gigs_relevance_idx, gigs_rating_idx, gigs_price_idx, gigs_newest_idx;
    ALTER TABLE gigs DROP COLUMN IF EXISTS search_vector, DROP COLUMN IF EXISTS starting_price_ugx, DROP COLUMN IF EXISTS fastest_delivery_days;
    DROP FUNCTION IF EXISTS soko_tags_text(text[]);
  `);
}
