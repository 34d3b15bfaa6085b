import type { Knex } from "knex";

/**
 * Saved gigs beside the saved sellers (a member's hearts, listed on /saved), and the freelancer directory's
 * sorts (app/models/freelancer-directory.server.ts): each sort is read along its own index of the directory's
 * rows (active, not deleted freelancers), in the order its keyset cursor pages through.
 * - rating: rating DESC, id.
 * - level: the level's rank (top_rated 3 … new 0) DESC, rating DESC, id.
 * - recent activity: last_active_at DESC (never active counts as the epoch), id.
 * The level's rank and the activity expression are written here exactly as the model writes them, so the
 * planner matches them to the indexes.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE saved_gigs (
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      gig_id bigint NOT NULL REFERENCES gigs (id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (user_id, gig_id)
    );
    -- /saved lists a member's saves newest first; a new gig finds who saved its seller.
    CREATE INDEX saved_gigs_user_created_idx ON saved_gigs (user_id, created_at DESC, gig_id DESC);
    CREATE INDEX saved_sellers_user_created_idx ON saved_sellers (user_id, created_at DESC, seller_id DESC);
    CREATE INDEX saved_sellers_seller_idx ON saved_sellers (seller_id);

    CREATE INDEX users_directory_rating_idx ON users (rating DESC, id)
      WHERE role = 'freelancer' AND status = 'active' AND deleted_at IS NULL;
    CREATE INDEX users_directory_level_idx ON users (
      (CASE level WHEN 'top_rated' THEN 3 WHEN 'level_2' THEN 2 WHEN 'level_1' THEN 1 ELSE 0 END) DESC, rating DESC, id
    ) WHERE role = 'freelancer' AND status = 'active' AND deleted_at IS NULL;
    CREATE INDEX users_directory_active_idx ON users ((coalesce(last_active_at, 'epoch'::timestamptz)) DESC, id)
      WHERE role = 'freelancer' AND status = 'active' AND deleted_at IS NULL;
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS users_directory_active_idx;
    DROP INDEX IF EXISTS users_directory_level_idx;
    DROP INDEX IF EXISTS users_directory_rating_idx;
    DROP INDEX IF EXISTS saved_sellers_seller_idx;
    DROP INDEX IF EXISTS saved_sellers_user_created_idx;
    DROP TABLE IF EXISTS saved_gigs;
  `);
}
