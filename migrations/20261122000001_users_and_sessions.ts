import type { Knex } from "knex";

export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE users (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
      username text NOT NULL CHECK (username ~ '^[a-z0-9_]{3,30}$'),
      email text NOT NULL CHECK (char_length(email) <= 254),
      password_hash text,
      role text NOT NULL CHECK (role IN ('client', 'freelancer', 'admin')),
      status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended', 'banned')),
      bio text NOT NULL DEFAULT '' CHECK (char_length(bio) <= 2000),
      location text NOT NULL DEFAULT '' CHECK (char_length(location) <= 100),
      profile_pic_url text,
      level text NOT NULL DEFAULT 'New Seller',
      skills text[] NOT NULL DEFAULT '{}',
      languages text[] NOT NULL DEFAULT '{}',
      rating numeric(3, 2) NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5),
      reviews_count integer NOT NULL DEFAULT 0 CHECK (reviews_count >= 0),
      response_time_hours integer CHECK (response_time_hours >= 0),
      last_active_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX users_email_key ON users (lower(email));
    CREATE UNIQUE INDEX users_username_key ON users (username);

    -- A session row is named by the SHA-256 of the cookie's token, so a leaked table cannot be replayed.
    CREATE TABLE sessions (
      id text PRIMARY KEY,
      user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      expires_at timestamptz NOT NULL,
      persistent boolean NOT NULL DEFAULT false,
      user_agent text,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX sessions_user_id_idx ON sessions (user_id);
    CREATE INDEX sessions_expires_at_idx ON sessions (expires_at);
  `);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS sessions; DROP TABLE IF EXISTS users;`);
}
