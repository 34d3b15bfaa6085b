import type { Knex } from "knex";

/**
 * Reviews of gigs by the clients who bought them. A gig's and a seller's rating and review count are
 * kept equal to their reviews by the model that writes reviews (and by the demo data).
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE reviews (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      gig_id bigint NOT NULL REFERENCES gigs (id) ON DELETE CASCADE,
      reviewer_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      rating smallint NOT NULL CHECK (rating BETWEEN 1 AND 5),
      comment text NOT NULL DEFAULT '' CHECK (char_length(comment) <= 2000),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX reviews_gig_id_created_at_idx ON reviews (gig_id, created_at DESC, id DESC);
  `);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS reviews;`);
}
