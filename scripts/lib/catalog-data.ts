/**
 * bench-catalog's data, for every benchmark that needs the marketplace at size: a database of its own
 * (soko_bench unless named otherwise) with 2,000 freelancers, 300 clients, 100,000 published gigs with three
 * packages each and ~840,000 reviews, loaded with set-based SQL (generate_series) and a fixed random seed, then
 * refreshCatalog and VACUUM ANALYZE. Unlike the demo data (scripts/lib/seed.ts), it does not go through
 * app/operations/: 100,000 gigs one operation at a time would take many minutes and measure nothing the
 * benchmarks are about. `keepData` reuses the database when it already holds the 100,000 gigs (migrated to
 * the current schema). Used by bench-catalog.ts and bench-api.ts.
 *
 * App modules read process.env when first used, so the caller imports them (CatalogApp) once process.env
 * points at the benchmark's database; this module only names their types.
 */
import { performance } from "node:perf_hooks";
import knex, { type Knex } from "knex";
import type { refreshCatalog } from "~/models/gig.server";
import type { DELIVERY_DAYS } from "~/schemas/gig";
import type { createDb } from "~/server/db.server";
import { LOCAL_URLS } from "~/utils/local-services";
import type { migratePostgres } from "./migrate";
import type { DEMO_CATEGORY_SLUGS } from "./seed";

/** The benchmark's own database; `--database` names another, so two people can load and measure at once. */
export const BENCH_DB = "soko_bench";
export const GIGS = 100_000;
export const SELLERS = 2_000;
export const CLIENTS = 300;
/** Reviews loaded per gig (at most its reviews_count): one page of the gig page's reviews and a "more". */
const REVIEWS_PER_GIG = 11;

/** What the loader needs of the app's modules (imported by the caller, after process.env is set). */
export type CatalogApp = {
  createDb: typeof createDb;
  migratePostgres: typeof migratePostgres;
  refreshCatalog: typeof refreshCatalog;
  DELIVERY_DAYS: typeof DELIVERY_DAYS;
  CATEGORY_SLUGS: typeof DEMO_CATEGORY_SLUGS;
};

/** The URL of another database on the project's Postgres server (as tests/support/databases.ts builds it). */
export function databaseUrl(database: string) {
  const url = new URL(process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The environment of the app modules in this process and of the web server: soko_bench, no demo data. */
export function benchEnv(benchUrl: string): Record<string, string> {
  return {
    DATABASE_URL: benchUrl,
    REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
    CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
    SEED_DEMO: "0",
    // Its own Redis namespace, so the benchmark's server never shares queues or rate limits with npm start.
    QUEUE_PREFIX: "soko_bench",
    // All of autocannon's load comes from one address: the per-address catalog limit (ADR 010) would answer 429.
    CATALOG_RATE_LIMIT: "1000000000",
  };
}

// ---------------------------------------------------------------------------------------------------------
// The database, rebuilt unless keepData finds it complete.

export async function withAdmin<T>(fn: (admin: Knex) => Promise<T>): Promise<T> {
  const admin = knex({ client: "pg", connection: databaseUrl("postgres"), pool: { min: 0, max: 1 } });
  try {
    return await fn(admin);
  } finally {
    await admin.destroy();
  }
}

export async function hasCompleteData(app: CatalogApp, url: string, database: string): Promise<boolean> {
  const exists = await withAdmin(async (admin) => {
    const { rows } = await admin.raw<{ rows: unknown[] }>("SELECT 1 FROM pg_database WHERE datname = ?", [database]);
    return rows.length > 0;
  });
  if (!exists) return false;
  const db = app.createDb(url, { min: 0, max: 1 });
  try {
    const { rows } = await db.raw<{ rows: { gigs: number; packages: number }[] }>(
      `SELECT (SELECT count(*) FROM gigs WHERE status = 'published') AS gigs, (SELECT count(*) FROM gig_packages) AS packages`,
    );
    return rows[0]?.gigs === GIGS && rows[0]?.packages === GIGS * 3;
  } catch {
    return false; // not migrated yet, or an older schema: rebuild
  } finally {
    await db.destroy();
  }
}

export async function recreateDatabase(database: string) {
  await withAdmin(async (admin) => {
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${database}`);
  });
}

/** Prints how long one loading step took; returns its result. */
export async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  console.log(`  ${label.padEnd(48)} ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s`);
  return result;
}

/** Loads the database (or keeps it, migrated, with --keep-data); `migrations`: another checkout's folder. */
export async function prepareDatabase(app: CatalogApp, url: string, database: string, keepData: boolean, migrations?: string) {
  if (keepData && (await hasCompleteData(app, url, database))) {
    console.log(`\n${database} already holds ${GIGS.toLocaleString("en-US")} gigs (--keep-data): not reloading.`);
    const db = app.createDb(url, { min: 0, max: 1 });
    try {
      await app.migratePostgres(db, migrations);
    } finally {
      await db.destroy();
    }
    return;
  }
  console.log(`\nLoading ${database}:`);
  const started = performance.now();
  await step(`drop and create ${database}`, () => recreateDatabase(database));
  const db = app.createDb(url, { min: 0, max: 2 });
  try {
    await step("migrate", () => app.migratePostgres(db, migrations));
    await loadCatalogData(app, db);
    await step("refreshCatalog (prices, delivery, search words)", () => app.refreshCatalog(db));
    await step("VACUUM ANALYZE", () => db.raw("VACUUM ANALYZE"));
    const counts = await db.raw<{ rows: Record<string, number>[] }>(
      `SELECT (SELECT count(*) FROM gigs) AS gigs, (SELECT count(*) FROM gig_packages) AS packages,
              (SELECT count(*) FROM reviews) AS reviews, (SELECT count(*) FROM search_terms) AS search_terms`,
    );
    const c = counts.rows[0] ?? {};
    console.log(
      `  loaded ${Object.entries(c)
        .map(([k, v]) => `${v.toLocaleString("en-US")} ${k.replace("_", " ")}`)
        .join(", ")} ` + `in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  } finally {
    await db.destroy();
  }
}

// ---------------------------------------------------------------------------------------------------------
// The data: words a Ugandan marketplace's gigs are made of. "{adj}" in a service takes an adjective.

type CategoryWords = { services: string[]; audiences: string[]; tags: string[]; share: number };

const ADJECTIVES = [
  "modern",
  "professional",
  "minimalist",
  "creative",
  "unique",
  "stunning",
  "affordable",
  "bold",
  "premium",
  "custom",
  "high quality",
  "simple",
];

const WORDS: Record<string, CategoryWords> = {
  "graphics-design": {
    share: 0.24,
    services: [
      "design a {adj} logo",
      "design a {adj} brand identity kit",
      "design {adj} flyers and posters",
      "design {adj} social media graphics",
      "design a {adj} business card",
      "create {adj} custom illustrations",
      "design {adj} product packaging and labels",
      "design a {adj} wedding invitation card",
      "redesign your logo in 24 hours",
      "design {adj} billboard and banner artwork",
      "design a {adj} restaurant menu",
      "create {adj} YouTube thumbnails",
      "design a {adj} company profile",
      "vectorize and redraw your logo",
    ],
    audiences: [
      "your brand",
      "your business",
      "your startup",
      "your shop",
      "your church",
      "your school",
      "your restaurant",
      "your salon",
      "your event",
      "your NGO",
    ],
    tags: [
      "logo",
      "logo design",
      "branding",
      "graphic design",
      "flyer",
      "poster",
      "illustration",
      "business card",
      "packaging",
      "social media",
      "brand identity",
      "vector",
    ],
  },
  "web-development": {
    share: 0.2,
    services: [
      "build a {adj} responsive website",
      "build a {adj} online shop with mobile money",
      "fix bugs on your WordPress website",
      "build a {adj} school management system",
      "integrate MTN MoMo and Airtel Money payments",
      "build a {adj} landing page",
      "build a {adj} hotel booking website",
      "speed up your slow website",
      "build a {adj} REST API with Node.js",
      "set up hosting, domain and email",
      "build a {adj} React web app",
      "build a {adj} Laravel web application",
      "develop a {adj} Shopify store",
      "convert your Figma design to HTML",
    ],
    audiences: [
      "your business",
      "your company",
      "your school",
      "your hotel",
      "your shop",
      "your startup",
      "your church",
      "your SACCO",
      "your clinic",
      "your NGO",
    ],
    tags: [
      "website",
      "web development",
      "wordpress",
      "react",
      "nodejs",
      "laravel",
      "php",
      "ecommerce",
      "landing page",
      "mobile money",
      "api",
      "responsive design",
    ],
  },
  "writing-translation": {
    share: 0.15,
    services: [
      "translate English to Luganda",
      "translate English to Swahili",
      "translate documents from French to English",
      "write {adj} SEO blog articles",
      "write a {adj} CV and cover letter",
      "write {adj} website copy",
      "proofread and edit your documents",
      "write a {adj} business plan",
      "write {adj} product descriptions",
      "write a {adj} grant proposal",
      "transcribe your audio and video",
      "write {adj} press releases",
      "ghostwrite a {adj} ebook",
      "write a {adj} company profile",
    ],
    audiences: [
      "your business",
      "your NGO",
      "your website",
      "your project",
      "your brand",
      "your startup",
      "your job search",
      "your school",
      "your church",
      "your clients",
    ],
    tags: [
      "translation",
      "luganda",
      "swahili",
      "english",
      "copywriting",
      "proofreading",
      "cv writing",
      "blog writing",
      "seo writing",
      "business plan",
      "transcription",
      "content writing",
    ],
  },
  "video-animation": {
    share: 0.12,
    services: [
      "edit your {adj} YouTube videos",
      "create a {adj} explainer video",
      "make a {adj} animated advert",
      "edit your wedding video",
      "create a {adj} logo animation",
      "produce a {adj} TikTok video",
      "create {adj} motion graphics",
      "make a {adj} promo video",
      "add subtitles to your video",
      "create a {adj} 2D animation",
      "edit a {adj} music video",
      "make a {adj} slideshow video",
      "create a {adj} whiteboard animation",
      "color grade your video footage",
    ],
    audiences: [
      "your brand",
      "your business",
      "your channel",
      "your event",
      "your church",
      "your product",
      "your startup",
      "your wedding",
      "your NGO",
      "your band",
    ],
    tags: [
      "video editing",
      "video",
      "animation",
      "explainer video",
      "motion graphics",
      "youtube",
      "tiktok",
      "promo video",
      "subtitles",
      "2d animation",
      "after effects",
      "wedding video",
    ],
  },
  "digital-marketing": {
    share: 0.16,
    services: [
      "manage your social media pages",
      "run {adj} Facebook and Instagram ads",
      "do {adj} SEO for your website",
      "set up {adj} Google Ads campaigns",
      "grow your Instagram followers organically",
      "create a {adj} content calendar",
      "run a {adj} WhatsApp marketing campaign",
      "write a {adj} digital marketing strategy",
      "do {adj} email marketing",
      "set up your Google Business Profile",
      "run {adj} TikTok ads",
      "audit your website SEO",
      "plan {adj} influencer marketing",
      "do {adj} keyword research",
    ],
    audiences: [
      "your brand",
      "your business",
      "your shop",
      "your restaurant",
      "your hotel",
      "your startup",
      "your salon",
      "your school",
      "your NGO",
      "your events",
    ],
    tags: [
      "digital marketing",
      "social media marketing",
      "seo",
      "facebook ads",
      "instagram",
      "google ads",
      "email marketing",
      "content marketing",
      "tiktok ads",
      "marketing strategy",
      "whatsapp",
      "keyword research",
    ],
  },
  "local-services": {
    share: 0.13,
    services: [
      "photograph your {adj} event",
      "shoot {adj} product photography",
      "cover your wedding with photos and video",
      "tutor your child in mathematics",
      "plan and decorate your {adj} event",
      "fly a drone for {adj} aerial video",
      "provide {adj} MC services",
      "do {adj} makeup",
      "deliver {adj} catering",
      "take {adj} corporate headshots",
      "teach you to drive safely",
      "tutor you in English and Luganda",
      "provide {adj} DJ services",
      "set up {adj} sound and lighting",
    ],
    audiences: [
      "your event",
      "your wedding",
      "your party",
      "your business",
      "your family",
      "your introduction ceremony",
      "your conference",
      "your graduation",
      "your school",
      "your church",
    ],
    tags: ["photography", "event planning", "wedding", "tutoring", "drone", "mc", "makeup", "catering", "headshots", "dj", "decoration", "videography"],
  },
};

const SENTENCES = [
  "I have worked with clients across Kampala, Entebbe, Jinja and Mbarara.",
  "Tell me about your project before you order and I will reply within a few hours.",
  "Every order includes messages and progress updates until delivery.",
  "You get the final files and full rights to use them.",
  "I deliver on time and I am happy to revise until you are satisfied.",
  "Payment is held in escrow, so you only pay for work you approve.",
  "I can meet in Kampala or work fully online, whichever suits you.",
  "Ask me about discounts for repeat orders and larger projects.",
];

const FIRST_NAMES = [
  "Ruth",
  "Ivan",
  "Esther",
  "Joseph",
  "Christine",
  "Daniel",
  "Sharon",
  "Moses",
  "Grace",
  "Brian",
  "Patricia",
  "David",
  "Sarah",
  "James",
  "Agnes",
  "Peter",
  "Harriet",
  "Robert",
  "Juliet",
  "Samuel",
  "Doreen",
  "Isaac",
  "Winnie",
  "Ronald",
  "Lydia",
];
const LAST_NAMES = [
  "Achieng",
  "Tumusiime",
  "Nansubuga",
  "Kato",
  "Auma",
  "Byaruhanga",
  "Nabirye",
  "Opio",
  "Namubiru",
  "Mugisha",
  "Atim",
  "Ssemwanga",
  "Nakato",
  "Okello",
  "Kyomuhendo",
  "Mukasa",
  "Akello",
  "Wasswa",
  "Nalwoga",
  "Ochieng",
];
const TOWNS = ["Kampala", "Entebbe", "Jinja", "Mbarara", "Gulu", "Mbale", "Masaka", "Lira", "Fort Portal", "Arua", "Wakiso", "Mukono"];
const LEVELS = ["new", "level_1", "level_2", "top_rated"];
const REVIEW_COMMENTS = [
  "Excellent work, delivered early. Will order again.",
  "Very professional and easy to talk to. Highly recommended!",
  "Good work and quick replies; one small revision needed.",
  "Solid result, delivered on time.",
  "The work was fine but took longer than promised.",
  "Exactly what my business needed. Webale nyo!",
];

/** Every title the word lists can make fits gigs.title (80 characters) at least without its audience. */
function checkTitlesFit() {
  for (const [slug, words] of Object.entries(WORDS)) {
    for (const service of words.services) {
      const longest = `I will ${service.replace(
        "{adj}",
        ADJECTIVES.reduce((a, b) => (b.length > a.length ? b : a)),
      )}`;
      if (longest.length > 80) throw new Error(`${slug}: "${longest}" is longer than 80 characters`);
    }
  }
}

/** The categories as the load query reads them: word lists and a slice [from, to) of 0..1 for their share. */
function categoryWordsJson(app: CatalogApp) {
  let from = 0;
  return JSON.stringify(
    app.CATEGORY_SLUGS.map((slug, i) => {
      const words = WORDS[slug];
      if (!words) throw new Error(`no benchmark words for category ${slug}`);
      const to = i === app.CATEGORY_SLUGS.length - 1 ? 1.0000001 : from + words.share;
      const slice = { slug, services: words.services, audiences: words.audiences, tags: words.tags, share_from: from, share_to: to };
      from = to;
      return slice;
    }),
  );
}

/**
 * Categories, sellers, clients, gigs, packages and reviews, in one transaction with a fixed random seed.
 * Every random choice about a gig (words, rating, prices, delivery) is drawn once into a temporary table
 * keyed by the gig's id; gigs and packages are both read from it. The gigs are written with their starting
 * price and fastest delivery already set, so refreshCatalog checks them rather than rewriting 100,000 rows.
 */
async function loadCatalogData(app: CatalogApp, db: Knex) {
  checkTitlesFit();
  await db.transaction(async (trx) => {
    await trx.raw("SET LOCAL work_mem = '64MB'");
    await trx.raw("SELECT setseed(0.2026)");
    await step("categories", () => insertCategories(app, trx));
    await step(`${SELLERS.toLocaleString("en-US")} freelancers, ${CLIENTS} clients`, () => insertUsers(trx));
    await step("random draws per gig", () => drawGigs(app, trx));
    await step(`${GIGS.toLocaleString("en-US")} gigs`, () => insertGigs(app, trx));
    await step(`${(GIGS * 3).toLocaleString("en-US")} packages`, () => insertPackages(trx));
    await step("reviews", () => insertReviews(trx));
  });
}

/** The migration made the categories (ADR 026): this only checks each one the gigs are drawn into is there. */
async function insertCategories(app: CatalogApp, db: Knex.Transaction) {
  const present = await db("categories").whereIn("slug", app.CATEGORY_SLUGS).pluck("slug");
  const missing = app.CATEGORY_SLUGS.filter((slug) => !present.includes(slug));
  if (missing.length) throw new Error(`categories missing (run the migrations): ${missing.join(", ")}`);
}

async function insertUsers(db: Knex.Transaction) {
  const pick = (list: string) => `(${list})[1 + floor(random() * cardinality(${list}))::int]`;
  await db.raw(
    `INSERT INTO users (name, username, email, role, location, level, languages, rating, reviews_count, response_time_hours, created_at)
     SELECT ${pick(":first::text[]")} || ' ' || ${pick(":last::text[]")}, 'bench_seller_' || i, 'seller' || i || '@bench.soko.test', 'freelancer',
            ${pick(":towns::text[]")}, ${pick(":levels::text[]")}, ARRAY['English', 'Luganda'],
            round((3.5 + random() * 1.5)::numeric, 2), floor(random() * 2000)::int, 1 + floor(random() * 24)::int,
            now() - random() * interval '3 years'
     FROM generate_series(1, :sellers::int) AS i`,
    { towns: TOWNS, levels: LEVELS, first: FIRST_NAMES, last: LAST_NAMES, sellers: SELLERS },
  );
  await db.raw(
    `INSERT INTO users (name, username, email, role, location, created_at)
     SELECT 'Client ' || i, 'bench_client_' || i, 'client' || i || '@bench.soko.test', 'client',
            ${pick(":towns::text[]")}, now() - random() * interval '2 years'
     FROM generate_series(1, :clients::int) AS i`,
    { towns: TOWNS, clients: CLIENTS },
  );
}

/**
 * One row of random draws per gig, in `bench_draws` (dropped at commit). Each step reads the previous
 * step's columns, so every draw is made exactly once. About 8% of gigs are new (no reviews, published in
 * the last month). The basic price is 75,000..600,000 UGX, skewed low (about a fifth under 100,000, a
 * tenth above 500,000); standard and premium cost more, up to 800,000, in whole 5,000s. Delivery days
 * come from each tier's allowed options.
 */
async function drawGigs(app: CatalogApp, db: Knex.Transaction) {
  const round5k = (expr: string) => `(round((${expr}) / 5000.0) * 5000)::bigint`;
  const days = (tier: keyof CatalogApp["DELIVERY_DAYS"]) => `(ARRAY[${app.DELIVERY_DAYS[tier].join(",")}])[1 + floor(random() * 4)::int]`;
  await db.raw(
    `CREATE TEMPORARY TABLE bench_draws ON COMMIT DROP AS
     WITH draws AS MATERIALIZED (
       SELECT i AS gig_id, random() AS r_category, random() AS r_service, random() AS r_adjective, random() AS r_audience,
              random() AS r_tags, random() AS r_tag_count, random() AS r_seller, random() AS r_rating, random() AS r_reviews,
              random() AS r_age, random() < 0.08 AS is_new, random() AS r_sentence,
              ${round5k("75000 + power(random(), 2) * 525000")} AS basic, random() AS r_standard, random() AS r_premium,
              ${days("basic")} AS basic_days, ${days("standard")} AS standard_days, ${days("premium")} AS premium_days
       FROM generate_series(1, :gigs::int) AS i
     ),
     standard AS MATERIALIZED (
       SELECT d.*, d.basic + ${round5k("(800000 - d.basic) * (0.15 + 0.35 * d.r_standard)")} AS standard FROM draws d
     )
     SELECT s.*, least(800000, s.standard + ${round5k("(800000 - s.standard) * (0.3 + 0.7 * s.r_premium)")}) AS premium
     FROM standard s`,
    { gigs: GIGS },
  );
  await db.raw("ALTER TABLE bench_draws ADD PRIMARY KEY (gig_id)");
}

/**
 * Every gig at once, joined to its category's words by the category's share of 0..1. Rated gigs are
 * 2.5..5 stars, most near the top; a dozen are featured. Ids are the draws' (the database is new).
 */
async function insertGigs(app: CatalogApp, db: Knex.Transaction) {
  await db.raw(
    `WITH words AS (
       SELECT c.id AS category_id, w.*
       FROM jsonb_to_recordset(:words::jsonb)
            AS w(slug text, services text[], audiences text[], tags text[], share_from float8, share_to float8)
       JOIN categories c ON c.slug = w.slug
     ),
     sellers AS (SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE role = 'freelancer'),
     titled AS (
       SELECT d.*, w.category_id, w.tags AS category_tags,
              'I will ' || replace(w.services[1 + floor(d.r_service * cardinality(w.services))::int], '{adj}',
                                   (:adjectives::text[])[1 + floor(d.r_adjective * cardinality(:adjectives::text[]))::int]) AS phrase,
              w.audiences[1 + floor(d.r_audience * cardinality(w.audiences))::int] AS audience
       FROM bench_draws d JOIN words w ON d.r_category >= w.share_from AND d.r_category < w.share_to
     )
     INSERT INTO gigs (id, seller_id, category_id, title, description, tags, status, rating, reviews_count, featured,
                       starting_price_ugx, fastest_delivery_days, published_at, created_at)
     OVERRIDING SYSTEM VALUE
     SELECT t.gig_id,
            s.ids[1 + floor(t.r_seller * cardinality(s.ids))::int],
            t.category_id,
            CASE WHEN char_length(t.phrase || ' for ' || t.audience) <= 80 THEN t.phrase || ' for ' || t.audience ELSE t.phrase END,
            t.phrase || ' for ' || t.audience || '. ' ||
              (:sentences::text[])[1 + floor(t.r_sentence * cardinality(:sentences::text[]))::int] || ' ' ||
              (:sentences::text[])[1 + (floor(t.r_sentence * cardinality(:sentences::text[]))::int + 3) % cardinality(:sentences::text[])] || ' ' ||
              'I have done this for ' || (1 + t.gig_id % 12) || ' years; message me with what ' || t.audience || ' needs.',
            ARRAY(SELECT t.category_tags[1 + (floor(t.r_tags * cardinality(t.category_tags))::int + k) % cardinality(t.category_tags)]
                  FROM generate_series(0, 2 + floor(t.r_tag_count * 3)::int) AS k),
            'published',
            CASE WHEN t.is_new THEN 0 ELSE round((5 - power(t.r_rating, 2.5) * 2.5)::numeric, 2) END,
            CASE WHEN t.is_new THEN 0 ELSE 1 + floor(power(t.r_reviews, 3) * 800)::int END,
            NOT t.is_new AND t.gig_id % 8000 = 0,
            t.basic,
            least(t.basic_days, t.standard_days, t.premium_days),
            now() - t.r_age * CASE WHEN t.is_new THEN interval '30 days' ELSE interval '365 days' END,
            now() - t.r_age * CASE WHEN t.is_new THEN interval '30 days' ELSE interval '365 days' END - interval '2 days'
     FROM titled t, sellers s
     ORDER BY t.gig_id`,
    { words: categoryWordsJson(app), adjectives: ADJECTIVES, sentences: SENTENCES },
  );
  await db.raw(`SELECT setval(pg_get_serial_sequence('gigs', 'id'), (SELECT max(id) FROM gigs))`);
}

/** Three packages per gig, priced and timed by its draws; Standard is the popular one. */
async function insertPackages(db: Knex.Transaction) {
  await db.raw(
    `INSERT INTO gig_packages (gig_id, tier, name, description, price_ugx, delivery_days, revisions, features, popular)
     SELECT d.gig_id, v.tier, v.name, v.description, v.price, v.days, v.revisions, v.features, v.tier = 'standard'
     FROM bench_draws d CROSS JOIN LATERAL (VALUES
       ('basic', 'Basic', 'The essentials, done well.', d.basic, d.basic_days, 1, ARRAY['One concept', 'Source file']),
       ('standard', 'Standard', 'More options and faster support.', d.standard, d.standard_days, 3, ARRAY['Three concepts', 'Source file', 'Priority support']),
       ('premium', 'Premium', 'Everything, with commercial rights.', d.premium, d.premium_days, 5, ARRAY['Five concepts', 'Source file', 'Priority support', 'Commercial use'])
     ) AS v(tier, name, description, price, days, revisions, features)
     ORDER BY d.gig_id`,
  );
}

/** Up to REVIEWS_PER_GIG reviews per rated gig, near its rating, so the gig page has a full page to show. */
async function insertReviews(db: Knex.Transaction) {
  await db.raw(
    `WITH clients AS (SELECT array_agg(id ORDER BY id) AS ids FROM users WHERE role = 'client')
     INSERT INTO reviews (gig_id, reviewer_id, rating, comment, created_at)
     SELECT g.id, c.ids[1 + floor(random() * cardinality(c.ids))::int],
            greatest(1, least(5, round(g.rating + random() - 0.5)))::smallint,
            (:comments::text[])[1 + floor(random() * cardinality(:comments::text[]))::int],
            g.published_at + random() * (now() - g.published_at)
     FROM gigs g CROSS JOIN clients c CROSS JOIN LATERAL generate_series(1, least(g.reviews_count, :perGig::int)) AS k
     ORDER BY g.id`,
    { comments: REVIEW_COMMENTS, perGig: REVIEWS_PER_GIG },
  );
}
