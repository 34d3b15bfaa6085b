/**
 * Catalog benchmark: how fast are /browse, /search and /gig/:id with 100,000 published gigs,
 * and how much of that time is the database query behind each page?
 *
 *   npm run bench:catalog [-- --duration 10] [--warmup 2] [--connections 20] [--build] [--keep-data] [--queries-only]
 *                         [--search-only] [--database soko_bench] [--page-cache on|off] [--baseline <checkout>]
 *                         [--no-docs]
 *
 * 1. (Re)creates a separate database, soko_bench, on the project's Postgres, migrates it and loads
 *    2,000 freelancers, 100,000 published gigs with three packages each and ~840,000 reviews with
 *    set-based SQL (generate_series), then calls refreshCatalog and runs VACUUM ANALYZE. Unlike the demo
 *    data (scripts/lib/seed.ts), this fixture does not go through app/operations/: 100,000 gigs one
 *    operation at a time would take many minutes and measure nothing the benchmark is about; nobody signs
 *    in to it, and it lives in its own database.
 *    `--keep-data` reuses soko_bench when it already holds the 100,000 gigs.
 * 2. Runs the production build (building it when missing or with `--build`) as a child process against
 *    soko_bench, checks each page answers 200 and shows what its model returns, warms the server up for
 *    10 s, then drives each page with autocannon: 20 connections, 2 s warm-up, 10 s measured.
 * 3. Times the bare model call behind each page (listCatalog; getGigPageWithReviews) from 20
 *    concurrent workers on a pool of its own, for the same durations, right after its page.
 * 4. Prints p50/p95/p99 and throughput of both, their p95 ratio and whether each page meets the target:
 *    p95 ≤ 50 ms and ≤ 3× its bare query's p95 with the page cache on; ≤ 3× with it off (see targetText).
 * 5. Times single search calls, one in flight, A/B call by call: a relevance search ranking its
 *    bounded candidate set (listCatalog as it is) against ranking every match (the old order), for the same
 *    durations; target: a median under 10 ms. `--search-only` measures only these (no server, no pages).
 *    `--database` loads and measures another database than soko_bench (two people measuring at once).
 *    `--page-cache off` runs the server without the anonymous page cache (ADR 019; on by default, as in
 *    production): the pages are then rendered for every request, as a signed-in member's are.
 *    `--baseline <checkout>` adds a third arm to the single search calls: that checkout's listCatalog (its
 *    app/models/catalog-search.server.ts, or app/models/gig.server.ts in older checkouts, with our utils), on
 *    a database of its own, `<database>_baseline`, migrated with its migrations and loaded with the same
 *    seeded data (kept with --keep-data): old code against new in the same run, call by call (a git worktree
 *    of an earlier commit will do).
 * 6. Appends what it printed to docs/benchmarks/history/catalog.md unless --no-docs.
 *
 * It is a report, not a test: missed targets still exit 0; only errors (a page that does not answer 200
 * or does not show its gigs, a failed load) exit non-zero. soko_bench is kept afterwards for inspection.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { parseArgs } from "node:util";
import autocannon from "autocannon";
import knex, { type Knex } from "knex";
import { LOCAL_URLS } from "~/utils/local-services";
import { buildApp, root } from "./build";
import { appendPrintedRun, keepConsole } from "./lib/bench";
import { startAppServer, type AppServer } from "./lib/servers";

/** The benchmark's own database; `--database` names another, so two people can load and measure at once. */
const BENCH_DB = "soko_bench";
const GIGS = 100_000;
const SELLERS = 2_000;
const CLIENTS = 300;
/** Reviews loaded per gig (at most its reviews_count): one page of the gig page's reviews and a "more". */
const REVIEWS_PER_GIG = 11;
const DETAIL_IDS = 200;
const TARGET_P95_MS = 50;
const TARGET_RATIO = 3;

// ---------------------------------------------------------------------------------------------------------
// Options and environment.

type Options = {
  durationS: number;
  warmupS: number;
  connections: number;
  build: boolean;
  keepData: boolean;
  queriesOnly: boolean;
  searchOnly: boolean;
  database: string;
  /** The server's anonymous page cache (ADR 019). */
  pageCache: "on" | "off";
  /** Another checkout whose search calls are timed beside ours (null: none). */
  baseline: string | null;
  /** Append the run to docs/benchmarks/history/catalog.md. */
  docs: boolean;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      duration: { type: "string", default: "10" },
      warmup: { type: "string", default: "2" },
      connections: { type: "string", default: "20" },
      build: { type: "boolean", default: false },
      "keep-data": { type: "boolean", default: false },
      "queries-only": { type: "boolean", default: false },
      "search-only": { type: "boolean", default: false },
      database: { type: "string", default: BENCH_DB },
      "page-cache": { type: "string", default: "on" },
      baseline: { type: "string" },
      "no-docs": { type: "boolean", default: false },
    },
  });
  const fail = (message: string): never => {
    throw new Error(message);
  };
  const positive = (name: string, raw: string) => {
    const n = Number(raw);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number, got "${raw}"`);
    return n;
  };
  return {
    durationS: positive("duration", values.duration),
    warmupS: positive("warmup", values.warmup),
    connections: Math.round(positive("connections", values.connections)),
    build: values.build,
    keepData: values["keep-data"],
    queriesOnly: values["queries-only"],
    searchOnly: values["search-only"],
    pageCache:
      values["page-cache"] === "on" || values["page-cache"] === "off"
        ? values["page-cache"]
        : fail(`--page-cache must be on or off, got "${values["page-cache"]}"`),
    database: /^[a-z_][a-z0-9_]{0,53}$/.test(values.database) ? values.database : fail(`--database must be a plain lower-case name, got "${values.database}"`),
    baseline:
      values.baseline === undefined
        ? null
        : fs.existsSync(path.join(values.baseline, "app/models/gig.server.ts"))
          ? path.resolve(values.baseline)
          : fail(`--baseline must be a checkout of this app, got "${values.baseline}"`),
    docs: !values["no-docs"],
  };
}

/** The URL of another database on the project's Postgres server (as tests/support/databases.ts builds it). */
function databaseUrl(database: string) {
  const url = new URL(process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The environment of the app modules in this process and of the web server: soko_bench, no demo data. */
function benchEnv(benchUrl: string): Record<string, string> {
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

/** App modules read process.env when first used, so they are imported only after it points at soko_bench. */
async function loadApp() {
  const [gigModel, catalogModel, schemas, migrate, db, seed] = await Promise.all([
    import("~/models/gig.server"),
    import("~/models/catalog-search.server"),
    import("~/schemas/gig"),
    import("./lib/migrate"),
    import("~/server/db.server"),
    import("./lib/seed"),
  ]);
  return {
    listCatalog: catalogModel.listCatalog,
    COUNT_CAP: catalogModel.COUNT_CAP,
    getGigPageWithReviews: gigModel.getGigPageWithReviews,
    refreshCatalog: gigModel.refreshCatalog,
    parseCatalogQuery: schemas.parseCatalogQuery,
    DELIVERY_DAYS: schemas.DELIVERY_DAYS,
    migratePostgres: migrate.migratePostgres,
    createDb: db.createDb,
    CATEGORY_SLUGS: seed.DEMO_CATEGORY_SLUGS,
  };
}
type App = Awaited<ReturnType<typeof loadApp>>;

// ---------------------------------------------------------------------------------------------------------
// The database: soko_bench, rebuilt unless --keep-data finds it complete.

async function withAdmin<T>(fn: (admin: Knex) => Promise<T>): Promise<T> {
  const admin = knex({ client: "pg", connection: databaseUrl("postgres"), pool: { min: 0, max: 1 } });
  try {
    return await fn(admin);
  } finally {
    await admin.destroy();
  }
}

async function hasCompleteData(app: App, url: string, database: string): Promise<boolean> {
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

async function recreateDatabase(database: string) {
  await withAdmin(async (admin) => {
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${database}`);
  });
}

/** Prints how long one loading step took; returns its result. */
async function step<T>(label: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const result = await fn();
  console.log(`  ${label.padEnd(48)} ${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s`);
  return result;
}

/** Loads the database (or keeps it, migrated, with --keep-data); `migrations`: another checkout's folder. */
async function prepareDatabase(app: App, url: string, database: string, keepData: boolean, migrations?: string) {
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
const LEVELS = ["New Seller", "Level 1", "Level 2", "Top Rated"];
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
function categoryWordsJson(app: App) {
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
async function loadCatalogData(app: App, db: Knex) {
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
async function insertCategories(app: App, db: Knex.Transaction) {
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
async function drawGigs(app: App, db: Knex.Transaction) {
  const round5k = (expr: string) => `(round((${expr}) / 5000.0) * 5000)::bigint`;
  const days = (tier: keyof App["DELIVERY_DAYS"]) => `(ARRAY[${app.DELIVERY_DAYS[tier].join(",")}])[1 + floor(random() * 4)::int]`;
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
async function insertGigs(app: App, db: Knex.Transaction) {
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

// ---------------------------------------------------------------------------------------------------------
// The web server: the production build, as a child process against soko_bench.

/** The newest modification time of any file under a folder (to warn about a stale build). */
function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) newest = Math.max(newest, fs.statSync(path.join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

function ensureBuild(force: boolean) {
  const serverBuild = path.join(root, "build", "server", "index.js");
  if (force || !fs.existsSync(serverBuild)) {
    console.log("\nBuilding (remix vite:build)…");
    if (buildApp({ stdio: ["ignore", "ignore", "inherit"] }) !== 0) throw new Error("the build failed");
    return;
  }
  if (newestMtime(path.join(root, "app")) > fs.statSync(serverBuild).mtimeMs) {
    console.warn("\nWarning: app/ has changed since the last build; pass --build to benchmark the current code.");
  }
}

type WebServer = AppServer;

/**
 * The built web server (scripts/lib/servers.ts) in its own process group (tsx runs node as its child), so
 * stopping it reaches both: SIGTERM, then SIGKILL 15 s later.
 */
function startServer(env: Record<string, string>): Promise<WebServer> {
  return startAppServer(env, { host: "127.0.0.1", timeoutMs: 60_000, stopGraceMs: 15_000, processGroup: true });
}

// ---------------------------------------------------------------------------------------------------------
// Measuring.

type Stats = { p50: number; p95: number; p99: number; perSecond: number; count: number };
type PageStats = Stats & { non2xx: number; errors: number; timeouts: number };

/** Nearest-rank percentiles of latencies in ms, and how many per second over `seconds`. */
function summarise(samples: number[], seconds: number): Stats {
  const sorted = Float64Array.from(samples).sort();
  const at = (p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]! : NaN);
  return { p50: at(50), p95: at(95), p99: at(99), perSecond: samples.length / seconds, count: samples.length };
}

function runAutocannon(options: autocannon.Options, onResponse: (status: number, ms: number) => void): Promise<autocannon.Result> {
  return new Promise((resolve, reject) => {
    const instance = autocannon(options, (error, result) => (error ? reject(error) : resolve(result)));
    instance.on("response", (_client, status, _bytes, ms) => onResponse(status, ms));
  });
}

/** autocannon options for a scenario: one path, or a rotation through several (one per request). */
function requestOptions(baseUrl: string, paths: string[], connections: number, seconds: number): autocannon.Options {
  const headers = { "accept-encoding": "gzip", accept: "text/html" };
  const common = { connections, duration: seconds, headers, timeout: 10 };
  if (paths.length === 1) return { ...common, url: `${baseUrl}${paths[0]}` };
  let next = 0;
  return {
    ...common,
    url: baseUrl,
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: paths[next++ % paths.length]! }) }],
  };
}

/**
 * A freshly started server is slower for its first ten seconds or so of load (V8 is still optimising the
 * render path; ~20% fewer requests/s on /browse here): all pages in rotation for 10 s before measuring,
 * so the first scenario is not measured against a cold server.
 */
async function warmUpServer(baseUrl: string, scenarios: Scenario[], options: Options) {
  const paths = scenarios.flatMap((s) => s.paths.slice(0, 20));
  await runAutocannon(requestOptions(baseUrl, paths, options.connections, Math.max(10, options.warmupS)), () => {});
}

async function measurePage(baseUrl: string, paths: string[], options: Options): Promise<PageStats> {
  await runAutocannon(requestOptions(baseUrl, paths, options.connections, options.warmupS), () => {});
  const latencies: number[] = [];
  let non2xx = 0;
  const started = performance.now();
  const result = await runAutocannon(requestOptions(baseUrl, paths, options.connections, options.durationS), (status, ms) => {
    if (status >= 200 && status < 300) latencies.push(ms);
    else non2xx++;
  });
  const seconds = (performance.now() - started) / 1000;
  return { ...summarise(latencies, seconds), non2xx, errors: result.errors, timeouts: result.timeouts };
}

/** Calls `fn` from `workers` concurrent loops for `seconds`, timing each call. */
async function hammer(fn: () => Promise<unknown>, workers: number, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const end = performance.now() + seconds * 1000;
  const worker = async () => {
    while (performance.now() < end) {
      const t0 = performance.now();
      await fn();
      latencies.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: workers }, worker));
  return latencies;
}

async function measureQuery(fn: () => Promise<unknown>, options: Options): Promise<Stats> {
  await hammer(fn, options.connections, options.warmupS);
  const started = performance.now();
  const latencies = await hammer(fn, options.connections, options.durationS);
  return summarise(latencies, (performance.now() - started) / 1000);
}

// ---------------------------------------------------------------------------------------------------------
// Scenarios.

/** `expect` is text the first path's page must show (a gig title the model returns), so a 200 that is not the page fails. */
type Scenario = { name: string; paths: string[]; query: () => Promise<unknown>; expect: string | null };

async function buildScenarios(app: App, db: Knex): Promise<Scenario[]> {
  const catalog = async (name: string, pathname: "/browse" | "/search", search: string): Promise<Scenario> => {
    const query = () => app.listCatalog(db, app.parseCatalogQuery(new URLSearchParams(search)));
    const first = await query();
    return { name, paths: [`${pathname}${search ? `?${search}` : ""}`], query, expect: first.gigs[0]?.title ?? null };
  };

  const firstNewest = await app.listCatalog(db, app.parseCatalogQuery(new URLSearchParams("sort=newest")));
  if (!firstNewest.nextCursor) throw new Error("the newest-first catalog has no second page");
  const page2 = new URLSearchParams({ sort: "newest", cursor: firstNewest.nextCursor }).toString();

  const sample = await db("gigs").where({ status: "published" }).orderByRaw("md5(id::text)").limit(DETAIL_IDS).select("id", "title");
  const ids = sample.map((g) => Number(g.id));
  let nextId = 0;
  const gigDetail: Scenario = {
    name: `gig detail (${ids.length} gigs)`,
    paths: ids.map((id) => `/gig/${id}`),
    // As the gig page's loader does: the gig with its first page of reviews.
    query: async () => {
      const id = ids[nextId++ % ids.length]!;
      const found = await app.getGigPageWithReviews(db, id, null, 1);
      if (!found) throw new Error(`gig ${id} is not visible`);
      return found;
    },
    expect: sample[0]?.title ?? null,
  };

  return [
    await catalog("browse default", "/browse", ""),
    await catalog("browse graphics, 100k–500k, by rating", "/browse", "category=graphics-design&price=100000-500000&sort=rating"),
    await catalog("browse 4★+, ≤3 days, price low", "/browse", "rating=4&delivery=3&sort=price-low"),
    await catalog("browse newest, page 2", "/browse", page2),
    await catalog("search 'logo design'", "/search", "q=logo+design"),
    await catalog("search 'logo desing', <100k, price low", "/search", "q=logo+desing&sort=price-low&price=under-100000"),
    gigDetail,
  ];
}

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#x27;" })[c]!);

/**
 * One request to each page before measuring: a page that does not answer 200, or does not show what its
 * model returns, is an error, not a figure.
 */
async function checkPage(baseUrl: string, scenario: Scenario): Promise<string | null> {
  const pathname = scenario.paths[0]!;
  try {
    const res = await fetch(`${baseUrl}${pathname}`, { signal: AbortSignal.timeout(30_000) });
    const html = await res.text();
    if (res.status !== 200) return `GET ${pathname} answered ${res.status}`;
    if (scenario.expect && !html.includes(escapeHtml(scenario.expect))) return `GET ${pathname} does not show "${scenario.expect}"`;
    return null;
  } catch (error) {
    return `GET ${pathname} failed: ${(error as Error).message}`;
  }
}

// ---------------------------------------------------------------------------------------------------------
// The report.

type Row = { scenario: Scenario; page: PageStats | null; pageError: string | null; query: Stats };

async function machineFacts(db: Knex) {
  const { rows } = await db.raw<{ rows: { server_version: string }[] }>("SHOW server_version");
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    model: cpus[0]?.model.trim() ?? "unknown",
    memory: `${Math.round(os.totalmem() / 2 ** 30)} GiB`,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    node: process.version,
    postgres: rows[0]?.server_version ?? "unknown",
  };
}

/** Other work on the machine skews every figure: say so, with the load average before measuring. */
function warnIfBusy() {
  const [one, five] = os.loadavg();
  const busy = (one ?? 0) > os.cpus().length * 0.5;
  console.log(
    `Load average before measuring: ${one?.toFixed(2)} (1 min), ${five?.toFixed(2)} (5 min)${busy ? " (busy: other work is running, figures will be noisy)" : ""}`,
  );
}

const ms = (n: number) => (Number.isFinite(n) ? (n < 10 ? n.toFixed(1) : n.toFixed(0)) : "–");
const triple = (s: Stats) => `${ms(s.p50)} / ${ms(s.p95)} / ${ms(s.p99)}`;

/**
 * The target a page is held to: with the page cache on (what visitors get), p95 ≤ 50 ms and ≤ 3× its bare query
 * (docs/benchmarks.md); with it off (every page rendered, as a signed-in member's are), ≤ 3× its bare query (no
 * absolute p95 is asked of members' pages).
 */
const targetText = (pageCache: "on" | "off") =>
  pageCache === "on" ? `p95 ≤ ${TARGET_P95_MS} ms and ≤ ${TARGET_RATIO}× the bare query's p95` : `≤ ${TARGET_RATIO}× the bare query's p95, page cache off`;

function verdict(row: Row, pageCache: "on" | "off"): string {
  if (!row.page) return `page failed: ${row.pageError}`;
  const ratio = row.page.p95 / row.query.p95;
  const misses = [
    pageCache === "on" && row.page.p95 > TARGET_P95_MS ? `p95 ${ms(row.page.p95)} ms > ${TARGET_P95_MS} ms` : null,
    ratio > TARGET_RATIO ? `ratio ${ratio.toFixed(1)}× > ${TARGET_RATIO}×` : null,
    row.page.non2xx + row.page.errors > 0 ? `${row.page.non2xx} non-2xx, ${row.page.errors} errors` : null,
  ].filter(Boolean);
  return misses.length ? `missed: ${misses.join("; ")}` : "met";
}

function printTable(rows: Row[], pageCache: "on" | "off") {
  const header = ["scenario", "page p50/p95/p99 ms", "page req/s", "query p50/p95/p99 ms", "query calls/s", "page p95 ÷ query p95", "target"];
  const lines = rows.map((row) => [
    row.scenario.name,
    row.page ? triple(row.page) : "–",
    row.page ? row.page.perSecond.toFixed(0) : "–",
    triple(row.query),
    row.query.perSecond.toFixed(0),
    row.page ? `${(row.page.p95 / row.query.p95).toFixed(1)}×` : "–",
    verdict(row, pageCache),
  ]);
  console.log(`\n| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const line of lines) console.log(`| ${line.join(" | ")} |`);
}

// ---------------------------------------------------------------------------------------------------------
// One search call at a time: the bounded candidate set against ranking every match.

/** Searches timed call by call; the last one sorts by price, which the candidate set does not touch. */
const SEARCH_CALLS = ["q=logo+design", "q=logo+desing", "q=design", "q=translate+luganda", "q=logo+desing&sort=price-low&price=under-100000"];
const TARGET_SEARCH_MS = 10;

type Arm = "bounded" | "all" | "baseline";
type PerArm = Partial<Record<Arm, number>>;
type SearchCallRow = {
  search: string;
  times: Partial<Record<Arm, Stats>>;
  fastest: PerArm;
  postgresCpu: PerArm | null;
  matches: string;
  shared: number;
  shown: number;
};

/** Another checkout's search, timed beside ours: its listCatalog and a pool on its own database. */
type Baseline = { listCatalog: App["listCatalog"]; db: Knex; url: string };

/**
 * CPU milliseconds a Postgres backend has used (user + system, from /proc: Postgres runs on this machine).
 * Unlike latency, it hardly moves with the other work on a busy machine. Null where /proc cannot tell.
 */
function backendCpuMs(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_S;
  } catch {
    return null;
  }
}
const CLOCK_TICKS_PER_S = 100;

/**
 * Each search called alone, one call in flight (what a buyer waits for when nothing queues), alternating
 * call by call between listCatalog as it is (a relevance search ranks a bounded candidate set), the old
 * order, which ranks every match (`candidates: Infinity`), and (with --baseline) another checkout's
 * listCatalog on its own copy of the data, so all see the same moment of a noisy machine. Also says how many
 * of the first page's gigs the bounded and rank-all orders share.
 */
async function measureSearchCalls(app: App, db: Knex, url: string, options: Options, baseline: Baseline | null): Promise<SearchCallRow[]> {
  // Postgres's CPU per call: the same calls on a pool of one connection per database, whose backend's CPU
  // time is read before and after each (the clock ticks are coarse, so this reports the sum over all calls
  // ÷ their number).
  const singles = await Promise.all(
    [url, baseline?.url ?? null].map(async (u) => {
      if (!u) return null;
      const single = app.createDb(u, { min: 1, max: 1, idleTimeoutMillis: 3_600_000 });
      const { rows } = await single.raw<{ rows: { pid: number }[] }>("SELECT pg_backend_pid() AS pid");
      return { db: single, pid: rows[0]!.pid };
    }),
  );
  const arms: Arm[] = baseline ? ["bounded", "all", "baseline"] : ["bounded", "all"];
  const rows: SearchCallRow[] = [];
  for (const search of SEARCH_CALLS) {
    const query = app.parseCatalogQuery(new URLSearchParams(search));
    const call = (arm: Arm, single = false) => {
      const own = single ? singles[0]!.db : db;
      if (arm === "bounded") return app.listCatalog(own, query);
      if (arm === "all") return app.listCatalog(own, query, { candidates: Infinity });
      return baseline!.listCatalog(single ? singles[1]!.db : baseline!.db, query);
    };
    const alternate = async (seconds: number) => {
      const times: Partial<Record<Arm, number[]>> = Object.fromEntries(arms.map((a) => [a, []]));
      const end = performance.now() + seconds * 1000;
      while (performance.now() < end) {
        for (const arm of arms) {
          const t0 = performance.now();
          await call(arm);
          times[arm]!.push(performance.now() - t0);
        }
      }
      return times;
    };
    await alternate(options.warmupS);
    const started = performance.now();
    const times = await alternate(options.durationS);
    const seconds = (performance.now() - started) / 1000;
    const cpu: PerArm = {};
    const calls: PerArm = {};
    let cpuKnown = backendCpuMs(singles[0]!.pid) !== null;
    const cpuEnd = performance.now() + options.durationS * 1000;
    while (cpuKnown && performance.now() < cpuEnd) {
      for (const arm of arms) {
        const pid = arm === "baseline" ? singles[1]!.pid : singles[0]!.pid;
        const before = backendCpuMs(pid);
        await call(arm, true);
        const after = backendCpuMs(pid);
        if (before === null || after === null) cpuKnown = false;
        else cpu[arm] = (cpu[arm] ?? 0) + after - before;
        calls[arm] = (calls[arm] ?? 0) + 1;
      }
    }
    const [first, old] = await Promise.all([call("bounded"), call("all")]);
    const oldIds = new Set(old.gigs.map((g) => g.id));
    rows.push({
      search,
      times: Object.fromEntries(arms.map((a) => [a, summarise(times[a]!, seconds)])),
      // The fastest call of each: on a busy machine, the nearest to what a quiet one would take.
      fastest: Object.fromEntries(arms.map((a) => [a, Math.min(...times[a]!)])),
      postgresCpu: cpuKnown ? Object.fromEntries(arms.map((a) => [a, cpu[a]! / calls[a]!])) : null,
      matches: first.total === null ? "–" : first.total > app.COUNT_CAP ? `${app.COUNT_CAP.toLocaleString("en-US")}+` : String(first.total),
      shared: first.gigs.filter((g) => oldIds.has(g.id)).length,
      shown: first.gigs.length,
    });
    const row = rows.at(-1)!;
    console.log(
      `  ${search}: median ${ms(row.times.bounded!.p50)} ms (all matches ranked: ${ms(row.times.all!.p50)} ms` +
        `${row.times.baseline ? `; baseline: ${ms(row.times.baseline.p50)} ms` : ""})`,
    );
  }
  await Promise.all(singles.map((s) => s?.db.destroy()));
  return rows;
}

function reportSearchCalls(rows: SearchCallRow[]) {
  const withBaseline = rows.some((r) => r.times.baseline);
  const arms: Arm[] = withBaseline ? ["bounded", "all", "baseline"] : ["bounded", "all"];
  const names = { bounded: "bounded", all: "rank all", baseline: "baseline" };
  const header = [
    "search",
    "matches",
    ...arms.map((a) => `${names[a]} p50/p95/p99 ms`),
    "p50 all ÷ bounded",
    ...(withBaseline ? ["p50 baseline ÷ bounded"] : []),
    `fastest ${arms.map((a) => names[a]).join(" / ")} ms`,
    `Postgres CPU per call ${arms.map((a) => names[a]).join(" / ")} ms`,
    "first page shared",
    "target",
  ];
  console.log(`\n| ${header.join(" | ")} |\n|${header.map(() => "---").join("|")}|`);
  for (const r of rows) {
    const p50 = (a: Arm) => r.times[a]!.p50;
    const verdict = p50("bounded") < TARGET_SEARCH_MS ? "met" : `missed: median ${ms(p50("bounded"))} ms ≥ ${TARGET_SEARCH_MS} ms`;
    const cells = [
      r.search,
      r.matches,
      ...arms.map((a) => triple(r.times[a]!)),
      `${(p50("all") / p50("bounded")).toFixed(1)}×`,
      ...(withBaseline ? [`${(p50("baseline") / p50("bounded")).toFixed(1)}×`] : []),
      arms.map((a) => ms(r.fastest[a]!)).join(" / "),
      r.postgresCpu ? arms.map((a) => ms(r.postgresCpu![a]!)).join(" / ") : "–",
      `${r.shared} of ${r.shown}`,
      verdict,
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
  console.log(
    `\nOne call in flight, the arms alternating call by call; Postgres CPU: the same calls on one connection per ` +
      `database, its backend's CPU time ÷ calls. Target: a search call under ${TARGET_SEARCH_MS} ms (median).`,
  );
}

// ---------------------------------------------------------------------------------------------------------

async function printSetup(db: Knex, options: Options) {
  const facts = await machineFacts(db);
  console.log(`\nMachine: ${facts.cpus} × ${facts.model}, ${facts.memory}, ${facts.os}; Node ${facts.node}; Postgres ${facts.postgres}`);
  console.log(`Each measurement: ${options.connections} connections/workers, ${options.warmupS} s warm-up, ${options.durationS} s measured.`);
}

/** Each scenario in turn: its page (when there is a server), then its bare query. */
async function measureScenarios(scenarios: Scenario[], server: WebServer | null, options: Options): Promise<Row[]> {
  const rows: Row[] = [];
  for (const scenario of scenarios) {
    process.stdout.write(`  ${scenario.name}: `);
    let page: PageStats | null = null;
    const pageError: string | null = server ? await checkPage(server.baseUrl, scenario) : "skipped (--queries-only)";
    if (server && !pageError) page = await measurePage(server.baseUrl, scenario.paths, options);
    const query = await measureQuery(scenario.query, options);
    rows.push({ scenario, page, pageError, query });
    console.log(page ? `page p95 ${ms(page.p95)} ms, query p95 ${ms(query.p95)} ms` : `${pageError}; query p95 ${ms(query.p95)} ms`);
  }
  return rows;
}

/** The table and the verdict; true when every page answered (missed targets are not failures). */
function report(rows: Row[], server: WebServer | null, pageCache: "on" | "off"): boolean {
  printTable(rows, pageCache);
  const failed = server ? rows.filter((r) => !r.page || r.page.errors > 0) : [];
  const non2xx = rows.some((r) => (r.page?.non2xx ?? 0) > 0);
  if (server && (failed.length || non2xx)) console.error(`\n--- last lines of the web server's output ---\n${server.output()}`);
  const met = rows.filter((r) => verdict(r, pageCache) === "met").length;
  console.log(`\n${met} of ${rows.length} pages met the target (${targetText(pageCache)}).`);
  return failed.length === 0;
}

/** The --baseline checkout's listCatalog, and its own database loaded with the same data by its migrations. */
async function prepareBaseline(app: App, options: Options): Promise<Baseline> {
  const database = `${options.database}_baseline`;
  const url = databaseUrl(database);
  await prepareDatabase(app, url, database, options.keepData, path.join(options.baseline!, "migrations"));
  // listCatalog is in app/models/catalog-search.server.ts, or in app/models/gig.server.ts in older checkouts.
  const catalogModule = ["app/models/catalog-search.server.ts", "app/models/gig.server.ts"].find((file) => fs.existsSync(path.join(options.baseline!, file)))!;
  const model = (await import(path.join(options.baseline!, catalogModule))) as { listCatalog: App["listCatalog"] };
  console.log(`Baseline: ${options.baseline} on ${database}`);
  return { listCatalog: model.listCatalog, db: app.createDb(url, { min: 0, max: options.connections }), url };
}

async function main() {
  const options = readOptions();
  const printed = keepConsole();
  const benchUrl = databaseUrl(options.database);
  Object.assign(process.env, benchEnv(benchUrl));
  const app = await loadApp();

  await prepareDatabase(app, benchUrl, options.database, options.keepData);
  const baseline = options.baseline ? await prepareBaseline(app, options) : null;

  const db = app.createDb(benchUrl, { min: 0, max: options.connections });
  let server: WebServer | null = null;
  const stopServer = async () => server?.stop();
  const onSignal = () => void stopServer().finally(() => process.exit(130));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    await printSetup(db, options);
    warnIfBusy();
    if (options.searchOnly) {
      reportSearchCalls(await measureSearchCalls(app, db, benchUrl, options, baseline));
      if (options.docs) recordRun(printed());
      return;
    }
    const scenarios = await buildScenarios(app, db);
    if (!options.queriesOnly) {
      ensureBuild(options.build);
      server = await startServer({ ...benchEnv(benchUrl), PAGE_CACHE: options.pageCache });
      console.log(`Web server (production build, page cache ${options.pageCache}) at ${server.baseUrl}; warming it up…`);
      await warmUpServer(server.baseUrl, scenarios, options);
    }
    const rows = await measureScenarios(scenarios, server, options);
    if (!report(rows, server, options.pageCache)) process.exitCode = 1;
    // The single search calls run with the server stopped, so they do not compete with it.
    await stopServer();
    server = null;
    console.log("\nSearch calls, one at a time:");
    reportSearchCalls(await measureSearchCalls(app, db, benchUrl, options, baseline));
    if (options.docs) recordRun(printed());
  } finally {
    await stopServer();
    await db.destroy();
    await baseline?.db.destroy();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** Appends what this run printed to docs/benchmarks/history/catalog.md. */
function recordRun(printed: string) {
  const file = appendPrintedRun("catalog", "Catalog: `npm run bench:catalog`", "npm run bench:catalog", printed);
  console.log(`\nAppended this run to ${path.relative(process.cwd(), file)}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
