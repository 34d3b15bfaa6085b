import type { Knex } from "knex";

/**
 * The categories are reference data the platform cannot run without (a gig needs one, even as a draft), so a
 * migration makes them, not the demo seed: a deployment that migrates without seeding still has them.
 *
 * - The six categories of the marketplace, in the landing page's order, with the slugs and descriptions the
 *   demo seed gave them before, so existing rows, links (`/browse?category=…`) and gigs keep working. A
 *   database that already has them (a seeded one) keeps its rows as they are: `ON CONFLICT DO NOTHING` skips
 *   a slug (or a name) that is already there.
 * - `hidden`: an admin hides a category from browsing and from the gig form without deleting it (its gigs keep
 *   it; ADR 026).
 * - A name is unique whatever its case ("Web development" beside "Web Development" would read as one).
 *
 * The list is written out here, not imported: a migration must mean the same thing whenever it runs.
 */
const CATEGORIES = [
  { slug: "graphics-design", name: "Graphics & Design", description: "Logos, branding, flyers and social media graphics." },
  { slug: "web-development", name: "Web Development", description: "Websites, online shops and web apps." },
  { slug: "writing-translation", name: "Writing & Translation", description: "Copy, articles, CVs and Luganda, Swahili or English translation." },
  { slug: "video-animation", name: "Video & Animation", description: "Video editing, explainers and animated adverts." },
  { slug: "digital-marketing", name: "Digital Marketing", description: "Social media, SEO and advertising campaigns." },
  { slug: "local-services", name: "Local Services", description: "Photography, events, tutoring and more near you." },
];

export async function up(db: Knex) {
  await db.raw(`
    ALTER TABLE categories ADD COLUMN hidden boolean NOT NULL DEFAULT false;
    CREATE UNIQUE INDEX categories_name_lower_key ON categories (lower(name));
  `);
  for (const [position, c] of CATEGORIES.entries()) {
    await db.raw(`INSERT INTO categories (slug, name, description, position) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`, [
      c.slug,
      c.name,
      c.description,
      position,
    ]);
  }
}

/** The rows stay (gigs may use them; a seeded database had them before this migration). */
export async function down(db: Knex) {
  await db.raw(`
    DROP INDEX IF EXISTS categories_name_lower_key;
    ALTER TABLE categories DROP COLUMN IF EXISTS hidden;
  `);
}
