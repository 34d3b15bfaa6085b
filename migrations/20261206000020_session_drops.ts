import type { Knex } from "knex";

/**
 * Every change that can end a session or change what a signed-in request knows of its member is announced on
 * the channel `soko_session_drop` with the member's id, whoever makes it (an operation, housekeeping, a hand
 * edit in psql): a session ended, rotated or shortened, or the member's status, role, name, username, email,
 * currency or time zone changed, or the member deleted. Web processes hold app tokens' lookups for up to a
 * minute and forget a member's when they hear this (app/server/token-cache.server.ts, ADR 042). NOTIFY is
 * sent at commit, and one payload is sent once per transaction, however many rows it touched.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE FUNCTION soko_session_drop() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      -- The member's id is the column the trigger names: users.id or sessions.user_id.
      PERFORM pg_notify('soko_session_drop', to_jsonb(OLD) ->> TG_ARGV[0]);
      RETURN NULL;
    END $$;

    CREATE TRIGGER sessions_drop AFTER DELETE ON sessions FOR EACH ROW EXECUTE FUNCTION soko_session_drop('user_id');
    CREATE TRIGGER sessions_changed_drop AFTER UPDATE ON sessions FOR EACH ROW
      WHEN (NEW.rotated_at IS DISTINCT FROM OLD.rotated_at OR NEW.expires_at < OLD.expires_at
            OR NEW.user_id <> OLD.user_id OR NEW.kind <> OLD.kind OR NEW.id <> OLD.id)
      EXECUTE FUNCTION soko_session_drop('user_id');
    CREATE TRIGGER users_drop AFTER DELETE ON users FOR EACH ROW EXECUTE FUNCTION soko_session_drop('id');
    CREATE TRIGGER users_changed_drop AFTER UPDATE ON users FOR EACH ROW
      WHEN ((NEW.status, NEW.role, NEW.name, NEW.username, NEW.email, NEW.preferred_currency, NEW.time_zone)
            IS DISTINCT FROM (OLD.status, OLD.role, OLD.name, OLD.username, OLD.email, OLD.preferred_currency, OLD.time_zone))
      EXECUTE FUNCTION soko_session_drop('id');
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP TRIGGER IF EXISTS users_changed_drop ON users;
    DROP TRIGGER IF EXISTS users_drop ON users;
    DROP TRIGGER IF EXISTS sessions_changed_drop ON sessions;
    DROP TRIGGER IF EXISTS sessions_drop ON sessions;
    DROP FUNCTION IF EXISTS soko_session_drop();
  `);
}
