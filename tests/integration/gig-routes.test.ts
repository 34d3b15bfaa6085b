/**
 * The gig routes through the real built server: what the gig form refuses (and the message shown beside
 * the field) and stores, its no-JavaScript round trips, who may create, edit, pause and delete a gig, the
 * gig page's Continue and Contact Seller buttons with the order summary, and catalog URLs that must never
 * break (unknown filters, garbage cursors, NUL and very long queries, the currency switch).
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv, parseEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { startEffects, type EffectsRunner } from "../../worker/effects-runner.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createReview, createSession, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { decode } from "../support/html";

let t: TestDatabase;
let server: TestServer;
let effects: EffectsRunner;
let uploadDir: string;
const queuePrefix = `gigr_${process.pid}_${Date.now()}`;
let png: Buffer;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};

// Who takes part: a buyer, a buyer who becomes a seller, two sellers and an admin.
const PEOPLE = {
  client: { role: "client", name: "Test Client" },
  convert: { role: "client", name: "Test Convert" },
  freelancer: { role: "freelancer", name: "Test Freelancer" },
  other: { role: "freelancer", name: "Other Freelancer" },
  admin: { role: "admin", name: "Test Admin" },
} as const;
type Who = keyof typeof PEOPLE | "anonymous";

const LOGO = { slug: "logo-design", name: "Logo Design" };
const PHOTO = { slug: "photography", name: "Photography" };

beforeAll(async () => {
  t = await createTestDatabase();
  await createCategory(t.db, { ...LOGO, position: 1 });
  await createCategory(t.db, { ...PHOTO, position: 2 });
  for (const [key, { role, name }] of Object.entries(PEOPLE)) {
    ids[key] = (await createUser(t.db, { role, name, username: `test_${key}`, email: `${key}@example.ug` })).id;
    tokens[key] = await createSession(t.db, ids[key]!);
  }
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-gig-routes-"));
  png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#0a0" } })
    .png()
    .toBuffer();
  const env = { DATABASE_URL: t.url, QUEUE_PREFIX: queuePrefix, UPLOAD_DIR: uploadDir };
  server = await startTestServer({ ...env, DEV_OUTBOX: "1" });
  // The worker's part: the effects the gig operations leave for after their commit (image files deleted).
  effects = startEffects(parseEnv({ ...process.env, ...env }), { db: t.db, pollMs: 50 });
});
afterAll(async () => {
  await server?.stop();
  await effects?.close();
  // The gig_published conversions the effects queued for analytics, under this file's own prefix.
  const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  const keys = await redis.keys(`${queuePrefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------------------
// Helpers

type Body = Record<string, string> | FormData;

/**
 * One request to the test server on the main host, as a visitor. A plain object is sent urlencoded, a
 * FormData as multipart (encoded by `new Response(formData)`, as a browser would). Mutations carry our Origin.
 */
async function request(
  urlPath: string,
  {
    who = "anonymous",
    method,
    body,
    cookie,
    raw,
  }: { who?: Who; method?: string; body?: Body; cookie?: string; raw?: { body: string; contentType: string } } = {},
): Promise<Response> {
  method ??= body || raw ? "POST" : "GET";
  const headers: Record<string, string> = { Host: new URL(server.baseUrl).host };
  const cookies = [who !== "anonymous" ? `soko_session=${tokens[who]}` : null, cookie ?? null].filter(Boolean);
  if (cookies.length) headers.Cookie = cookies.join("; ");
  if (method !== "GET") headers.Origin = server.baseUrl;
  let payload: Buffer | undefined;
  if (body instanceof FormData) {
    const encoded = new Response(body);
    payload = Buffer.from(await encoded.arrayBuffer());
    headers["Content-Type"] = encoded.headers.get("content-type")!;
  } else if (body) {
    payload = Buffer.from(new URLSearchParams(body).toString());
    headers["Content-Type"] = "application/x-www-form-urlencoded";
  } else if (raw) {
    payload = Buffer.from(raw.body);
    headers["Content-Type"] = raw.contentType;
  }
  if (payload) headers["Content-Length"] = String(payload.length);
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = http.request({ host: "127.0.0.1", port: server.port, path: urlPath, method, headers, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        resolve(new Response(res.statusCode === 204 || res.statusCode === 304 ? null : Buffer.concat(chunks), { status: res.statusCode, headers: h }));
      });
      res.on("error", reject);
    });
    // A server may answer (413) before it has read a large body and close the connection: that is an answer.
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    req.end(payload);
  });
}

/** Where a redirect leads (path and query), or null when the response is not a redirect. */
function location(res: Response) {
  if (res.status < 300 || res.status >= 400) return null;
  const url = new URL(res.headers.get("location")!, "http://x");
  return `${url.pathname}${url.search}`;
}

const login = (to: string) => `/login?redirectTo=${encodeURIComponent(to)}`;

/**
 * The page without its scripts: what a person reads. Loader and action data are streamed inside <script>
 * for hydration, so a message can be in the document without being shown anywhere.
 */
const visible = (html: string) => decode(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""));

const escapeRe = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The messages shown beside a field of the gig form: the list with id "<name>-error". */
function fieldErrors(html: string, name: string): string[] {
  const list = new RegExp(`<ul id="${escapeRe(name)}-error"[^>]*>(.*?)</ul>`, "s").exec(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, ""));
  if (!list) return [];
  return [...list[1]!.matchAll(/<li>(.*?)<\/li>/gs)].map((m) => decode(m[1]!));
}

/** Every message shown beside any field of the form, for a readable failure. */
function allFieldErrors(html: string): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const m of html.matchAll(/<ul id="([^"]+)-error"[^>]*>(.*?)<\/ul>/gs)) {
    out[m[1]!] = [...m[2]!.matchAll(/<li>(.*?)<\/li>/gs)].map((x) => decode(x[1]!));
  }
  return out;
}

/** Whether the control of a field says it is invalid and points at its message. */
function markedInvalid(html: string, name: string) {
  const tag = new RegExp(`<(?:input|select|textarea)[^>]*name="${escapeRe(name)}"[^>]*>`).exec(html)?.[0] ?? "";
  return tag.includes('aria-invalid="true"') && tag.includes(`aria-describedby="${name}-error"`);
}

/** The values of the hidden inputs of one list, in order (the tag and image lists: `tags[0]`, `tags[1]`…). */
function hiddenValues(html: string, name: string): string[] {
  return [...html.matchAll(/<input[^>]*>/g)]
    .map((m) => m[0])
    .filter((tag) => tag.includes('type="hidden"') && new RegExp(`name="${escapeRe(name)}(\\[\\d+\\])?"`).test(tag))
    .map((tag) => decode(/value="([^"]*)"/.exec(tag)?.[1] ?? ""));
}

/** What the button named `label` (its text or aria-label) sends, as a browser without JavaScript posts it. */
function buttonOf(html: string, label: string): Record<string, string> {
  const page = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "").replace(/<!-- -->/g, "");
  const found = [...page.matchAll(/<button\b([^>]*)>(.*?)<\/button>/gs)].find(
    ([, attributes, text]) => attributes!.includes(`aria-label="${label}"`) || decode(text!).trim() === label,
  );
  if (!found) throw new Error(`no button named ${label}`);
  const attribute = (name: string) => decode(new RegExp(`${name}="([^"]*)"`).exec(found[1]!)![1]!);
  return { [attribute("name")]: attribute("value") };
}

/** Conform's list buttons, as the gig form renders them. */
const ADD_TAG = { __intent__: JSON.stringify({ type: "insert", payload: { name: "tags" } }) };
const removeFrom = (name: "tags" | "images", index: number) => ({ __intent__: JSON.stringify({ type: "remove", payload: { name, index } }) });

type Counts = { gigs: number; gig_packages: number; gig_images: number; uploads: number };
async function counts(): Promise<Counts> {
  const tables = ["gigs", "gig_packages", "gig_images", "uploads"] as const;
  const values = await Promise.all(tables.map(async (tb) => Number((await t.db(tb).count<{ c: string }[]>({ c: "*" }).first())?.c)));
  return Object.fromEntries(tables.map((tb, i) => [tb, values[i]])) as Counts;
}

const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).sort() : []);

type Fields = Record<string, string | string[] | undefined>;
type Upload = { name: string; type: string; data: Buffer };

/** The gig form as a browser sends it (multipart); `undefined` leaves a field out, an array repeats it. */
function gigForm(fields: Fields, uploads: Upload[] = []) {
  const fd = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) fd.append(name, v);
  }
  for (const u of uploads) fd.append("upload", new Blob([new Uint8Array(u.data)], { type: u.type }), u.name);
  return fd;
}

/** A form that publishes as it stands. */
const VALID: Fields = {
  title: "I will design a modern logo for your business",
  category: LOGO.slug,
  description: "Three logo concepts, your colours, and the files you need for print and the web.",
  "basic.name": "Starter",
  "basic.price": "75000",
  "basic.delivery": "3",
  "basic.revisions": "2",
  intent: "publish",
};

/** The newest gig of a seller, as stored. */
async function newestGig(sellerId: number) {
  return t.db("gigs").where({ seller_id: sellerId }).orderBy("id", "desc").first();
}

/** Publishes a gig through the form and returns its id (and the key of its image, when one was uploaded). */
async function publishGig(who: "freelancer" | "other", fields: Fields, { image = false } = {}) {
  const res = await request("/gig/create", { who, body: gigForm({ ...VALID, ...fields }, image ? [{ name: "cover.png", type: "image/png", data: png }] : []) });
  const html = await res.text();
  if (location(res) !== `/dashboard?gig=${fields.intent === "draft" ? "draft" : "published"}`) {
    throw new Error(`could not save the gig: ${res.status} ${JSON.stringify(allFieldErrors(html))}`);
  }
  const gig = await newestGig(ids[who]!);
  const imageRow = await t.db("gig_images").where({ gig_id: gig.id }).first("storage_key");
  return { id: Number(gig.id), imageKey: (imageRow?.storage_key as string | undefined) ?? null };
}

const gigLink = (id: number) => `href="/gig/${id}"`;

// ---------------------------------------------------------------------------------------------------------

describe("POST /gig/create refuses bad input, says why beside the field, and stores nothing", () => {
  const cases: { name: string; fields: Fields; field: string; message: string }[] = [
    {
      name: 'a price with cents ("12.5")',
      fields: { "basic.price": "12.5" },
      field: "basic.price",
      message: "UGX has no cents: enter a whole number of shillings",
    },
    { name: 'a negative price ("-5")', fields: { "basic.price": "-5" }, field: "basic.price", message: "The price must be more than zero" },
    { name: 'a zero price ("0")', fields: { "basic.price": "0" }, field: "basic.price", message: "The price must be more than zero" },
    {
      name: 'a price over the maximum ("100000001")',
      fields: { "basic.price": "100000001" },
      field: "basic.price",
      message: "The price can be at most UGX 100,000,000",
    },
    {
      name: 'a price that is not a number ("abc")',
      fields: { "basic.price": "abc" },
      field: "basic.price",
      message: "Enter the price in whole shillings, such as 75000",
    },
    {
      name: "a Basic delivery of 2 days (not offered)",
      fields: { "basic.delivery": "2" },
      field: "basic.delivery",
      message: "Choose 1, 3, 7, 14 days for Basic",
    },
    {
      name: "a Standard delivery of 1 day (not offered)",
      fields: { "standard.price": "150000", "standard.delivery": "1" },
      field: "standard.delivery",
      message: "Choose 3, 7, 14, 21 days for Standard",
    },
    { name: "an 81-character title", fields: { title: "x".repeat(81) }, field: "title", message: "A title can have at most 80 characters" },
    { name: 'an unknown category ("nope")', fields: { category: "nope" }, field: "category", message: "Choose a category from the list" },
    { name: "30 tags", fields: { tags: Array.from({ length: 30 }, (_, i) => `tag${i}`) }, field: "tags", message: "A gig can have at most 10 tags" },
  ];
  for (const c of cases) {
    it(`refuses ${c.name}`, async () => {
      const before = await counts();
      const res = await request("/gig/create", { who: "freelancer", body: gigForm({ ...VALID, ...c.fields }) });
      const html = await res.text();
      expect(res.status).toBe(400);
      expect(fieldErrors(html, c.field)).toEqual([c.message]);
      // The control is marked invalid and tied to its message (the tag list has no control of its own).
      if (c.field !== "tags") expect(markedInvalid(html, c.field)).toBe(true);
      expect(await counts()).toEqual(before);
    });
  }

  it("shows back the price as typed after refusing it", async () => {
    const html = await (await request("/gig/create", { who: "freelancer", body: gigForm({ ...VALID, "basic.price": "12.5" }) })).text();
    expect(html).toMatch(/<input id="basic-price" name="basic.price"[^>]*value="12.5"/);
    expect(html).toContain(`value="${VALID.title}"`);
  });

  // Zod names the path ["tags", 1]; the form shows it beside the tag list, where the seller looks.
  it("refuses a 200-character tag and says so beside the tags", async () => {
    const before = await counts();
    const res = await request("/gig/create", { who: "freelancer", body: gigForm({ ...VALID, tags: ["logo", "y".repeat(200)] }) });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(await counts()).toEqual(before);
    expect(fieldErrors(html, "tags")).toEqual(["Each tag can have at most 30 characters"]);
  });

  it("refuses to add a 31-character tag (no-JS Add tag)", async () => {
    const before = await counts();
    const res = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ ...VALID, intent: undefined, tags: ["logo"], newTag: "z".repeat(31), ...ADD_TAG }),
    });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(fieldErrors(html, "newTag")).toEqual(["Each tag can have at most 30 characters"]);
    expect(hiddenValues(html, "tags")).toEqual(["logo"]);
    expect(await counts()).toEqual(before);
  });

  it("refuses a text file named logo.jpg: nothing in uploads, no file written", async () => {
    const before = await counts();
    const files = filesIn(uploadDir);
    const fake = { name: "logo.jpg", type: "image/jpeg", data: Buffer.from("this is not an image, only text pretending to be one\n".repeat(20)) };
    const res = await request("/gig/create", { who: "freelancer", body: gigForm(VALID, [fake]) });
    const html = await res.text();
    expect(res.status).toBe(400);
    const messages = fieldErrors(html, "upload");
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("Upload a JPEG, PNG or WebP image");
    expect(messages[0]).toContain("logo.jpg");
    expect(await counts()).toEqual(before);
    expect(filesIn(uploadDir)).toEqual(files);
  });

  it("refuses a 6 MB image with 413, keeping what was typed: nothing in uploads, no file written", async () => {
    const big = await sharp({ create: { width: 1500, height: 1400, channels: 3, background: "#000", noise: { type: "gaussian", mean: 128, sigma: 40 } } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(6_000_000);
    const before = await counts();
    const files = filesIn(uploadDir);
    const res = await request("/gig/create", { who: "freelancer", body: gigForm(VALID, [{ name: "huge.png", type: "image/png", data: big }]) });
    const html = await res.text();
    expect(res.status).toBe(413);
    const messages = fieldErrors(html, "upload");
    expect(messages).toHaveLength(1);
    expect(messages[0]).toContain("huge.png: Images can be at most 5 MB");
    // The seller does not type the gig again.
    expect(html).toContain(`value="${VALID.title}"`);
    expect(html).toMatch(/<input id="basic-price" name="basic.price"[^>]*value="75000"/);
    expect(await counts()).toEqual(before);
    expect(filesIn(uploadDir)).toEqual(files);
  });

  it("answers a multipart body it cannot read with 400, storing nothing", async () => {
    const before = await counts();
    const res = await request("/gig/create", {
      who: "freelancer",
      raw: { body: '--x\r\nContent-Disposition: form-data; name="title"\r\n\r\nhalf a form', contentType: "multipart/form-data; boundary=x" },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("This form could not be read");
    expect(await counts()).toEqual(before);
  });

  it("refuses another member's upload as a gig image, says so, and does not show it back", async () => {
    const key = randomUUID();
    await t.db("uploads").insert({ storage_key: key, owner_id: ids.other });
    const before = await counts();
    const res = await request("/gig/create", { who: "freelancer", body: gigForm({ ...VALID, images: key }) });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(await counts()).toEqual(before);
    // Shown to the seller, not merely present in the data streamed for hydration.
    expect(visible(html)).toContain("One of the images is not yours to use");
    expect(html).not.toContain(key);
    expect(await t.db("gig_images").where({ storage_key: key }).first()).toBeUndefined();
  });

  it("keeps HTML and <script> in a description as text: stored as typed, shown escaped to the owner", async () => {
    const description = 'Hello <b>bold</b> <img src=x onerror="alert(2)"><script>alert(1)</script>';
    const res = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Markup test gig", category: LOGO.slug, description, intent: "draft" }),
    });
    await res.arrayBuffer();
    expect(location(res)).toBe("/dashboard?gig=draft");
    const gig = await newestGig(ids.freelancer!);
    expect(gig.title).toBe("Markup test gig");
    expect(gig.description).toBe(description);

    const page = await request(`/gig/${gig.id}`, { who: "freelancer" });
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;b&gt;bold&lt;/b&gt;");
    expect(html).not.toContain("<script>alert");
    expect(html).not.toContain("<b>bold</b>");
    expect(html).not.toMatch(/<img src="?x"? onerror/);
  });
});

describe("saving gigs", () => {
  it("saves a draft with only a title and a category, visible to its owner alone", async () => {
    const before = await counts();
    const res = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Draft: brand guidelines booklet", category: LOGO.slug, intent: "draft" }),
    });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(location(res)).toBe("/dashboard?gig=draft");
    const gig = await newestGig(ids.freelancer!);
    expect(gig).toMatchObject({ title: "Draft: brand guidelines booklet", status: "draft", starting_price_ugx: null, description: "" });
    expect(await counts()).toEqual({ ...before, gigs: before.gigs + 1 });

    const anonymous = await request(`/gig/${gig.id}`);
    await anonymous.arrayBuffer();
    expect(anonymous.status).toBe(404);
    const otherSeller = await request(`/gig/${gig.id}`, { who: "other" });
    await otherSeller.arrayBuffer();
    expect(otherSeller.status).toBe(404);
    const owner = await request(`/gig/${gig.id}`, { who: "freelancer" });
    const html = await owner.text();
    expect(owner.status).toBe(200);
    expect(visible(html)).toContain("This is a draft");
    expect(visible(html)).toContain("Draft: brand guidelines booklet");
  });

  it("refuses to publish with only a title and a category, naming what is missing", async () => {
    const before = await counts();
    const res = await request("/gig/create", { who: "freelancer", body: gigForm({ title: "Not ready yet", category: LOGO.slug, intent: "publish" }) });
    const html = await res.text();
    expect(res.status).toBe(400);
    expect(fieldErrors(html, "description")).toEqual(["Describe what the buyer gets before you publish"]);
    expect(fieldErrors(html, "basic.price")).toEqual(["Enter the Basic price in UGX"]);
    expect(fieldErrors(html, "basic.delivery")).toEqual(["Choose the Basic delivery time"]);
    expect(await counts()).toEqual(before);
  });

  it("publishes with a price typed with commas and an uploaded PNG; the gig is served, browsable and searchable", async () => {
    const before = await counts();
    const files = filesIn(uploadDir);
    const title = "Kampala wedding photography with edited albums";
    const res = await request("/gig/create", {
      who: "freelancer",
      body: gigForm(
        { ...VALID, title, category: PHOTO.slug, description: "Full day coverage in and around Kampala.", "basic.price": "75,000", "basic.delivery": "3" },
        [{ name: "cover.png", type: "image/png", data: png }],
      ),
    });
    const body = await res.text();
    expect(res.status, JSON.stringify(allFieldErrors(body))).toBe(302);
    expect(location(res)).toBe("/dashboard?gig=published");

    const gig = await newestGig(ids.freelancer!);
    expect(gig).toMatchObject({ title, status: "published" });
    expect(Number(gig.starting_price_ugx)).toBe(75000);
    expect(gig.fastest_delivery_days).toBe(3);
    expect(gig.published_at).not.toBeNull();
    const packages = await t.db("gig_packages").where({ gig_id: gig.id });
    expect(packages.map((p) => ({ tier: p.tier, price: Number(p.price_ugx), days: p.delivery_days }))).toEqual([{ tier: "basic", price: 75000, days: 3 }]);
    const images = await t.db("gig_images").where({ gig_id: gig.id });
    expect(images).toHaveLength(1);
    const key = images[0].storage_key as string;
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(await t.db("uploads").where({ storage_key: key }).first()).toMatchObject({ owner_id: ids.freelancer });
    expect(await counts()).toEqual({
      gigs: before.gigs + 1,
      gig_packages: before.gig_packages + 1,
      gig_images: before.gig_images + 1,
      uploads: before.uploads + 1,
    });
    expect(filesIn(uploadDir)).toEqual([...files, `${key}-large.webp`, `${key}-small.webp`, `${key}-thumb.webp`].sort());

    const thumb = await request(`/media/${key}-thumb.webp`);
    const bytes = Buffer.from(await thumb.arrayBuffer());
    expect(thumb.status).toBe(200);
    expect(thumb.headers.get("content-type")).toBe("image/webp");
    expect((await sharp(bytes).metadata()).format).toBe("webp");

    // In its category, not in another one.
    const browse = await request(`/browse?category=${PHOTO.slug}`);
    const browseHtml = await browse.text();
    expect(browse.status).toBe(200);
    expect(browseHtml).toContain(gigLink(gig.id));
    expect(visible(browseHtml)).toContain("UGX 75,000");
    const elsewhere = await (await request(`/browse?category=${LOGO.slug}`)).text();
    expect(elsewhere).not.toContain(gigLink(gig.id));

    // Found with a misspelt word of its title ("photograpy" → "photography").
    const search = await request("/search?q=photograpy");
    const searchHtml = await search.text();
    expect(search.status).toBe(200);
    expect(searchHtml).toContain(gigLink(gig.id));
    expect(visible(searchHtml)).toContain("Showing results for “photography”");

    // The anonymous gig page shows it with its image.
    const page = await request(`/gig/${gig.id}`);
    const pageHtml = await page.text();
    expect(page.status).toBe(200);
    expect(pageHtml).toContain(`/media/${key}-large.webp`);
  });

  it("adds and removes tags without JavaScript, storing nothing", async () => {
    const before = await counts();
    const add = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Tags", category: LOGO.slug, tags: ["a"], newTag: "b", ...ADD_TAG }),
    });
    const addHtml = await add.text();
    expect(add.status).toBe(200);
    expect(hiddenValues(addHtml, "tags")).toEqual(["a", "b"]);
    expect(buttonOf(addHtml, "Remove tag b")).toEqual(removeFrom("tags", 1));
    expect(allFieldErrors(addHtml)).toEqual({});
    // What was typed elsewhere comes back.
    expect(addHtml).toMatch(/<input id="title" name="title"[^>]*value="Tags"/);

    const remove = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Tags", category: LOGO.slug, "tags[0]": "a", "tags[1]": "b", ...removeFrom("tags", 0) }),
    });
    const removeHtml = await remove.text();
    expect(remove.status).toBe(200);
    expect(hiddenValues(removeHtml, "tags")).toEqual(["b"]);
    expect(await counts()).toEqual(before);
  });

  it("refuses a list button it does not know (400) and ignores fields posing as list items, storing nothing", async () => {
    const before = await counts();
    for (const __intent__ of [
      "{not json",
      JSON.stringify({ type: "reorder", payload: { name: "tags", from: 0, to: 1 } }),
      JSON.stringify({ type: "remove", payload: { name: "title", index: 0 } }),
    ]) {
      const res = await request("/gig/create", { who: "freelancer", body: gigForm({ ...VALID, tags: ["a", "b"], __intent__ }) });
      const html = await res.text();
      expect(res.status, __intent__).toBe(400);
      expect(visible(html)).toContain("Choose Save as Draft or Publish Gig");
      expect(hiddenValues(html, "tags")).toEqual(["a", "b"]);
    }
    const odd = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Odd", "tags[0].x": "y", "tags[0]": "a", "images[0].y": "z", ...removeFrom("tags", 5) }),
    });
    const html = await odd.text();
    expect(odd.status).toBe(200);
    expect(hiddenValues(html, "tags")).toEqual(["a"]);
    expect(hiddenValues(html, "images")).toEqual([]);
    expect(await counts()).toEqual(before);
  });

  it("takes a new image off the form without JavaScript: the upload is forgotten and its files deleted, nothing saved", async () => {
    // The image goes up with the first round trip (here Add tag with nothing typed), as a seller's upload.
    const first = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Gallery draft", ...ADD_TAG }, [{ name: "cover.png", type: "image/png", data: png }]),
    });
    const firstHtml = await first.text();
    expect(first.status).toBe(200);
    const [key] = hiddenValues(firstHtml, "images");
    expect(key).toMatch(/^[0-9a-f-]{36}$/);
    expect(await t.db("uploads").where({ storage_key: key }).first("owner_id")).toEqual({ owner_id: ids.freelancer });
    expect(buttonOf(firstHtml, "Remove image 1")).toEqual(removeFrom("images", 0));
    const before = await counts();

    const removed = await request("/gig/create", {
      who: "freelancer",
      body: gigForm({ title: "Gallery draft", "images[0]": key!, ...removeFrom("images", 0) }),
    });
    const html = await removed.text();
    expect(removed.status).toBe(200);
    expect(hiddenValues(html, "images")).toEqual([]);
    expect(visible(html)).not.toContain("Gallery image 1");
    expect(html).toMatch(/<input id="title" name="title"[^>]*value="Gallery draft"/);
    expect(await t.db("uploads").where({ storage_key: key }).first()).toBeUndefined();
    expect(await counts()).toEqual({ ...before, uploads: before.uploads - 1 });
    await expect.poll(() => filesIn(uploadDir).filter((f) => f.startsWith(key!)), { timeout: 10_000 }).toEqual([]);
  });

  it("keeps a gig's own image until the gig is saved without it, then deletes it", async () => {
    const { id, imageKey } = await publishGig("freelancer", { title: "Gig whose cover is replaced" }, { image: true });
    const editor = await (await request(`/gig/${id}/edit`, { who: "freelancer" })).text();
    expect(hiddenValues(editor, "images")).toEqual([imageKey]);
    const fields = { ...VALID, intent: undefined, title: "Gig whose cover is replaced", "images[0]": imageKey! };

    const removed = await request(`/gig/${id}/edit`, { who: "freelancer", body: gigForm({ ...fields, ...removeFrom("images", 0) }) });
    const html = await removed.text();
    expect(removed.status).toBe(200);
    expect(hiddenValues(html, "images")).toEqual([]);
    // Not saved yet: the gig still shows it.
    expect(await t.db("gig_images").where({ gig_id: id }).pluck("storage_key")).toEqual([imageKey]);
    expect(filesIn(uploadDir)).toContain(`${imageKey}-thumb.webp`);

    const saved = await request(`/gig/${id}/edit`, { who: "freelancer", body: gigForm({ ...fields, "images[0]": undefined, intent: "publish" }) });
    await saved.arrayBuffer();
    expect(location(saved)).toBe("/dashboard?gig=published");
    expect(await t.db("gig_images").where({ gig_id: id })).toEqual([]);
    expect(await t.db("uploads").where({ storage_key: imageKey }).first()).toBeUndefined();
    await expect.poll(() => filesIn(uploadDir).filter((f) => f.startsWith(imageKey!)), { timeout: 10_000 }).toEqual([]);
  });
});

describe("who may create and manage gigs", () => {
  it("sends an anonymous visitor to sign in, for GET and POST", async () => {
    const get = await request("/gig/create");
    await get.arrayBuffer();
    expect(get.status).toBe(302);
    expect(location(get)).toBe(login("/gig/create"));
    const before = await counts();
    const post = await request("/gig/create", { body: gigForm(VALID) });
    await post.arrayBuffer();
    expect(post.status).toBe(302);
    expect(location(post)).toBe(login("/gig/create"));
    expect(await counts()).toEqual(before);
  });

  it("offers a client to become a seller, and refuses their gig form", async () => {
    const res = await request("/gig/create", { who: "client" });
    const html = await res.text();
    expect(res.status).toBe(200);
    // The button (the footer links "Become a seller" on every page, so the text alone proves nothing).
    expect(html).toMatch(/<button[^>]*name="intent"[^>]*value="become-seller"[^>]*>Become a seller<\/button>/);
    expect(visible(html)).toContain("Start selling on Soko");
    expect(html).not.toContain('name="title"');

    const before = await counts();
    const post = await request("/gig/create", { who: "client", body: gigForm(VALID) });
    await post.arrayBuffer();
    expect(post.status).toBe(403);
    expect(await counts()).toEqual(before);
    expect((await t.db("users").where({ id: ids.client }).first("role")).role).toBe("client");
  });

  it("makes a client a seller with intent=become-seller", async () => {
    const res = await request("/gig/create", { who: "convert", body: { intent: "become-seller" } });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(location(res)).toBe("/gig/create");
    expect((await t.db("users").where({ id: ids.convert }).first("role")).role).toBe("freelancer");
    const form = await (await request("/gig/create", { who: "convert" })).text();
    expect(visible(form)).toContain("Create a gig");
    expect(form).toContain('name="title"');
    expect(form).not.toContain('value="become-seller"');
  });

  it("refuses an admin (403), GET and POST", async () => {
    const get = await request("/gig/create", { who: "admin" });
    await get.arrayBuffer();
    expect(get.status).toBe(403);
    const before = await counts();
    const post = await request("/gig/create", { who: "admin", body: gigForm(VALID) });
    await post.arrayBuffer();
    expect(post.status).toBe(403);
    expect(await counts()).toEqual(before);
  });

  describe("someone else's gig", () => {
    let gigId: number;
    beforeAll(async () => {
      ({ id: gigId } = await publishGig("freelancer", { title: "Owner only: logo refresh" }));
    });

    it("is a 404 to another seller on GET and on every POST, and nothing changes", async () => {
      const snapshot = async () => ({
        gig: await t.db("gigs").where({ id: gigId }).first("title", "status", "description", "starting_price_ugx"),
        packages: await t.db("gig_packages").where({ gig_id: gigId }).select("tier", "price_ugx", "delivery_days"),
      });
      const before = await snapshot();
      const counted = await counts();
      expect(before.gig?.status).toBe("published");

      const get = await request(`/gig/${gigId}/edit`, { who: "other" });
      expect(get.status).toBe(404);
      expect(await get.text()).not.toContain("Owner only: logo refresh");

      const edit = await request(`/gig/${gigId}/edit`, { who: "other", body: gigForm({ ...VALID, title: "Hijacked", "basic.price": "1000" }) });
      await edit.arrayBuffer();
      expect(edit.status).toBe(404);
      for (const intent of ["pause", "delete", "delete-confirmed"]) {
        const res = await request(`/gig/${gigId}/edit`, { who: "other", body: { intent } });
        await res.arrayBuffer();
        expect(res.status, intent).toBe(404);
      }
      expect(await snapshot()).toEqual(before);
      expect(await counts()).toEqual(counted);

      // The owner, by contrast, gets the editor.
      const own = await request(`/gig/${gigId}/edit`, { who: "freelancer" });
      expect(own.status).toBe(200);
      expect(await own.text()).toContain('value="Owner only: logo refresh"');
    });

    it("is a 404 for an id that is not a gig", async () => {
      for (const id of ["999999", "abc", "-1"]) {
        const res = await request(`/gig/${id}/edit`, { who: "freelancer" });
        await res.arrayBuffer();
        expect(res.status, id).toBe(404);
      }
    });
  });

  it("lets the owner pause and resume a gig: paused, it leaves the catalog and its page", async () => {
    const { id } = await publishGig("freelancer", { title: "Pausable poster design", category: LOGO.slug });
    const inBrowse = async () => (await (await request(`/browse?category=${LOGO.slug}`)).text()).includes(gigLink(id));
    expect(await inBrowse()).toBe(true);

    const pause = await request(`/gig/${id}/edit`, { who: "freelancer", body: { intent: "pause" } });
    await pause.arrayBuffer();
    expect(pause.status).toBe(302);
    expect(location(pause)).toBe(`/gig/${id}/edit`);
    expect((await t.db("gigs").where({ id }).first("status")).status).toBe("paused");
    expect(await inBrowse()).toBe(false);
    const hidden = await request(`/gig/${id}`);
    await hidden.arrayBuffer();
    expect(hidden.status).toBe(404);
    const ownerView = await request(`/gig/${id}`, { who: "freelancer" });
    expect(ownerView.status).toBe(200);
    expect(visible(await ownerView.text())).toContain("This gig is paused");

    // Pausing again is refused with a reason.
    const again = await request(`/gig/${id}/edit`, { who: "freelancer", body: { intent: "pause" } });
    expect(again.status).toBe(409);
    expect(visible(await again.text())).toContain("Only a published gig can be paused.");

    const resume = await request(`/gig/${id}/edit`, { who: "freelancer", body: { intent: "resume" } });
    await resume.arrayBuffer();
    expect(resume.status).toBe(302);
    expect(location(resume)).toBe(`/gig/${id}/edit`);
    expect((await t.db("gigs").where({ id }).first("status")).status).toBe("published");
    expect(await inBrowse()).toBe(true);
    const shown = await request(`/gig/${id}`);
    await shown.arrayBuffer();
    expect(shown.status).toBe(200);
  });

  it("deletes a gig only after the confirmation step, with its images", async () => {
    const { id, imageKey } = await publishGig("freelancer", { title: "Gig to delete with its cover" }, { image: true });
    expect(imageKey).not.toBeNull();
    expect(filesIn(uploadDir)).toContain(`${imageKey}-thumb.webp`);

    const ask = await request(`/gig/${id}/edit`, { who: "freelancer", body: { intent: "delete" } });
    await ask.arrayBuffer();
    expect(ask.status).toBe(302);
    expect(location(ask)).toBe(`/gig/${id}/edit?delete=confirm`);
    expect(await t.db("gigs").where({ id }).first("id")).toBeDefined();
    const confirm = await (await request(`/gig/${id}/edit?delete=confirm`, { who: "freelancer" })).text();
    expect(visible(confirm)).toContain("Yes, delete this gig");
    expect(confirm).toContain('value="delete-confirmed"');

    const before = await counts();
    const done = await request(`/gig/${id}/edit`, { who: "freelancer", body: { intent: "delete-confirmed" } });
    await done.arrayBuffer();
    expect(done.status).toBe(302);
    expect(location(done)).toBe("/dashboard?gig=deleted");
    expect(await t.db("gigs").where({ id }).first()).toBeUndefined();
    expect(await t.db("gig_packages").where({ gig_id: id })).toEqual([]);
    expect(await t.db("gig_images").where({ gig_id: id })).toEqual([]);
    expect(await t.db("uploads").where({ storage_key: imageKey })).toEqual([]);
    expect(await counts()).toEqual({
      gigs: before.gigs - 1,
      gig_packages: before.gig_packages - 1,
      gig_images: before.gig_images - 1,
      uploads: before.uploads - 1,
    });
    // The files go after the commit, by the worker (an effect of the delete).
    await expect.poll(() => filesIn(uploadDir).filter((f) => f.startsWith(imageKey!)), { timeout: 10_000 }).toEqual([]);
    const media = await request(`/media/${imageKey}-thumb.webp`);
    await media.arrayBuffer();
    expect(media.status).toBe(404);
    const page = await request(`/gig/${id}`, { who: "freelancer" });
    await page.arrayBuffer();
    expect(page.status).toBe(404);
  });
});

describe("the gig page's buttons", () => {
  let gigId: number;
  let cheapId: number;
  let draftId: number;
  beforeAll(async () => {
    ({ id: gigId } = await publishGig("freelancer", { title: "Business card design in two days" }));
    ({ id: cheapId } = await publishGig("other", { title: "Quick social media banner", "basic.price": "10000", "basic.delivery": "1" }));
    ({ id: draftId } = await publishGig("freelancer", { title: "Unfinished draft gig", intent: "draft" }));
  });

  it("sends an anonymous Continue to sign in, then on to the order page", async () => {
    const res = await request(`/gig/${gigId}`, { body: { intent: "continue", package: "basic" } });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(`/login?redirectTo=%2Fgig%2F${gigId}%2Forder%3Fpackage%3Dbasic`);
  });

  it("sends a signed-in client to the order page, which shows price, fee (5%) and total", async () => {
    const res = await request(`/gig/${gigId}`, { who: "client", body: { intent: "continue", package: "basic" } });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(location(res)).toBe(`/gig/${gigId}/order?package=basic`);

    const order = await request(`/gig/${gigId}/order?package=basic`, { who: "client" });
    const html = decode(await order.text());
    expect(order.status).toBe(200);
    expect(visible(html)).toContain("Business card design in two days");
    expect(html).toMatch(/<dt>Price<\/dt><dd>UGX 75,000<\/dd>/);
    expect(html).toMatch(/<dt>Processing fee \(5%, at least UGX 1,000\)<\/dt><dd>UGX 3,750<\/dd>/);
    expect(html).toMatch(/<dt>Total<\/dt><dd><strong>UGX 78,750<\/strong><\/dd>/);
  });

  it("charges the minimum fee of UGX 1,000 on a UGX 10,000 package", async () => {
    const res = await request(`/gig/${cheapId}`, { who: "client", body: { intent: "continue", package: "basic" } });
    await res.arrayBuffer();
    expect(location(res)).toBe(`/gig/${cheapId}/order?package=basic`);
    const order = await request(`/gig/${cheapId}/order?package=basic`, { who: "client" });
    const html = decode(await order.text());
    expect(order.status).toBe(200);
    expect(html).toMatch(/<dt>Price<\/dt><dd>UGX 10,000<\/dd>/);
    expect(html).toMatch(/<dt>Processing fee \(5%, at least UGX 1,000\)<\/dt><dd>UGX 1,000<\/dd>/);
    expect(html).toMatch(/<dt>Total<\/dt><dd><strong>UGX 11,000<\/strong><\/dd>/);
  });

  it("asks an anonymous visitor to sign in before the order page", async () => {
    const res = await request(`/gig/${gigId}/order?package=basic`);
    await res.arrayBuffer();
    expect(location(res)).toBe(login(`/gig/${gigId}/order?package=basic`));
  });

  it("sends Contact Seller to messages with the seller named", async () => {
    const res = await request(`/gig/${gigId}`, { who: "client", body: { intent: "contact" } });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(location(res)).toBe(`/messages?to=test_freelancer&gig=${gigId}`);
    const messages = await request(`/messages?to=test_freelancer&gig=${gigId}`, { who: "client" });
    const html = decode(await messages.text());
    expect(messages.status).toBe(200);
    expect(visible(html)).toContain("Your conversation with Test Freelancer (@test_freelancer)");

    const anonymous = await request(`/gig/${gigId}`, { body: { intent: "contact" } });
    await anonymous.arrayBuffer();
    expect(location(anonymous)).toBe(login(`/messages?to=test_freelancer&gig=${gigId}`));
  });

  it("refuses a package the gig does not have (400)", async () => {
    for (const pkg of ["nonexistent", "premium", ""]) {
      const res = await request(`/gig/${gigId}`, { who: "client", body: { intent: "continue", package: pkg } });
      await res.arrayBuffer();
      expect(res.status, pkg).toBe(400);
    }
    const noIntent = await request(`/gig/${gigId}`, { who: "client", body: { package: "basic" } });
    await noIntent.arrayBuffer();
    expect(noIntent.status).toBe(400);
  });

  it("is a 404 to buttons on a draft, for anyone", async () => {
    for (const who of ["anonymous", "client"] as const) {
      for (const body of [{ intent: "continue", package: "basic" }, { intent: "contact" }] as Record<string, string>[]) {
        const res = await request(`/gig/${draftId}`, { who, body });
        await res.arrayBuffer();
        expect(res.status, `${who} ${body.intent}`).toBe(404);
      }
    }
    const order = await request(`/gig/${draftId}/order?package=basic`, { who: "client" });
    await order.arrayBuffer();
    expect(order.status).toBe(404);
  });

  it("does not send the seller to order their own gig", async () => {
    const res = await request(`/gig/${gigId}`, { who: "freelancer", body: { intent: "continue", package: "basic" } });
    await res.arrayBuffer();
    expect(location(res)).toBe(`/gig/${gigId}`);
  });
});

describe("catalog URLs never break", () => {
  let gigId: number;
  const cursor = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");
  beforeAll(async () => {
    ({ id: gigId } = await publishGig("other", { title: "Catalog fixture: letterhead design", category: LOGO.slug, "basic.price": "75000" }));
  });

  const IGNORED = [
    "/browse?sort=bogus",
    "/browse?sort=",
    "/browse?price=cheap",
    "/browse?price=under-100000x",
    "/browse?rating=9",
    "/browse?rating=-1",
    "/browse?delivery=0",
    "/browse?delivery=999999999999999999999",
    "/browse?category=NOPE!!",
    "/browse?category=%27%3B%20DROP%20TABLE%20gigs%3B--",
    "/browse?sort=a&sort=b&price=x&price=y",
    "/browse?q[]=x&category[]=y",
    "/browse?cursor=garbage",
    "/browse?cursor=%FF%FE",
    `/browse?cursor=${cursor(["x", "y", "z", "w"])}`,
    `/browse?cursor=${cursor({ a: 1 })}`,
    `/browse?cursor=${cursor(["true", "4.5", "3"])}`,
    `/browse?sort=newest&cursor=${cursor(["99999999999999999999999", "1"])}`,
    `/browse?sort=price-low&cursor=${cursor(["1e400", "1"])}`,
    `/browse?cursor=${"A".repeat(5000)}`,
    "/search?q=%00",
    "/search?q=%00%01%1F%7F",
    "/search?q=logo%00design",
    "/search?q=%E2%80%AE%F0%9F%98%80",
    "/search?q=!!!%20%26%20%7C%20(",
    `/search?q=${"a".repeat(10_000)}`,
    `/search?q=${encodeURIComponent("logo ".repeat(2000))}`,
    `/search?q=letterhead&sort=price-high&cursor=${cursor(["abc", "1"])}`,
    `/search?q=letterhead&cursor=${cursor(["1", "2", "3"])}`,
  ];
  for (const url of IGNORED) {
    it(`answers 200 for ${url.length > 90 ? `${url.slice(0, 90)}…` : url}`, async () => {
      const res = await request(url);
      const html = await res.text();
      expect(res.status).toBe(200);
      expect(html).toContain('class="result-count"');
    });
  }

  it("ignores unknown values instead of emptying the results", async () => {
    for (const url of [
      "/browse?sort=bogus",
      "/browse?price=cheap",
      "/browse?rating=9",
      "/browse?delivery=0",
      "/browse?cursor=garbage",
      "/browse?category=NOPE!!",
    ]) {
      expect(await (await request(url)).text(), url).toContain(gigLink(gigId));
    }
    // A well-formed category that does not exist is a filter with no results, not an error.
    const none = await request("/browse?category=nope");
    expect(none.status).toBe(200);
    const html = await none.text();
    expect(html).not.toContain(gigLink(gigId));
    expect(visible(html)).toContain("No results found");
  });

  it("switches an anonymous visitor to USD with a cookie, then shows USD prices", async () => {
    const ugx = await (await request("/browse")).text();
    expect(visible(ugx)).toContain("UGX 75,000");
    expect(ugx).not.toMatch(/USD \d/);

    const res = await request("/currency", { body: { currency: "USD", redirectTo: "/browse" } });
    await res.arrayBuffer();
    expect(res.status).toBe(302);
    expect(location(res)).toBe("/browse");
    const setCookie = res.headers.get("set-cookie") ?? "";
    expect(setCookie).toMatch(/(^|, )soko_currency=USD;/);
    const cookie = setCookie.split(";")[0]!;

    const usd = await (await request("/browse", { cookie })).text();
    expect(visible(usd)).toContain("USD 20.27"); // 75,000 / 3,700
    expect(usd).not.toContain("UGX 75,000");
  });

  it("pages a gig's reviews, newest first, ten to a page, without repeats", async () => {
    const { id } = await publishGig("freelancer", { title: "Reviewed gig: brand kit" });
    const start = Date.parse("2026-01-01T00:00:00Z");
    for (let i = 0; i < 12; i++) {
      await createReview(t.db, { gigId: id, reviewerId: ids.client!, rating: 5, comment: `Review number ${i + 1}`, createdAt: new Date(start + i * 60_000) });
    }
    const shown = (html: string) => [...visible(html).matchAll(/Review number (\d+)/g)].map((m) => Number(m[1]));
    const first = await (await request(`/gig/${id}`)).text();
    expect(shown(first)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3]);
    expect(first).toContain(`href="/gig/${id}?reviews=2#reviews"`);
    const second = await (await request(`/gig/${id}?reviews=2`)).text();
    expect(shown(second)).toEqual([2, 1]);
    expect(second).toContain(`href="/gig/${id}?reviews=1#reviews"`);
    expect(second).not.toContain("?reviews=3");
  });

  it("shows a signed-in member who prefers USD the gig's packages in USD", async () => {
    const { id } = await publishGig("freelancer", { title: "Priced gig: USD check", "basic.price": "370000" });
    expect(visible(await (await request(`/gig/${id}`, { who: "client" })).text())).toContain("UGX 370,000");
    await t.db("users").where({ id: ids.client }).update({ preferred_currency: "USD" });
    try {
      const html = visible(await (await request(`/gig/${id}`, { who: "client" })).text());
      expect(html).toContain("USD 100.00"); // 370,000 / 3,700
      expect(html).not.toContain("UGX 370,000");
    } finally {
      await t.db("users").where({ id: ids.client }).update({ preferred_currency: "UGX" });
    }
  });

  it("refuses an unknown currency (400) and sets no cookie", async () => {
    const res = await request("/currency", { body: { currency: "EUR", redirectTo: "/browse" } });
    await res.arrayBuffer();
    expect(res.status).toBe(400);
    expect(res.headers.get("set-cookie") ?? "").not.toContain("soko_currency");
  });
});
