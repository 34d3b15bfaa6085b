import type { Knex } from "knex";

/**
 * A notification's words in the reader's language (ADR 047): the message's key in the `notify` catalogue and its
 * values (a gig's title, an amount, a time), from which the notification is said in the language its member
 * reads in when it is read. `body` keeps the English words as before (for rows written before this, which have
 * no key and are shown as they are, and for anything reading the table directly).
 */
export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE notifications ADD COLUMN body_key text, ADD COLUMN body_values jsonb;
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    ALTER TABLE notifications DROP COLUMN IF EXISTS body_values, DROP COLUMN IF EXISTS body_key;
  `);
}
