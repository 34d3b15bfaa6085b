import { randomBytes } from "node:crypto";
import type { Knex } from "knex";

/**
 * The key that signs device cookies (ADR 030): a browser that signed in to an account before carries one, and
 * is then not locked out by other people's failed sign-ins to that account. One row, made here with 32 random
 * bytes, so every web process of a deployment signs and checks with the same key and nothing needs
 * configuring; replacing the secret forgets every device (they count as new browsers until they sign in again).
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE sign_in_device_key (
      id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
      secret text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `);
  await db.raw("INSERT INTO sign_in_device_key (secret) VALUES (?)", [randomBytes(32).toString("base64url")]);
}

export async function down(db: Knex) {
  await db.raw("DROP TABLE IF EXISTS sign_in_device_key");
}
