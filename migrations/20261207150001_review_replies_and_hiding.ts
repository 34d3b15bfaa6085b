import type { Knex } from "knex";

/**
 * Reviews with replies, edits and hiding (ADR 053).
 * - `reply`, `replied_at`: the gig's seller's one public answer. A column of the review, not a table of replies,
 *   so a second reply has nowhere to go: the reply operation writes it only `WHERE reply IS NULL`.
 * - `edited_at`: when its author last changed the stars or words (pages say "edited").
 * - `hidden_at`, `hidden_by`, `hidden_reason`: an admin took the review off public pages for breaking the rules;
 *   its author still sees it, with the reason. Hidden reviews count in no rating (app/models/review.server.ts).
 * - An index for the admin's list of recent reviews.
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE reviews
      ADD COLUMN reply text CHECK (char_length(reply) BETWEEN 1 AND 2000),
      ADD COLUMN replied_at timestamptz,
      ADD COLUMN edited_at timestamptz,
      ADD COLUMN hidden_at timestamptz,
      ADD COLUMN hidden_by bigint REFERENCES users (id) ON DELETE SET NULL,
      ADD COLUMN hidden_reason text CHECK (char_length(hidden_reason) BETWEEN 1 AND 500),
      ADD CONSTRAINT reviews_reply_with_time CHECK ((reply IS NULL) = (replied_at IS NULL)),
      ADD CONSTRAINT reviews_hidden_with_reason CHECK ((hidden_at IS NULL) = (hidden_reason IS NULL));
    CREATE INDEX reviews_created_at_idx ON reviews (created_at DESC, id DESC);
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS reviews_created_at_idx;
    ALTER TABLE reviews
      DROP CONSTRAINT IF EXISTS reviews_hidden_with_reason,
      DROP CONSTRAINT IF EXISTS reviews_reply_with_time,
      DROP COLUMN IF EXISTS hidden_reason,
      DROP COLUMN IF EXISTS hidden_by,
      DROP COLUMN IF EXISTS hidden_at,
      DROP COLUMN IF EXISTS edited_at,
      DROP COLUMN IF EXISTS replied_at,
      DROP COLUMN IF EXISTS reply;
  `);
}
