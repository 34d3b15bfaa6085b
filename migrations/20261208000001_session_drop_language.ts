import type { Knex } from "knex";

/**
 * A member's language and data-saver choice are part of what a signed-in request knows of them (SessionUser):
 * held session lookups (app tokens' and now live sockets', app/server/token-cache.server.ts) are forgotten when
 * they change too, so a socket's answers follow a language switch at once rather than within the minute.
 */
const WATCHED = ["status", "role", "name", "username", "email", "preferred_currency", "time_zone"];

function trigger(columns: string[]) {
  const list = (side: string) => columns.map((c) => `${side}.${c}`).join(", ");
  return `
    DROP TRIGGER IF EXISTS users_changed_drop ON users;
    CREATE TRIGGER users_changed_drop AFTER UPDATE ON users FOR EACH ROW
      WHEN ((${list("NEW")}) IS DISTINCT FROM (${list("OLD")}))
      EXECUTE FUNCTION soko_session_drop('id');
  `;
}

export async function up(db: Knex) {
  await db.raw(trigger([...WATCHED, "language", "data_saver"]));
}

export async function down(db: Knex) {
  await db.raw(trigger(WATCHED));
}
