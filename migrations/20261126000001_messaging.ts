import type { Knex } from "knex";

/**
 * Messaging (docs/product.md, Messages; ADR 016): conversations between two members, their messages with
 * attachments, and message notifications.
 *
 * What the database itself guarantees, whatever the code does:
 * - one conversation per pair of members (`pair_key` is the two ids, lower first), reused from a gig or an order;
 * - a message is at most 5,000 characters and has a known kind and mark (sent, delivered, read);
 * - one message per sender and client id (a send retried after a dropped connection is stored once);
 * - at most one unread message notification per member and conversation (it is updated, not repeated).
 */
export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE conversations (
      -- "conv_" + time + random: not guessable, not a count of conversations.
      id text PRIMARY KEY CHECK (id ~ '^conv_[a-z0-9]{10,40}$'),
      pair_key text NOT NULL UNIQUE,
      -- What the conversation is about now: the gig it was started from, or the order it continued from.
      gig_id bigint REFERENCES gigs (id) ON DELETE SET NULL,
      order_id bigint REFERENCES orders (id) ON DELETE SET NULL,
      created_by bigint REFERENCES users (id) ON DELETE SET NULL,
      -- Raised by messaging (off-platform payment talk before an order) or by an admin; read by the admin portal.
      flagged_at timestamptz,
      flag_reason text,
      message_count integer NOT NULL DEFAULT 0,
      last_message_id bigint,
      last_message_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX conversations_flagged_idx ON conversations (flagged_at DESC) WHERE flagged_at IS NOT NULL;

    CREATE TABLE conversation_participants (
      conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      unread_count integer NOT NULL DEFAULT 0 CHECK (unread_count >= 0),
      last_read_message_id bigint NOT NULL DEFAULT 0,
      -- Mail about this conversation's messages (at most one per 15 minutes): the round of the next mail
      -- (an effect per round), and when the last one went.
      mail_round integer NOT NULL DEFAULT 0,
      mailed_at timestamptz,
      PRIMARY KEY (conversation_id, user_id)
    );
    CREATE INDEX conversation_participants_user_idx ON conversation_participants (user_id, conversation_id);

    CREATE TABLE messages (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      conversation_id text NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
      sender_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      client_id text CHECK (char_length(client_id) BETWEEN 1 AND 64),
      body text NOT NULL CHECK (char_length(body) <= 5000),
      message_type text NOT NULL DEFAULT 'text' CHECK (message_type IN ('text', 'file')),
      status text NOT NULL DEFAULT 'sent' CHECK (status IN ('sent', 'delivered', 'read')),
      delivered_at timestamptz,
      read_at timestamptz,
      -- The message looked like taking payment off Soko (a phone number, a mobile-money request, a chat handle).
      off_platform boolean NOT NULL DEFAULT false,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX messages_conversation_idx ON messages (conversation_id, id);
    CREATE UNIQUE INDEX messages_client_id_idx ON messages (sender_id, client_id) WHERE client_id IS NOT NULL;
    -- A member's search of their own messages ("ILIKE '%logo%'"), as the catalog's typo search uses it.
    CREATE INDEX messages_body_trgm_idx ON messages USING gin (body gin_trgm_ops);

    CREATE TABLE message_attachments (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      message_id bigint NOT NULL REFERENCES messages (id) ON DELETE CASCADE,
      storage_key text NOT NULL UNIQUE,
      file_name text NOT NULL,
      content_type text NOT NULL,
      size_bytes integer NOT NULL CHECK (size_bytes > 0)
    );
    CREATE INDEX message_attachments_message_idx ON message_attachments (message_id);

    ALTER TABLE notifications ADD COLUMN conversation_id text REFERENCES conversations (id) ON DELETE CASCADE;
    CREATE UNIQUE INDEX notifications_unread_message_idx ON notifications (user_id, conversation_id)
      WHERE read_at IS NULL AND conversation_id IS NOT NULL;
    CREATE INDEX notifications_unread_idx ON notifications (user_id) WHERE read_at IS NULL;
  `);
}

export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS notifications_unread_idx;
    DROP INDEX IF EXISTS notifications_unread_message_idx;
    ALTER TABLE notifications DROP COLUMN IF EXISTS conversation_id;
    DROP TABLE IF EXISTS message_attachments, messages, conversation_participants, conversations;
  `);
}
