import type { Knex } from "knex";

/**
 * A dispute can end in a split (ADR 044): part of the price back to the buyer, the rest to the seller. Each
 * resolved dispute records both parts of the price, so the order page and the clearance read what was decided:
 * a release is (0, price), a refund (price, 0), a split two parts above zero. Disputes resolved before this
 * get their parts from their resolution.
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE disputes
      ADD COLUMN refund_ugx bigint CHECK (refund_ugx >= 0),
      ADD COLUMN release_ugx bigint CHECK (release_ugx >= 0);
    UPDATE disputes d
       SET refund_ugx = CASE WHEN d.resolution = 'refund' THEN o.price_ugx ELSE 0 END,
           release_ugx = CASE WHEN d.resolution = 'release' THEN o.price_ugx ELSE 0 END
      FROM orders o
     WHERE o.id = d.order_id AND d.status = 'resolved';
    ALTER TABLE disputes DROP CONSTRAINT disputes_resolution_check;
    ALTER TABLE disputes
      ADD CONSTRAINT disputes_resolution_check CHECK (resolution IN ('release', 'refund', 'split')),
      ADD CONSTRAINT disputes_parts_check CHECK (
        (status = 'open') = (refund_ugx IS NULL) AND (refund_ugx IS NULL) = (release_ugx IS NULL)
        AND (resolution IS DISTINCT FROM 'release' OR refund_ugx = 0)
        AND (resolution IS DISTINCT FROM 'refund' OR release_ugx = 0)
        AND (resolution IS DISTINCT FROM 'split' OR (refund_ugx > 0 AND release_ugx > 0))
      );
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    ALTER TABLE disputes DROP CONSTRAINT disputes_parts_check, DROP CONSTRAINT disputes_resolution_check;
    ALTER TABLE disputes ADD CONSTRAINT disputes_resolution_check CHECK (resolution IN ('release', 'refund'));
    ALTER TABLE disputes DROP COLUMN refund_ugx, DROP COLUMN release_ugx;
  `);
}
