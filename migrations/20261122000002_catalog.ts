import type { Knex } from "knex";

export async function up(db: Knex) {
  await db.raw(`
    CREATE TABLE categories (
      id integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9-]+$'),
      name text NOT NULL UNIQUE,
      description text NOT NULL DEFAULT '',
      position integer NOT NULL DEFAULT 0
    );

    CREATE TABLE gigs (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      seller_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
      category_id integer NOT NULL REFERENCES categories (id),
      title text NOT NULL CHECK (char_length(title) BETWEEN 1 AND 80),
      description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 5000),
      tags text[] NOT NULL DEFAULT '{}',
      status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'published', 'paused')),
      rating numeric(3, 2) NOT NULL DEFAULT 0 CHECK (rating BETWEEN 0 AND 5),
      reviews_count integer NOT NULL DEFAULT 0 CHECK (reviews_count >= 0),
      featured boolean NOT NULL DEFAULT false,
      published_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX gigs_seller_id_idx ON gigs (seller_id);
    CREATE INDEX gigs_published_category_idx ON gigs (category_id, published_at DESC) WHERE status = 'published';

    -- Delivery options per tier (docs/product.md, Catalog): Basic 1/3/7/14, Standard 3/7/14/21, Premium 7/14/21/30.
    CREATE TABLE gig_packages (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      gig_id bigint NOT NULL REFERENCES gigs (id) ON DELETE CASCADE,
      tier text NOT NULL CHECK (tier IN ('basic', 'standard', 'premium')),
      name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 60),
      description text NOT NULL DEFAULT '' CHECK (char_length(description) <= 600),
      price_ugx bigint NOT NULL CHECK (price_ugx > 0 AND price_ugx <= 100000000),
      delivery_days integer NOT NULL,
      revisions integer NOT NULL DEFAULT 1 CHECK (revisions BETWEEN 0 AND 20),
      features text[] NOT NULL DEFAULT '{}',
      popular boolean NOT NULL DEFAULT false,
      UNIQUE (gig_id, tier),
      CHECK (
        (tier = 'basic' AND delivery_days IN (1, 3, 7, 14)) OR
        (tier = 'standard' AND delivery_days IN (3, 7, 14, 21)) OR
        (tier = 'premium' AND delivery_days IN (7, 14, 21, 30))
      )
    );

    CREATE TABLE gig_images (
      id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
      gig_id bigint NOT NULL REFERENCES gigs (id) ON DELETE CASCADE,
      position integer NOT NULL DEFAULT 0,
      storage_key text NOT NULL,
      alt text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX gig_images_gig_id_idx ON gig_images (gig_id, position);
  `);
}

export async function down(db: Knex) {
  await db.raw(`DROP TABLE IF EXISTS gig_images, gig_packages, gigs, categories;`);
}
