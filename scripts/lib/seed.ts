/**
 * Demo data for a machine of one's own (npm start, the tests): an admin, clients and
 * freelancers, 66 published gigs with cover images, about 3,700 reviews, and a few orders between the demo
 * client and the demo freelancer (one cleared, one delivered, one in progress, one in dispute). Demo data obeys the rules real
 * data does: everything a member makes goes in through the operation their own request would call, acting
 * as them (accounts, profiles, cover uploads, gigs, reviews), so it passes the same schemas, ownership
 * checks, rate limits and roll-ups, with the same activity rows. What no operation makes is written after,
 * in `demoHistory` (see there). All of it is one transaction: a seed that fails leaves the database empty,
 * so the next start tries again.
 */
import type { Knex } from "knex";
import type { SessionUser } from "~/models/session.server";
import { createAdmin, createMember } from "~/operations/accounts.server";
import { setMemberPayoutNumber, updateProfile } from "~/operations/account-settings.server";
import { approveOrder, deliverOrder, openDispute, placeOrder, runOrderTimers } from "~/operations/orders.server";
import { markConversationRead, sendMessage, startConversation } from "~/operations/messages.server";
import { settlePayment } from "~/operations/payments.server";
import { systemActor, type Actor, type Result } from "~/operations/core.server";
import { recomputeAllLevels } from "~/operations/seller-levels.server";
import { attachImage, saveGig } from "~/operations/gigs.server";
import { setVetting } from "~/operations/vetting.server";
import { createReview, createReviews, type BulkReview } from "~/operations/reviews.server";
import { createProviders } from "~/payments/registry.server";
import { Sandbox } from "~/payments/sandbox.server";
import { ProfileSchema } from "~/schemas/account";
import { DELIVERY_DAYS, gigFormSchema, TIERS, type Tier } from "~/schemas/gig";
import { getEnv } from "~/server/env.server";
import { hashPassword } from "~/server/password.server";
import { refund } from "~/server/rate-limit.server";
import { releaseUploads } from "~/server/files/upload-quota.server";
import { createRedis } from "~/server/redis.server";
import { renderCover } from "./covers";

/**
 * The categories the demo gigs are written for: the six a migration creates (reference data, ADR 026), in
 * the landing page's order. The seed reads their names from the database; it never inserts categories.
 */
export const DEMO_CATEGORY_SLUGS = [
  "graphics-design",
  "web-development",
  "writing-translation",
  "video-animation",
  "digital-marketing",
  "local-services",
] as const;
type DemoCategory = { slug: (typeof DEMO_CATEGORY_SLUGS)[number]; name: string };

/** The demo categories as the database has them; throws if a migration's category is missing. */
async function demoCategories(db: Knex): Promise<DemoCategory[]> {
  const rows: { slug: string; name: string }[] = await db("categories").whereIn("slug", DEMO_CATEGORY_SLUGS).select("slug", "name");
  return DEMO_CATEGORY_SLUGS.map((slug) => {
    const row = rows.find((r) => r.slug === slug);
    if (!row) throw new Error(`the category ${slug} is missing: run the migrations first`);
    return { slug, name: row.name };
  });
}

export const DEMO_PASSWORD = "soko-demo-2026";

/** The accounts README names; usernames come from the names, as a join makes them (soko_admin, sarah_nakato, james_okello). */
export const DEMO_ACCOUNTS = {
  admin: { name: "Soko Admin", email: "admin@soko.test", role: "admin" as const },
  client: { name: "Sarah Nakato", email: "client@soko.test", role: "client" as const },
  freelancer: { name: "James Okello", email: "freelancer@soko.test", role: "freelancer" as const },
};

const CLIENTS = [
  ["Grace Namubiru", "Kampala"],
  ["Brian Mugisha", "Mbarara"],
  ["Patricia Atim", "Gulu"],
  ["David Ssemwanga", "Entebbe"],
] as const;

/** What clients say, by the stars they gave. */
const REVIEW_COMMENTS: Record<number, string[]> = {
  5: [
    "Excellent work, delivered early. Will order again.",
    "Very professional and easy to talk to. Highly recommended!",
    "Exactly what my business needed. Webale nyo!",
  ],
  4: ["Good work and quick replies; one small revision needed.", "Solid result, delivered on time."],
  3: ["The work was fine but took longer than promised.", "Okay overall; I had to explain twice."],
  2: ["Not what I asked for at first; fixed after several revisions."],
  1: ["Late and far from the brief."],
};

const FREELANCERS = [
  ["Ruth Achieng", "Jinja", ["Logo design", "Branding", "Illustrator"]],
  ["Ivan Tumusiime", "Kampala", ["React", "Node.js", "WordPress"]],
  ["Esther Nansubuga", "Masaka", ["Copywriting", "Luganda", "Translation"]],
  ["Joseph Kato", "Mbale", ["Video editing", "After Effects", "Motion graphics"]],
  ["Christine Auma", "Lira", ["Facebook ads", "SEO", "Content strategy"]],
  ["Daniel Byaruhanga", "Fort Portal", ["Photography", "Events", "Drone video"]],
  ["Sharon Nabirye", "Kampala", ["UI design", "Figma", "Flyers"]],
  ["Moses Opio", "Arua", ["PHP", "Laravel", "Mobile money APIs"]],
] as const;

/** Gig title templates per category; each becomes one published gig with three packages. */
const GIG_TITLES: Record<DemoCategory["slug"], string[]> = {
  "graphics-design": [
    "I will design a modern logo for your Kampala business",
    "I will create a complete brand identity kit",
    "I will design eye-catching flyers and posters",
    "I will design social media graphics for a month",
    "I will design your business card and letterhead",
    "I will design a professional company profile",
    "I will create custom illustrations for your brand",
    "I will design product packaging and labels",
    "I will design a wedding invitation card",
    "I will redesign your logo in 24 hours",
    "I will design billboard and banner artwork",
  ],
  "web-development": [
    "I will build a responsive business website",
    "I will build an online shop with mobile money checkout",
    "I will fix bugs on your WordPress site",
    "I will build a school management web app",
    "I will integrate MTN MoMo and Airtel Money payments",
    "I will build a fast landing page for your product",
    "I will build a hotel booking website",
    "I will speed up your slow website",
    "I will build a REST API with Node.js",
    "I will set up hosting, domain and business email",
    "I will build a church or NGO website",
  ],
  "writing-translation": [
    "I will translate English to Luganda accurately",
    "I will write a professional CV and cover letter",
    "I will write SEO blog articles about Uganda",
    "I will write a winning business plan",
    "I will translate documents between English and Swahili",
    "I will proofread and edit your report",
    "I will write product descriptions for your shop",
    "I will write a grant proposal for your NGO",
    "I will write radio advert scripts",
    "I will write engaging website copy",
    "I will transcribe audio and video to text",
  ],
  "video-animation": [
    "I will edit your YouTube videos professionally",
    "I will create an animated explainer video",
    "I will make a promotional video for your business",
    "I will edit your wedding video",
    "I will create a logo animation intro",
    "I will make TikTok and Reels videos",
    "I will add Luganda or English subtitles to your video",
    "I will create a 2D animated advert",
    "I will edit a music video",
    "I will make a product demo video",
    "I will create whiteboard animation",
  ],
  "digital-marketing": [
    "I will manage your Facebook and Instagram pages",
    "I will run targeted Facebook ads in Uganda",
    "I will do SEO for your website",
    "I will grow your TikTok audience organically",
    "I will set up Google Business Profile for your shop",
    "I will create a social media content calendar",
    "I will run WhatsApp marketing campaigns",
    "I will do keyword research for your niche",
    "I will set up Google Ads for your business",
    "I will write and send email newsletters",
    "I will audit your digital marketing strategy",
  ],
  "local-services": [
    "I will photograph your event in Kampala",
    "I will take product photos for your online shop",
    "I will tutor your child in mathematics",
    "I will shoot aerial drone footage of your property",
    "I will plan and coordinate your introduction ceremony",
    "I will do professional headshot photography",
    "I will teach you Luganda online",
    "I will provide MC services for your event",
    "I will do real estate photography",
    "I will coach you for job interviews",
    "I will do data entry and typing",
  ],
};

const FEATURES = {
  basic: ["1 concept", "Source file"],
  standard: ["3 concepts", "Source files", "Priority support"],
  premium: ["5 concepts", "All source files", "Priority support", "Commercial use"],
};

/** A small deterministic PRNG (mulberry32), so demo data is the same on every machine. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function usernameOf(name: string) {
  return name.toLowerCase().replace(/[^a-z]+/g, "_");
}

/** A price in UGX, a multiple of 5,000, within the sample range 75,000 to 800,000 (docs/product.md). */
function roundPrice(ugx: number) {
  return Math.min(800_000, Math.max(75_000, Math.round(ugx / 5_000) * 5_000));
}

/** The value of an operation that must succeed, or an error that says which step refused and why. */
function must<T>(step: string, result: Result<T>): T {
  if (result.ok) return result.value;
  throw new Error(`demo data: ${step} was refused: ${JSON.stringify(result)}`);
}

/** Runs `fn` over `items`, at most `width` at a time, keeping their order in the result. */
async function pooled<T, R>(items: T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(width, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await fn(items[i]!, i);
      }
    }),
  );
  return results;
}

/** The client a demo member acts from: this machine, no analytics consent. */
const SEED_CLIENT = { ip: "127.0.0.1", userAgent: "soko-seed", analyticsConsent: false, tabSessionId: null };

/** A member as the operations see them when they act (no session: the seed is not signed in as them). */
function memberActor(user: Omit<SessionUser, "sessionId" | "preferredCurrency" | "timeZone" | "language">): Actor {
  return { kind: "member", user: { ...user, sessionId: "", preferredCurrency: "UGX", timeZone: "EAT", language: "en" }, client: SEED_CLIENT };
}

type Person = {
  name: string;
  email: string;
  role: "client" | "freelancer";
  location: string;
  bio: string;
  skills: string[];
  languages: string[];
  joinedDaysAgo: number;
  yearsExperience?: number;
};

/** A demo gig as planned up front, so the PRNG is drawn in one fixed order whatever runs in parallel later. */
type PlannedGig = {
  category: DemoCategory;
  title: string;
  sellerIndex: number;
  form: Record<string, unknown>;
  publishedDaysAgo: number;
  reviews: { reviewerIndex: number; rating: number; comment: string; writtenDaysAgo: number }[];
};

/** The demo gigs: each category's titles in order, sellers taken in turn; prices, delivery and reviews drawn. */
function planGigs(categories: DemoCategory[], random: () => number, sellers: number, reviewers: number): PlannedGig[] {
  const gigs: PlannedGig[] = [];
  let sellerIndex = 0;
  for (const category of categories) {
    for (const title of GIG_TITLES[category.slug]) {
      const seller = sellerIndex++ % sellers;
      const reviewsCount = Math.floor(random() * 120);
      const target = 3.6 + random() * 1.4;
      const stars = Array.from({ length: reviewsCount }, () => Math.max(1, Math.min(5, Math.round(target + (random() - 0.5) * 2))));
      const basicPrice = roundPrice(75_000 + random() * 200_000);
      const publishedDaysAgo = Math.floor(random() * 90);
      const reviews = stars.map((rating, i) => ({
        reviewerIndex: (i + sellerIndex) % reviewers,
        rating,
        comment: REVIEW_COMMENTS[rating]![i % REVIEW_COMMENTS[rating]!.length]!,
        writtenDaysAgo: 1 + Math.floor(random() * 180),
      }));
      const pick = <T>(options: readonly T[]) => options[Math.floor(random() * options.length)]!;
      const prices: Record<Tier, number> = { basic: basicPrice, standard: 0, premium: 0 };
      const delivery = {} as Record<Tier, number>;
      delivery.basic = pick(DELIVERY_DAYS.basic);
      prices.standard = roundPrice(basicPrice * (1.8 + random()));
      delivery.standard = pick(DELIVERY_DAYS.standard);
      prices.premium = roundPrice(basicPrice * (3 + random() * 1.5));
      delivery.premium = pick(DELIVERY_DAYS.premium);
      // The gig form as a seller fills it in, parsed by the form's own schema when the gig is saved.
      const form: Record<string, unknown> = {
        title,
        category: category.slug,
        description:
          `${title}. I work with businesses across Uganda and deliver on time. ` +
          `Tell me about your project before you order and I will reply within a few hours.`,
        tags: title
          .toLowerCase()
          .replace(/^i will /, "")
          .split(" ")
          .filter((w) => w.length > 4)
          .slice(0, 4),
      };
      for (const tier of TIERS) {
        form[tier] = {
          name: PACKAGES[tier].name,
          description: PACKAGES[tier].description,
          price: String(prices[tier]),
          delivery: String(delivery[tier]),
          revisions: String(PACKAGES[tier].revisions),
          features: FEATURES[tier].join("\n"),
        };
      }
      gigs.push({ category, title, sellerIndex: seller, form, publishedDaysAgo, reviews });
    }
  }
  return gigs;
}

const PACKAGES: Record<Tier, { name: string; description: string; revisions: number }> = {
  basic: { name: "Basic", description: "The essentials, done well.", revisions: 1 },
  standard: { name: "Standard", description: "More options and faster support.", revisions: 3 },
  premium: { name: "Premium", description: "Everything, with commercial rights.", revisions: 5 },
};

/** The demo people: the demo client first, then the other clients (the reviewers), then the freelancers. */
function people(): Person[] {
  const clients: Person[] = [
    { ...DEMO_ACCOUNTS.client, location: "Kampala", bio: "I run a small boutique in Ntinda.", skills: [], languages: [], joinedDaysAgo: 120 },
    ...CLIENTS.map(([name, location], i): Person => ({
      name,
      email: `${usernameOf(name)}@soko.test`,
      role: "client",
      location,
      bio: "",
      skills: [],
      languages: [],
      joinedDaysAgo: 30 + i * 17,
    })),
  ];
  const freelancers = [[DEMO_ACCOUNTS.freelancer.name, "Kampala", ["Graphic design", "Web design", "Branding"]] as const, ...FREELANCERS].map(
    ([name, location, skills], i): Person => ({
      name,
      email: i === 0 ? DEMO_ACCOUNTS.freelancer.email : `${usernameOf(name)}@soko.test`,
      role: "freelancer",
      location,
      skills: [...skills],
      languages: ["English", i % 2 === 0 ? "Luganda" : "Swahili"],
      bio: `${name.split(" ")[0]} is a ${location}-based freelancer working in ${skills.join(", ")}.`,
      joinedDaysAgo: 200 + i * 40,
      yearsExperience: 2 + ((i * 3) % 9),
    }),
  );
  return [...clients, ...freelancers];
}

/** How many cover images are drawn and uploaded at once (sharp's encoding is the seed's slowest step). */
const COVER_CONCURRENCY = 2;

/**
 * Loads the demo data, in one transaction, through the operations. Callers check isDatabaseEmpty first.
 * Cover images are stored in the file store (UPLOAD_DIR, or the S3 bucket when S3_BUCKET is set).
 */
export async function seedDemoData(db: Knex) {
  const random = prng(20261122);
  const system = systemActor("seed");
  const cast = people();
  const plan = planGigs(await demoCategories(db), random, cast.filter((p) => p.role === "freelancer").length, cast.filter((p) => p.role === "client").length);
  const counted: { userId: number; gigs: number; uploads: number[]; checkouts?: number }[] = [];
  const coverBytes = new Map<number, number[]>();

  try {
    await db.transaction(async (trx) => {
      // Each operation's own transaction becomes a savepoint in this one; knex runs sibling savepoints one
      // after another, so covers uploaded two at a time still write their rows in turn.
      const options = { db: trx };
      // One hash for every other demo account (they share the demo password: scrypt costs a few hundred
      // milliseconds), made while createAdmin makes its own.
      const [adminResult, passwordHash] = await Promise.all([
        createAdmin(system, { name: DEMO_ACCOUNTS.admin.name, email: DEMO_ACCOUNTS.admin.email, password: DEMO_PASSWORD }, options),
        hashPassword(DEMO_PASSWORD),
      ]);
      const admin = must("the demo admin", adminResult);
      const members: { id: number; actor: Actor; person: Person }[] = [];
      for (const person of cast) {
        const { id, username } = must(
          `the account of ${person.email}`,
          await createMember(
            system,
            // Demo members' addresses are the platform's own: verified, so the sellers can publish (ADR 051).
            { name: person.name, email: person.email, role: person.role, passwordHash, skills: person.skills, bio: person.bio, emailVerified: true },
            options,
          ),
        );
        const actor = memberActor({ id, name: person.name, username, email: person.email, role: person.role });
        const profile = ProfileSchema.parse({
          name: person.name,
          bio: person.bio,
          location: person.location,
          skills: person.skills.join(", "),
          languages: person.languages.join(", "),
          yearsExperience: person.yearsExperience,
        });
        must(`the profile of ${person.email}`, await updateProfile(actor, profile, options));
        members.push({ id, actor, person });
      }
      const clients = members.filter((m) => m.person.role === "client");
      const sellers = members.filter((m) => m.person.role === "freelancer");

      // Each gig's cover, drawn and uploaded by its seller (a few at a time: the encoding is what takes time).
      const covers = await pooled(plan, COVER_CONCURRENCY, async (gig) => {
        const png = await renderCover({ title: gig.title, categorySlug: gig.category.slug, categoryName: gig.category.name });
        const file = new File([png as Uint8Array<ArrayBuffer>], "cover.png", { type: "image/png" });
        const key = must(`the cover of "${gig.title}"`, await attachImage(sellers[gig.sellerIndex]!.actor, { file }, options)).key;
        const sellerId = sellers[gig.sellerIndex]!.id;
        coverBytes.set(sellerId, [...(coverBytes.get(sellerId) ?? []), file.size]);
        return key;
      });

      const gigIds: number[] = [];
      for (const [i, gig] of plan.entries()) {
        const value = gigFormSchema("publish").parse({ ...gig.form, images: [covers[i]!] });
        const saved = must(`the gig "${gig.title}"`, await saveGig(sellers[gig.sellerIndex]!.actor, { intent: "publish", gig: value }, options));
        gigIds.push(saved.id);
      }
      for (const seller of sellers) {
        const gigs = plan.filter((g) => sellers[g.sellerIndex] === seller).length;
        counted.push({ userId: seller.id, gigs, uploads: coverBytes.get(seller.id) ?? [] });
      }

      const now = Date.now();
      const daysAgo = (d: number) => new Date(now - d * 86_400_000);
      for (const [i, gig] of plan.entries()) {
        if (gig.reviews.length === 0) continue;
        const reviews: BulkReview[] = gig.reviews.map((r) => ({
          reviewerId: clients[r.reviewerIndex]!.id,
          rating: r.rating,
          comment: r.comment,
          createdAt: daysAgo(r.writtenDaysAgo),
        }));
        must(`the reviews of "${gig.title}"`, await createReviews(system, { gigId: gigIds[i]!, reviews }, options));
      }

      await demoHistory(trx, {
        members: [{ id: admin.id, joinedDaysAgo: 400 }, ...members.map((m) => ({ id: m.id, ...m.person }))],
        gigs: plan.map((g, i) => ({ id: gigIds[i]!, publishedDaysAgo: g.publishedDaysAgo })),
        daysAgo,
      });

      const client = members.find((m) => m.person.email === DEMO_ACCOUNTS.client.email)!;
      const freelancer = members.find((m) => m.person.email === DEMO_ACCOUNTS.freelancer.email)!;
      // The landing page's promise in the demo: the demo freelancer and the first three sellers vetted by the demo admin (ADR 051).
      const adminActor = memberActor({
        id: admin.id,
        name: DEMO_ACCOUNTS.admin.name,
        username: admin.username,
        email: DEMO_ACCOUNTS.admin.email,
        role: "admin",
      });
      for (const seller of sellers.filter((s, i) => s === freelancer || i < 3)) {
        const vetting = { intent: "vet" as const, userId: seller.id, note: "Portfolio checked (demo data)." };
        must(`the vetting of ${seller.person.email}`, await setVetting(adminActor, vetting, options));
      }
      const freelancerGigs = plan.flatMap((g, i) => (sellers[g.sellerIndex] === freelancer ? [gigIds[i]!] : []));
      counted.push({ userId: client.id, gigs: 0, uploads: [], checkouts: DEMO_ORDERS.length });
      await demoOrders(trx, { client, freelancer, gigIds: freelancerGigs, daysAgo });
      await demoConversation(trx, { client, freelancer, gigId: freelancerGigs[0]! });
      // Levels and response times are earned, never set by hand (ADR 049): the demo's are what the daily
      // recomputation would make of the data above, so nothing changes overnight.
      must("the sellers' levels", await recomputeAllLevels(system, {}, options));
    });
  } finally {
    // The seed's gigs and uploads were counted against each demo seller's hourly limits, as a seller's own
    // would be; they are given back, so the demo seller starts with a whole hour's allowance (and seeding
    // many test databases, whose sellers share ids, never adds up to a limit).
    await Promise.all(
      counted.flatMap((c) => [
        refund("gigCreate", String(c.userId), c.gigs),
        releaseUploads(c.userId, c.uploads),
        refund("checkout", String(c.userId), c.checkouts ?? 0),
      ]),
    );
  }
}

/**
 * What no operation makes, because no member makes it: the past that demo data pretends to have: when each member joined and each gig
 * was first published, and the editors'
 * Featured Services pick. Written last, over rows the operations made.
 */
async function demoHistory(
  trx: Knex.Transaction,
  {
    members,
    gigs,
    daysAgo,
  }: {
    members: { id: number; joinedDaysAgo: number }[];
    gigs: { id: number; publishedDaysAgo: number }[];
    daysAgo: (d: number) => Date;
  },
) {
  for (const m of members) {
    await trx("users")
      .where({ id: m.id })
      .update({ created_at: daysAgo(m.joinedDaysAgo) });
  }
  for (const g of gigs) {
    await trx("gigs")
      .where({ id: g.id })
      .update({ created_at: daysAgo(100), published_at: daysAgo(g.publishedDaysAgo) });
  }
  // Featured Services: the best-reviewed gig of each of four categories (the editors' pick, in demo data).
  await trx.raw(`
    UPDATE gigs SET featured = true WHERE id IN (
      SELECT DISTINCT ON (category_id) id FROM gigs
      WHERE reviews_count >= 20 AND category_id IN (SELECT id FROM categories ORDER BY position LIMIT 4)
      ORDER BY category_id, rating DESC, reviews_count DESC, id
    )`);
}

/** The demo client's orders of the demo freelancer's gigs, and how far each has gone. */
const DEMO_ORDERS = [
  { stage: "cleared", requirements: "A logo for my juice bar in Ntinda: green and orange, simple enough for a sign." },
  { stage: "delivered", requirements: "Business cards to go with the logo, 200 pieces." },
  { stage: "in_progress", requirements: "A flyer for our opening weekend." },
  { stage: "disputed", requirements: "A banner for the shop front, 3 m by 1 m." },
] as const;

/**
 * Orders between the demo client and the demo freelancer, so their dashboards, /orders and the admin's
 * disputes screen have something to show: each placed, paid in a sandbox of the seed's own, and taken as far
 * as its stage through the same operations a member's would (deliver, approve, review, dispute); the cleared
 * one is given a past (completed three weeks ago) and cleared by the order timers, as the worker would.
 */
async function demoOrders(
  trx: Knex.Transaction,
  {
    client,
    freelancer,
    gigIds,
    daysAgo,
  }: { client: { id: number; actor: Actor }; freelancer: { id: number; actor: Actor }; gigIds: number[]; daysAgo: (d: number) => Date },
) {
  const system = systemActor("seed");
  const env = getEnv();
  const redis = createRedis(env.REDIS_URL, { maxRetriesPerRequest: 1 });
  const sandbox = new Sandbox(redis, env.QUEUE_PREFIX);
  const options = { db: trx, providers: createProviders({ ...env, MTN_MOMO_BASE_URL: undefined, AIRTEL_BASE_URL: undefined }, { sandbox }) };
  try {
    // Set by the platform: the demo freelancer can withdraw at once (a member's own change waits 24 hours).
    must("the demo freelancer's billing number", await setMemberPayoutNumber(system, { userId: freelancer.id, mobileMoneyNumber: "+256772100200" }, options));
    for (const [i, demo] of DEMO_ORDERS.entries()) {
      const placed = must(
        `demo order ${i + 1}`,
        await placeOrder(
          client.actor,
          {
            gigId: gigIds[i % gigIds.length]!,
            tier: "basic",
            requirements: demo.requirements,
            msisdn: "+256772300400",
            network: "mtn",
            checkoutKey: `demo-order-${i + 1}-0000000000`,
          },
          options,
        ),
      );
      const orderId = placed.orderId;
      await sandbox.decide(placed.reference, "approve");
      must(`payment of demo order ${i + 1}`, await settlePayment(system, { reference: placed.reference }, options));
      if (demo.stage === "in_progress") continue;
      must(
        `delivery of demo order ${i + 1}`,
        await deliverOrder(freelancer.actor, { orderId, message: "Here is the first version, in PNG and PDF." }, options),
      );
      if (demo.stage === "disputed") {
        must(
          `dispute of demo order ${i + 1}`,
          await openDispute(client.actor, { orderId, reason: "The banner is the wrong size, and the seller stopped answering." }, options),
        );
      }
      if (demo.stage !== "cleared") continue;
      must(`approval of demo order ${i + 1}`, await approveOrder(client.actor, { orderId }, options));
      const gig = await trx("orders").where({ id: orderId }).first("gig_id");
      must(
        `review of demo order ${i + 1}`,
        await createReview(client.actor, { gigId: Number(gig.gig_id), orderId, rating: 5, comment: "Great logo, quick and friendly. Webale nyo!" }, options),
      );
      await trx("orders")
        .where({ id: orderId })
        .update({ created_at: daysAgo(25), paid_at: daysAgo(25), delivered_at: daysAgo(22), completed_at: daysAgo(21), due_at: daysAgo(22) });
      await trx("order_events")
        .where({ order_id: orderId })
        .update({ created_at: daysAgo(21) });
      must("the order timers", await runOrderTimers(system, options));
    }
  } finally {
    await redis.quit().catch(() => redis.disconnect());
  }
}

/**
 * A conversation between the demo client and the demo freelancer, started from one of the freelancer's gigs:
 * the last message is unread by the freelancer, so Messages and the bell have something to show.
 */
async function demoConversation(
  trx: Knex.Transaction,
  { client, freelancer, gigId }: { client: { id: number; actor: Actor }; freelancer: { id: number; actor: Actor }; gigId: number },
) {
  const options = { db: trx };
  const { conversationId } = must("the demo conversation", await startConversation(client.actor, { gigId }, options));
  // Each message is read by the other before they answer; the last one waits for the freelancer.
  const lines: [{ actor: Actor }, { actor: Actor }, string][] = [
    [client, freelancer, "Hello! Could you make the logo in our shop's colours, green and gold?"],
    [freelancer, client, "Yes, of course. Send me a photo of the shop sign and I will start today."],
    [client, freelancer, "Thank you, I will send it this evening."],
  ];
  for (const [i, [from, to, body]] of lines.entries()) {
    must(`demo message ${i + 1}`, await sendMessage(from.actor, { conversationId, body, clientId: `demo-message-${i + 1}` }, options));
    if (i < lines.length - 1) must(`demo message ${i + 1} read`, await markConversationRead(to.actor, { conversationId }, options));
  }
  // Counted against the demo members' limits like their own sends; given back, as the seed's gigs are.
  await Promise.all([refund("conversation", `user:${client.id}`, 1), refund("message", `user:${client.id}`, 2), refund("message", `user:${freelancer.id}`, 1)]);
}

/**
 * Whether nobody has used this database yet: no member and no gig. Categories do not count: a migration
 * makes them (ADR 026), so every database has them.
 */
export async function isDatabaseEmpty(db: Knex) {
  const [users, gigs] = await Promise.all([db("users").first("id"), db("gigs").first("id")]);
  return !users && !gigs;
}
