import type { Knex } from "knex";

/**
 * The admin portal's records (ADR 017): every admin action, and every admin reading
 * of members' private things (a conversation, an export), in `admin_audit_log`, written in the same
 * transaction as the change it describes and never changed afterwards; the history of the UGX/USD rate.
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE admin_audit_log (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      -- Who: the admin (null only for the platform itself, a script).
      admin_id bigint REFERENCES users (id) ON DELETE SET NULL,
      admin_name text NOT NULL,
      -- What: user.suspend, user.ban, user.activate, user.delete, conversation.read, conversation.flag,
      -- conversation.unflag, conversation.delete, analytics.export, exchange_rate.set, …
      action text NOT NULL CHECK (action ~ '^[a-z_]+\\.[a-z_]+$'),
      -- Whom or what: a member, a conversation, a report.
      target_type text NOT NULL,
      target_id text,
      details jsonb NOT NULL DEFAULT '{}',
      -- From which address.
      ip text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX admin_audit_log_created_idx ON admin_audit_log (created_at DESC, id DESC);
    CREATE INDEX admin_audit_log_target_idx ON admin_audit_log (target_type, target_id);

    CREATE FUNCTION admin_audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'admin_audit_log is append-only';
    END $$;
    CREATE TRIGGER admin_audit_log_append_only BEFORE UPDATE OR DELETE ON admin_audit_log
      FOR EACH ROW EXECUTE FUNCTION admin_audit_log_append_only();

    -- Every rate an admin set, newest last; exchange_rates keeps the current one.
    CREATE TABLE exchange_rate_history (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      currency text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
      ugx_per_unit numeric(12, 4) NOT NULL CHECK (ugx_per_unit > 0),
      set_by bigint REFERENCES users (id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP TABLE IF EXISTS exchange_rate_history;
    DROP TABLE IF EXISTS admin_audit_log;
    DROP FUNCTION IF EXISTS admin_audit_log_append_only();
  `);
}
