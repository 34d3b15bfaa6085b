import type { Knex } from "knex";

/**
 * Verified emails and the vetted-sellers filter (ADR 051).
 *
 * `email_verifications`: a link mailed to a member's address, as password resets are (migration
 * 20261122000001): only the token's SHA-256 is stored, it expires, and it is used once. It names the address it
 * was sent to, so a link mailed to an address the member has since changed proves nothing and is refused.
 *
 * `gig_search.seller_vetted`: whether the gig's seller is vetted (users.vetted_at), copied as the seller's status
 * is (migration 20261126210001): soko_sync_gig_search writes it, and a trigger on users brings a seller's rows in
 * step when an admin vets or unvets them. A partial index answers "vetted sellers only" without reading the rest.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE email_verifications (
      id text PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      email text NOT NULL,
      expires_at timestamptz NOT NULL,
      used_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX email_verifications_user_idx ON email_verifications (user_id) WHERE used_at IS NULL;

    ALTER TABLE gig_search ADD COLUMN seller_vetted boolean NOT NULL DEFAULT false;
    CREATE INDEX gig_search_vetted_idx ON gig_search (rating, reviews_count, id) WHERE seller_vetted;

    ${syncFunction(true)}

    CREATE FUNCTION soko_seller_vetting_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM soko_sync_gig_search(ARRAY(SELECT id FROM gigs WHERE seller_id = NEW.id));
        RETURN NULL;
      END $$;
    CREATE TRIGGER users_search_vetted AFTER UPDATE OF vetted_at ON users
      FOR EACH ROW WHEN ((OLD.vetted_at IS NULL) IS DISTINCT FROM (NEW.vetted_at IS NULL)) EXECUTE FUNCTION soko_seller_vetting_changed();

    SELECT soko_sync_gig_search(ARRAY(SELECT g.id FROM gigs g JOIN users u ON u.id = g.seller_id WHERE u.vetted_at IS NOT NULL));
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP TRIGGER users_search_vetted ON users;
    DROP FUNCTION soko_seller_vetting_changed();
    ${syncFunction(false)}
    DROP INDEX gig_search_vetted_idx;
    ALTER TABLE gig_search DROP COLUMN seller_vetted;
    DROP TABLE email_verifications;
  `);
}

/** soko_sync_gig_search as migration 20261126210001 wrote it, with the seller's vetting when `vetted`. */
function syncFunction(vetted: boolean) {
  const column = vetted ? ", seller_vetted" : "";
  const value = vetted ? ", u.vetted_at IS NOT NULL" : "";
  return `
    CREATE OR REPLACE FUNCTION soko_sync_gig_search(ids bigint[]) RETURNS void LANGUAGE sql AS $$
      DELETE FROM gig_search s WHERE s.id = ANY (ids) AND NOT EXISTS (
        SELECT 1 FROM gigs g JOIN users u ON u.id = g.seller_id
        WHERE g.id = s.id AND g.status = 'published' AND u.status = 'active' AND g.starting_price_ugx IS NOT NULL);
      INSERT INTO gig_search AS s (id, level, category_id, rating, reviews_count, starting_price_ugx, fastest_delivery_days, published_at, search_vector${column})
      SELECT g.id, soko_search_level(g.rating, g.reviews_count, g.featured), g.category_id, g.rating, g.reviews_count,
             g.starting_price_ugx, g.fastest_delivery_days, g.published_at,
             setweight(to_tsvector('english', g.title), 'A') ||
             setweight(to_tsvector('english', soko_tags_text(g.tags)), 'B') ||
             setweight(to_tsvector('english', g.description), 'C')${value}
      FROM gigs g JOIN users u ON u.id = g.seller_id
      WHERE g.id = ANY (ids) AND g.status = 'published' AND u.status = 'active' AND g.starting_price_ugx IS NOT NULL
      ON CONFLICT (id) DO UPDATE SET
        level = excluded.level, category_id = excluded.category_id, rating = excluded.rating,
        reviews_count = excluded.reviews_count, starting_price_ugx = excluded.starting_price_ugx,
        fastest_delivery_days = excluded.fastest_delivery_days, published_at = excluded.published_at,
        search_vector = excluded.search_vector${vetted ? ", seller_vetted = excluded.seller_vetted" : ""}
      WHERE (s.level, s.category_id, s.rating, s.reviews_count, s.starting_price_ugx, s.fastest_delivery_days, s.published_at, s.search_vector${vetted ? ", s.seller_vetted" : ""})
        IS DISTINCT FROM (excluded.level, excluded.category_id, excluded.rating, excluded.reviews_count,
                          excluded.starting_price_ugx, excluded.fastest_delivery_days, excluded.published_at, excluded.search_vector${vetted ? ", excluded.seller_vetted" : ""});
    $$;`;
}
