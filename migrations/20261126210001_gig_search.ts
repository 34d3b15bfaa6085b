import type { Knex } from "knex";

/**
 * Search reads its own narrow table (ADR 022). A relevance search at 100,000 gigs spent
 * its time in three places: intersecting 'logo' & 'design' with a level lexeme in one GIN index over every
 * gig (the posting lists of all 100,000), reading each candidate's wide `gigs` row (title, description and
 * vector) and joining every active seller to check the gig is visible, then doing the same again to count.
 *
 * `gig_search` holds one row per gig a buyer may see (published, of an active seller, with a package), with
 * the columns search filters and sorts by, its popularity level as a number and the weighted text vector
 * (title A, tags B, description C; no level lexemes any more). Its GIN index is split by level, one partial
 * index per level 0–6: "the matches at level 6" reads only the level-6 index's posting lists, and "at level 5
 * or above" is a BitmapOr of two. A search sorted by rating, price or date walks a btree index of its own, as
 * browsing does on gigs. Triggers keep it in step with `gigs` (any insert, and an update of a column
 * it copies or of the status and price that make a gig visible) and with `users` (a seller's status), in the
 * writing statement's transaction; a deleted gig's row goes by its foreign key.
 *
 * The level is soko_search_level: ⌊rating × ln(1 + reviews) ÷ 5⌋, at most 6, and 6 for a featured gig, as
 * the lexemes were (migration 20261126100001). `gigs.search_vector`, its index and the lexeme function go.
 */
const LEVELS = [0, 1, 2, 3, 4, 5, 6];

export async function up(db: Knex) {
  await db.raw(`
    CREATE FUNCTION soko_search_level(rating numeric, reviews_count integer, featured boolean) RETURNS smallint
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT (CASE WHEN featured THEN 6 ELSE least(6, floor(rating * ln(1 + greatest(reviews_count, 0)) / 5)) END)::smallint
      $$;

    CREATE TABLE gig_search (
      id bigint PRIMARY KEY REFERENCES gigs (id) ON DELETE CASCADE,
      level smallint NOT NULL,
      category_id integer NOT NULL,
      rating numeric(3, 2) NOT NULL,
      reviews_count integer NOT NULL,
      starting_price_ugx bigint NOT NULL,
      fastest_delivery_days integer,
      published_at timestamptz,
      search_vector tsvector NOT NULL
    );
    ${LEVELS.map((k) => `CREATE INDEX gig_search_level_${k}_idx ON gig_search USING gin (search_vector) WITH (fastupdate = off) WHERE level = ${k};`).join("\n    ")}
    -- A search sorted otherwise walks its sort's index and checks each row's vector, as browsing does on gigs.
    CREATE INDEX gig_search_rating_idx ON gig_search (rating, reviews_count, id);
    CREATE INDEX gig_search_price_idx ON gig_search (starting_price_ugx, id);
    CREATE INDEX gig_search_newest_idx ON gig_search (published_at, id);

    -- Brings these gigs' search rows in step: removes the ones no buyer may see, writes the others.
    CREATE FUNCTION soko_sync_gig_search(ids bigint[]) RETURNS void LANGUAGE sql AS $$
      DELETE FROM gig_search s WHERE s.id = ANY (ids) AND NOT EXISTS (
        SELECT 1 FROM gigs g JOIN users u ON u.id = g.seller_id
        WHERE g.id = s.id AND g.status = 'published' AND u.status = 'active' AND g.starting_price_ugx IS NOT NULL);
      INSERT INTO gig_search AS s (id, level, category_id, rating, reviews_count, starting_price_ugx, fastest_delivery_days, published_at, search_vector)
      SELECT g.id, soko_search_level(g.rating, g.reviews_count, g.featured), g.category_id, g.rating, g.reviews_count,
             g.starting_price_ugx, g.fastest_delivery_days, g.published_at,
             setweight(to_tsvector('english', g.title), 'A') ||
             setweight(to_tsvector('english', soko_tags_text(g.tags)), 'B') ||
             setweight(to_tsvector('english', g.description), 'C')
      FROM gigs g JOIN users u ON u.id = g.seller_id
      WHERE g.id = ANY (ids) AND g.status = 'published' AND u.status = 'active' AND g.starting_price_ugx IS NOT NULL
      ON CONFLICT (id) DO UPDATE SET
        level = excluded.level, category_id = excluded.category_id, rating = excluded.rating,
        reviews_count = excluded.reviews_count, starting_price_ugx = excluded.starting_price_ugx,
        fastest_delivery_days = excluded.fastest_delivery_days, published_at = excluded.published_at,
        search_vector = excluded.search_vector
      WHERE (s.level, s.category_id, s.rating, s.reviews_count, s.starting_price_ugx, s.fastest_delivery_days, s.published_at, s.search_vector)
        IS DISTINCT FROM (excluded.level, excluded.category_id, excluded.rating, excluded.reviews_count,
                          excluded.starting_price_ugx, excluded.fastest_delivery_days, excluded.published_at, excluded.search_vector);
    $$;

    -- Per statement, so loading 100,000 gigs in one INSERT writes their rows in one go.
    CREATE FUNCTION soko_gigs_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM soko_sync_gig_search(ARRAY(SELECT id FROM new_rows));
        RETURN NULL;
      END $$;
    CREATE FUNCTION soko_gigs_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM soko_sync_gig_search(ARRAY(
          SELECT n.id FROM new_rows n JOIN old_rows o ON o.id = n.id
          WHERE (n.seller_id, n.category_id, n.title, n.description, n.tags, n.status, n.rating, n.reviews_count, n.featured,
                 n.starting_price_ugx, n.fastest_delivery_days, n.published_at)
            IS DISTINCT FROM (o.seller_id, o.category_id, o.title, o.description, o.tags, o.status, o.rating, o.reviews_count, o.featured,
                              o.starting_price_ugx, o.fastest_delivery_days, o.published_at)));
        RETURN NULL;
      END $$;
    CREATE TRIGGER gigs_search_inserted AFTER INSERT ON gigs REFERENCING NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION soko_gigs_inserted();
    CREATE TRIGGER gigs_search_updated AFTER UPDATE ON gigs REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
      FOR EACH STATEMENT EXECUTE FUNCTION soko_gigs_updated();

    -- A seller suspended, banned or active again: their gigs leave or rejoin search.
    CREATE FUNCTION soko_seller_status_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM soko_sync_gig_search(ARRAY(SELECT id FROM gigs WHERE seller_id = NEW.id));
        RETURN NULL;
      END $$;
    CREATE TRIGGER users_search_status AFTER UPDATE OF status ON users
      FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status) EXECUTE FUNCTION soko_seller_status_changed();

    SELECT soko_sync_gig_search(ARRAY(SELECT id FROM gigs));

    DROP INDEX gigs_search_vector_idx;
    ALTER TABLE gigs DROP COLUMN search_vector;
    DROP FUNCTION soko_search_levels(numeric, integer, boolean);
  `);
  await db.raw("ANALYZE gig_search");
}

export async function down(db: Knex) {
  await db.raw(`
    CREATE FUNCTION soko_search_levels(rating numeric, reviews_count integer, featured boolean) RETURNS tsvector
      LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
        SELECT array_to_tsvector(ARRAY(
          SELECT '~level ' || k
          FROM generate_series(1, CASE WHEN featured THEN 6
                                       ELSE least(6, floor(rating * ln(1 + greatest(reviews_count, 0)) / 5))::int END) AS k))
      $$;
    ALTER TABLE gigs ADD COLUMN search_vector tsvector GENERATED ALWAYS AS (
      setweight(to_tsvector('english', title), 'A') ||
      setweight(to_tsvector('english', soko_tags_text(tags)), 'B') ||
      setweight(to_tsvector('english', description), 'C') ||
      soko_search_levels(rating, reviews_count, featured)
    ) STORED;
    CREATE INDEX gigs_search_vector_idx ON gigs USING gin (search_vector) WITH (fastupdate = off);

    DROP TRIGGER users_search_status ON users;
    DROP TRIGGER gigs_search_updated ON gigs;
    DROP TRIGGER gigs_search_inserted ON gigs;
    DROP FUNCTION soko_seller_status_changed();
    DROP FUNCTION soko_gigs_updated();
    DROP FUNCTION soko_gigs_inserted();
    DROP FUNCTION soko_sync_gig_search(bigint[]);
    DROP TABLE gig_search;
    DROP FUNCTION soko_search_level(numeric, integer, boolean);
  `);
}
