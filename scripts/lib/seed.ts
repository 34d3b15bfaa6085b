import type { Knex } from "knex";
import { refreshCatalog } from "~/models/gig.server";
import { DELIVERY_DAYS } from "~/utils/gig-schemas";
import { hashPassword } from "~/utils/password.server";

/** The six categories of spec §9, in the landing page's order. */
export const CATEGORIES = [
  { slug: "graphics-design", name: "Graphics & Design", description: "Logos, branding, flyers and social media graphics." },
  { slug: "web-development", name: "Web Development", description: "Websites, online shops and web apps." },
  { slug: "writing-translation", name: "Writing & Translation", description: "Copy, articles, CVs and Luganda, Swahili or English translation." },
  { slug: "video-animation", name: "Video & Animation", description: "Video editing, explainers and animated adverts." },
  { slug: "digital-marketing", name: "Digital Marketing", description: "Social media, SEO and advertising campaigns." },
  { slug: "local-services", name: "Local Services", description: "Photography, events, tutoring and more near you." },
] as const;


export const DEMO_PASSWORD = "soko-demo-2026";

export const DEMO_ACCOUNTS = {
  admin: { name: "Soko Admin", username: "admin", email: "admin@soko.test", role: "admin" as const },
  client: { name: "Sarah Nakato", username: "sarah_nakato", email: "client@soko.test", role: "client" as const },
  freelancer: { name: "James Okello", username: "james_okello", email: "freelancer@soko.test", role: "freelancer" as const },
};

const CLIENTS = [
  ["Grace Namubiru", "Kampala"],
  ["Brian Mugisha", "Mbarara"],
  ["Patricia Atim", "Gulu"],
  ["David Ssemwanga", "Entebbe"],
] as const;

/** What clients say, by the stars they gave. */
const REVIEW_COMMENTS: Record<number, string[]> = {
  5: ["Excellent work, delivered early. Will order again.", "Very professional and easy to talk to. Highly recommended!", "Exactly what my business needed. Webale nyo!"],
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

const LEVELS = ["New Seller", "Level 1", "Level 2", "Top Rated"] as const;

/** Gig title templates per category; each becomes one published gig with three packages. */
const GIG_TITLES: Record<(typeof CATEGORIES)[number]["slug"], string[]> = {
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

/** A price in UGX, a multiple of 5,000, within the spec's sample range 75,000 to 800,000. */
function roundPrice(ugx: number) {
  return Math.min(800_000, Math.max(75_000, Math.round(ugx / 5_000) * 5_000));
}

export async function isDatabaseEmpty(db: Knex) {
  const [users, categories] = await Promise.all([
    db("users").count<{ count: string }[]>({ count: "*" }).first(),
    db("categories").count<{ count: string }[]>({ count: "*" }).first(),
  ]);
  return Number(users?.count) === 0 && Number(categories?.count) === 0;
}

/** Loads the demo data in one transaction. Callers check isDatabaseEmpty first. */
export async function seedDemoData(db: Knex) {
  const random = prng(20261122);
  const passwordHash = await hashPassword(DEMO_PASSWORD);
  await db.transaction(async (trx) => {
    const categoryRows = await trx("categories")
      .insert(CATEGORIES.map((c, i) => ({ ...c, position: i })))
      .returning(["id", "slug"]);
    const categoryId = new Map(categoryRows.map((r) => [r.slug as string, r.id as number]));

    const now = Date.now();
    const daysAgo = (d: number) => new Date(now - d * 86_400_000);

    const people = await trx("users").insert([
      { ...DEMO_ACCOUNTS.admin, password_hash: passwordHash, location: "Kampala", created_at: daysAgo(400) },
      {
        ...DEMO_ACCOUNTS.client,
        password_hash: passwordHash,
        location: "Kampala",
        bio: "I run a small boutique in Ntinda.",
        created_at: daysAgo(120),
      },
      ...CLIENTS.map(([name, location], i) => ({
        name,
        username: usernameOf(name),
        email: `${usernameOf(name)}@soko.test`,
        role: "client",
        password_hash: passwordHash,
        location,
        created_at: daysAgo(30 + i * 17),
      })),
    ]).returning(["id", "role"]);
    const reviewers = people.filter((p) => p.role === "client");

    const freelancerSpecs = [
      [DEMO_ACCOUNTS.freelancer.name, "Kampala", ["Graphic design", "Web design", "Branding"]] as const,
      ...FREELANCERS,
    ];
    const sellers = await trx("users")
      .insert(
        freelancerSpecs.map(([name, location, skills], i) => ({
          name,
          username: i === 0 ? DEMO_ACCOUNTS.freelancer.username : usernameOf(name),
          email: i === 0 ? DEMO_ACCOUNTS.freelancer.email : `${usernameOf(name)}@soko.test`,
          role: "freelancer",
          password_hash: passwordHash,
          location,
          skills,
          languages: ["English", i % 2 === 0 ? "Luganda" : "Swahili"],
          bio: `${name.split(" ")[0]} is a ${location}-based freelancer working in ${skills.join(", ")}.`,
          level: LEVELS[i % LEVELS.length],
          response_time_hours: 1 + (i % 5),
          created_at: daysAgo(200 + i * 40),
        })),
      )
      .returning(["id"]);

    let sellerIndex = 0;
    const sellerRatings = new Map<number, { sum: number; count: number }>();
    for (const category of CATEGORIES) {
      for (const title of GIG_TITLES[category.slug]) {
        const seller = sellers[sellerIndex++ % sellers.length]!;
        // Individual reviews first; the gig's rating and count are what they add up to.
        const reviewsCount = Math.floor(random() * 120);
        const target = 3.6 + random() * 1.4;
        const stars = Array.from({ length: reviewsCount }, () => Math.max(1, Math.min(5, Math.round(target + (random() - 0.5) * 2))));
        const rating = reviewsCount === 0 ? 0 : Math.round((stars.reduce((a, b) => a + b, 0) / reviewsCount) * 100) / 100;
        const basicPrice = roundPrice(75_000 + random() * 200_000);
        const [gig] = await trx("gigs")
          .insert({
            seller_id: seller.id,
            category_id: categoryId.get(category.slug),
            title,
            description:
              `${title.replace(/^I will /, "I will ")}. I work with businesses across Uganda and deliver on time. ` +
              `Tell me about your project before you order and I will reply within a few hours.`,
            tags: title.toLowerCase().replace(/^i will /, "").split(" ").filter((w) => w.length > 4).slice(0, 4),
            status: "published",
            rating,
            reviews_count: reviewsCount,
            published_at: daysAgo(Math.floor(random() * 90)),
            created_at: daysAgo(100),
          })
          .returning(["id"]);
        for (let from = 0; from < stars.length; from += 500) {
          await trx("reviews").insert(
            stars.slice(from, from + 500).map((rating, i) => ({
              gig_id: gig!.id,
              reviewer_id: reviewers[(from + i + sellerIndex) % reviewers.length]!.id,
              rating,
              comment: REVIEW_COMMENTS[rating]![(from + i) % REVIEW_COMMENTS[rating]!.length]!,
              created_at: daysAgo(1 + Math.floor(random() * 180)),
            })),
          );
        }
        const pick = <T>(options: readonly T[], from: number) => options[from + Math.floor(random() * (options.length - from))]!;
        await trx("gig_packages").insert([
          {
            gig_id: gig!.id,
            tier: "basic",
            name: "Basic",
            description: "The essentials, done well.",
            price_ugx: basicPrice,
            delivery_days: pick(DELIVERY_DAYS.basic, 0),
            revisions: 1,
            features: FEATURES.basic,
          },
          {
            gig_id: gig!.id,
            tier: "standard",
            name: "Standard",
            description: "More options and faster support.",
            price_ugx: roundPrice(basicPrice * (1.8 + random())),
            delivery_days: pick(DELIVERY_DAYS.standard, 0),
            revisions: 3,
            features: FEATURES.standard,
            popular: true,
          },
          {
            gig_id: gig!.id,
            tier: "premium",
            name: "Premium",
            description: "Everything, with commercial rights.",
            price_ugx: roundPrice(basicPrice * (3 + random() * 1.5)),
            delivery_days: pick(DELIVERY_DAYS.premium, 0),
            revisions: 5,
            features: FEATURES.premium,
          },
        ]);
        const total = sellerRatings.get(seller.id) ?? { sum: 0, count: 0 };
        total.sum += rating * reviewsCount;
        total.count += reviewsCount;
        sellerRatings.set(seller.id, total);
      }
    }
    // Featured Services: the best-reviewed gig of each of four categories (the editors' pick, in demo data).
    await trx.raw(`
      UPDATE gigs SET featured = true WHERE id IN (
        SELECT DISTINCT ON (category_id) id FROM gigs
        WHERE reviews_count >= 20 AND category_id IN (SELECT id FROM categories ORDER BY position LIMIT 4)
        ORDER BY category_id, rating DESC, reviews_count DESC, id
      )`);
    await refreshCatalog(trx);
    for (const [id, { sum, count }] of sellerRatings) {
      await trx("users")
        .where({ id })
        .update({ rating: count ? Math.round((sum / count) * 100) / 100 : 0, reviews_count: count });
    }
  });
}
