/**
 * The JSON API's Users calls (ADR 041), against the built server: the token's own profile (read, edited as
 * Settings › Profile edits it, its picture replaced), a member's public profile by id or username (never
 * their email or payout number; suspended, banned, deleted members and admins not found), and the directory
 * of freelancers with its filters and keyset pages. Each answer is checked against the OpenAPI document.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { anonymiseUser } from "~/models/user.server";
import { MAX_STORED_BYTES } from "~/server/files/upload-quota.server";
import { closeRedis } from "~/server/redis.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { apiClient, createAppToken } from "../support/api";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_apiusers_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let server: TestServer;
let api: ReturnType<typeof apiClient>;
let uploadDir: string;
let PNG: Uint8Array<ArrayBuffer>;

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-api-users-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback", UPLOAD_DIR: uploadDir });
  api = apiClient(server.baseUrl);
  PNG = new Uint8Array(
    await sharp({ create: { width: 40, height: 30, channels: 3, background: "#1565c0" } })
      .png()
      .toBuffer(),
  );
});
afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** Each test's calls come from their own address, so the per-address limits of one test never meet another's. */
let address = 0;
const from = () => ({ "X-Forwarded-For": `198.51.100.${++address}` });

async function memberWithToken(options: Parameters<typeof createUser>[1] = {}) {
  const user = await createUser(t.db, options);
  return { user, token: await createAppToken(t.db, user.id) };
}

const filesIn = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir).filter((name) => name.endsWith(".webp")) : []);

function fileForm(name: string, bytes: Uint8Array<ArrayBuffer>, type: string, field = "file") {
  const form = new FormData();
  form.append(field, new File([bytes], name, { type }));
  return form;
}

describe("GET /users/profile", () => {
  it("answers the token's member with their own email and settings", async () => {
    const { user, token } = await memberWithToken({ role: "freelancer", name: "Nakato Sarah", preferredCurrency: "USD" });
    await t
      .db("users")
      .where({ id: user.id })
      .update({ bio: "Logos and flyers.", location: "Kampala", skills: ["Logo design"], languages: ["English"] });
    const answer = await api.call("get", "/users/profile", "/users/profile", { headers: from(), token });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      id: user.id,
      name: "Nakato Sarah",
      username: user.username,
      email: user.email,
      role: "freelancer",
      bio: "Logos and flyers.",
      location: "Kampala",
      skills: ["Logo design"],
      languages: ["English"],
      avatarUrl: null,
      preferredCurrency: "USD",
      timeZone: "EAT",
    });
    expect(Date.parse(answer.body.data.memberSince)).not.toBeNaN();
    expect(JSON.stringify(answer.body)).not.toMatch(/password|mobile/i);
  });

  it("is 401 without a token, and 405 naming each method once for another method", async () => {
    const answer = await api.call("get", "/users/profile", "/users/profile", { headers: from() });
    expect(answer.status).toBe(401);
    expect(answer.body.code).toBe("token.missing");
    const method = await api.send("delete", "/users/profile", { headers: from() });
    expect(method.status).toBe(405);
    expect(method.headers.get("allow")).toBe("GET, PUT");
  });
});

describe("PUT /users/profile", () => {
  it("saves the fields sent, keeps the others, and answers the profile", async () => {
    const { user, token } = await memberWithToken({ name: "Okello James" });
    await t.db("users").where({ id: user.id }).update({ bio: "Kept as it is." });
    const answer = await api.call("put", "/users/profile", "/users/profile", {
      headers: from(),
      token,
      body: { name: "  Okello J. Peter ", skills: ["Video editing", "video editing", " ", "Subtitles, Captions"], location: "Gulu" },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toMatchObject({
      name: "Okello J. Peter",
      bio: "Kept as it is.",
      location: "Gulu",
      skills: ["Video editing", "video editing", "Subtitles", "Captions"],
    });
    const row = await t.db("users").where({ id: user.id }).first("name", "bio", "location", "skills");
    expect(row).toEqual({
      name: "Okello J. Peter",
      bio: "Kept as it is.",
      location: "Gulu",
      skills: ["Video editing", "video editing", "Subtitles", "Captions"],
    });
    expect(Number((await t.db("activity").where({ user_id: user.id, kind: "profile_updated" }).count({ n: "*" }).first())?.n)).toBe(1);
  });

  it("refuses unknown fields and bad values beside each field, and writes nothing", async () => {
    const { user, token } = await memberWithToken({ name: "Auma Grace" });
    const answer = await api.call("put", "/users/profile", "/users/profile", {
      headers: from(),
      token,
      body: { name: "A", skills: Array.from({ length: 21 }, (_, i) => `skill ${i}`), bio: "x".repeat(2001), email: "new@example.ug" },
    });
    expect(answer.status).toBe(400);
    expect(answer.body.code).toBe("request.invalid");
    expect(Object.keys(answer.body.issues).sort()).toEqual(["bio", "form", "name", "skills"]);
    expect(answer.body.issues.form[0].message).toMatch(/email/);
    const empty = await api.call("put", "/users/profile", "/users/profile", { headers: from(), token, body: {} });
    expect(empty.status).toBe(400);
    expect(empty.body.issues.form[0].message).toMatch(/at least one/);
    const row = await t.db("users").where({ id: user.id }).first("name", "bio", "skills", "email");
    expect(row).toEqual({ name: "Auma Grace", bio: "", skills: [], email: user.email });
  });
});

describe("a seller's profile fields (ADR 049)", () => {
  it("sets and clears the portfolio and years, refuses a portfolio that is not http(s), and the public profile says the response time", async () => {
    const { user, token } = await memberWithToken({ role: "freelancer", name: "Namutebi Ruth" });
    const put = (body: Record<string, unknown>) => api.call("put", "/users/profile", "/users/profile", { headers: from(), token, body });
    const set = await put({ portfolioUrl: "https://dribbble.com/namutebi", yearsExperience: 4 });
    expect(set.status).toBe(200);
    expect(set.body.data).toMatchObject({ portfolioUrl: "https://dribbble.com/namutebi", yearsExperience: 4 });
    const bad = await put({ portfolioUrl: "javascript:alert(1)", yearsExperience: 61 });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.issues).sort()).toEqual(["portfolioUrl", "yearsExperience"]);
    expect(await t.db("users").where({ id: user.id }).first("portfolio_url", "years_experience")).toEqual({
      portfolio_url: "https://dribbble.com/namutebi",
      years_experience: 4,
    });
    // Another field alone keeps them; null clears one.
    expect((await put({ bio: "Brands for shops." })).body.data).toMatchObject({ portfolioUrl: "https://dribbble.com/namutebi", yearsExperience: 4 });
    expect((await put({ yearsExperience: null })).body.data).toMatchObject({ portfolioUrl: "https://dribbble.com/namutebi", yearsExperience: null });

    await t.db("users").where({ id: user.id }).update({ response_time_hours: 3 });
    const shown = await api.call("get", "/users/{id}", `/users/${user.id}`, { headers: from() });
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({
      portfolioUrl: "https://dribbble.com/namutebi",
      yearsExperience: null,
      responseTimeHours: 3,
      responseTime: "hours",
    });
    // Over a day is not said at all.
    await t.db("users").where({ id: user.id }).update({ response_time_hours: 30 });
    const slow = await api.call("get", "/users/{id}", `/users/${user.id}`, { headers: from() });
    expect(slow.body.data).toMatchObject({ responseTimeHours: null, responseTime: null });
  });
});

describe("GET /users/{id}", () => {
  it("shows a member's public profile by id and by username, without their email or payout number", async () => {
    const { token } = await memberWithToken();
    const seller = await createUser(t.db, { role: "freelancer", name: "Mukasa Brian", email: "mukasa.private@example.ug" });
    await t.db("users").where({ id: seller.id }).update({ mobile_money_number: "+256772123456", bio: "Web shops.", rating: 4.5, reviews_count: 8 });
    const byId = await api.call("get", "/users/{id}", `/users/${seller.id}`, { headers: from(), token });
    expect(byId.status).toBe(200);
    expect(byId.body.data).toMatchObject({
      id: seller.id,
      username: seller.username,
      name: "Mukasa Brian",
      role: "freelancer",
      bio: "Web shops.",
      rating: 4.5,
      reviewsCount: 8,
    });
    const byName = await api.call("get", "/users/{id}", `/users/${seller.username.toUpperCase()}`, { headers: from() });
    expect(byName.status).toBe(200);
    expect(byName.body).toEqual(byId.body);
    const text = JSON.stringify(byId.body);
    expect(text).not.toContain("mukasa.private@example.ug");
    expect(text).not.toContain("772123456");
    expect(Object.keys(byId.body.data)).not.toContain("email");
  });

  it("does not find suspended, banned, deleted or admin members, or an unknown one", async () => {
    const suspended = await createUser(t.db, { role: "freelancer", status: "suspended" });
    const banned = await createUser(t.db, { role: "freelancer", status: "banned" });
    const deleted = await createUser(t.db, { role: "freelancer" });
    await anonymiseUser(t.db, deleted.id);
    const admin = await createUser(t.db, { role: "admin" });
    for (const id of [suspended.id, suspended.username, banned.id, deleted.id, `deleted_${deleted.id}`, admin.id, admin.username, 999_999_999, "nobody_here"]) {
      const answer = await api.call("get", "/users/{id}", `/users/${id}`, { headers: from() });
      expect(answer.status, String(id)).toBe(404);
      expect(answer.body.code).toBe("record.not_found");
    }
  });

  it("refuses what is neither an id nor a username beside path.id", async () => {
    const answer = await api.call("get", "/users/{id}", "/users/a%21b", { headers: from() });
    expect(answer.status).toBe(400);
    expect(Object.keys(answer.body.issues)).toEqual(["path.id"]);
  });
});

describe("POST /users/avatar", () => {
  it("replaces the picture through the settings operation and answers its address", async () => {
    const { user, token } = await memberWithToken();
    const before = filesIn(uploadDir).length;
    const answer = await api.call("post", "/users/avatar", "/users/avatar", { headers: from(), token, raw: fileForm("me.png", PNG, "image/png") });
    expect(answer.status).toBe(200);
    const row = await t.db("users").where({ id: user.id }).first("avatar_key", "avatar_size_bytes", "name");
    expect(row.avatar_key).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(row.avatar_size_bytes)).toBeGreaterThan(0);
    expect(row.name).toBe(user.name);
    expect(answer.body.data.avatarUrl).toBe(`/media/${row.avatar_key}-avatar.webp`);
    expect(filesIn(uploadDir)).toHaveLength(before + 1);
    const served = await fetch(`${server.baseUrl}${answer.body.data.avatarUrl}`);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/webp");
  });

  it("refuses a file that is not an image beside `file`, storing nothing", async () => {
    const { user, token } = await memberWithToken();
    const before = filesIn(uploadDir).length;
    const answer = await api.call("post", "/users/avatar", "/users/avatar", {
      headers: from(),
      token,
      raw: fileForm("me.png", new TextEncoder().encode("not an image at all"), "image/png"),
    });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.file[0].code).toBe("image.wrong_type");
    expect((await t.db("users").where({ id: user.id }).first("avatar_key")).avatar_key).toBeNull();
    expect(filesIn(uploadDir)).toHaveLength(before);
  });

  it("refuses an image over 5 MB with 413, a missing file and another field with 400, JSON with 415", async () => {
    const { user, token } = await memberWithToken();
    const big = new Uint8Array(5 * 1024 * 1024 + 10);
    big.set(PNG);
    const tooBig = await api.call("post", "/users/avatar", "/users/avatar", { headers: from(), token, raw: fileForm("huge.png", big, "image/png") });
    expect(tooBig.status).toBe(413);
    expect(tooBig.body.code).toBe("image.too_many_bytes");
    const none = await api.call("post", "/users/avatar", "/users/avatar", { headers: from(), token, raw: new FormData() });
    expect(none.status).toBe(400);
    expect(none.body.issues.file[0].code).toBe("image.empty");
    const other = await api.call("post", "/users/avatar", "/users/avatar", { headers: from(), token, raw: fileForm("me.png", PNG, "image/png", "avatar") });
    expect(other.status).toBe(400);
    expect(Object.keys(other.body.issues)).toEqual(["avatar"]);
    const json = await api.call("post", "/users/avatar", "/users/avatar", { headers: from(), token, body: { file: "x" } });
    expect(json.status).toBe(415);
    expect((await t.db("users").where({ id: user.id }).first("avatar_key")).avatar_key).toBeNull();
  });

  it("refuses a picture past the member's storage cap beside `file` (400), storing nothing", async () => {
    const { user, token } = await memberWithToken();
    await t.db("users").where({ id: user.id }).update({ avatar_key: "00000000-0000-4000-8000-000000000000", avatar_size_bytes: MAX_STORED_BYTES });
    const before = filesIn(uploadDir).length;
    const answer = await api.call("post", "/users/avatar", "/users/avatar", { headers: from(), token, raw: fileForm("me.png", PNG, "image/png") });
    expect(answer.status).toBe(400);
    expect(answer.body.issues.file[0].code).toBe("upload.storage_full");
    expect((await t.db("users").where({ id: user.id }).first("avatar_key")).avatar_key).toBe("00000000-0000-4000-8000-000000000000");
    expect(filesIn(uploadDir)).toHaveLength(before);
  });
});

describe("GET /users/freelancers", () => {
  it("lists active freelancers best rated first in stable keyset pages, without emails", async () => {
    const skill = "Zebra Painting";
    const made = [];
    for (const [i, rating] of [4.9, 4.2, 4.9, 3.0, 5.0].entries()) {
      const u = await createUser(t.db, { role: "freelancer", name: `Painter ${i} Zebra` });
      await t
        .db("users")
        .where({ id: u.id })
        .update({ rating, skills: [skill, "Murals"] });
      made.push({ ...u, rating });
    }
    // Not listed: a client with the skill, a suspended freelancer with it.
    const client = await createUser(t.db, { role: "client" });
    const held = await createUser(t.db, { role: "freelancer", status: "suspended" });
    await t
      .db("users")
      .whereIn("id", [client.id, held.id])
      .update({ skills: [skill], rating: 5 });

    const expected = [...made].sort((a, b) => b.rating - a.rating || a.id - b.id).map((u) => u.id);
    const seen: number[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `?skill=zebra%20painting&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`;
      const answer = await api.call("get", "/users/freelancers", `/users/freelancers${query}`, { headers: from() });
      expect(answer.status).toBe(200);
      expect(answer.body.data.items.length).toBeLessThanOrEqual(2);
      seen.push(...answer.body.data.items.map((i: { id: number }) => i.id));
      const text = JSON.stringify(answer.body);
      for (const u of made) expect(text).not.toContain(u.email);
      cursor = answer.body.data.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(seen).toEqual(expected);
    expect(pages).toBe(3);
  });

  it("filters by category (slug or id), location, lowest rating and level", async () => {
    const kampala = await createUser(t.db, { role: "freelancer", name: "Filter Kampala" });
    const gulu = await createUser(t.db, { role: "freelancer", name: "Filter Gulu" });
    await t
      .db("users")
      .where({ id: kampala.id })
      .update({ location: "Kampala, Uganda", rating: 4.8, level: "top_rated", skills: ["Quokka"] });
    await t
      .db("users")
      .where({ id: gulu.id })
      .update({ location: "Gulu", rating: 3.9, level: "level_1", skills: ["Quokka"] });
    await createGig(t.db, { sellerId: gulu.id, category: "web-development" });
    await createGig(t.db, { sellerId: kampala.id, category: "web-development", status: "draft" });
    const web = await t.db("categories").where({ slug: "web-development" }).first("id");

    const ids = async (query: string) => {
      const answer = await api.call("get", "/users/freelancers", `/users/freelancers?skill=quokka&${query}`, { headers: from() });
      expect(answer.status).toBe(200);
      return answer.body.data.items.map((i: { id: number }) => i.id);
    };
    expect(await ids("category=web-development")).toEqual([gulu.id]);
    expect(await ids(`category=${web.id}`)).toEqual([gulu.id]);
    expect(await ids("category=no-such-category")).toEqual([]);
    expect(await ids("location=kampala")).toEqual([kampala.id]);
    expect(await ids("location=%25")).toEqual([]);
    expect(await ids("rating=4.5")).toEqual([kampala.id]);
    expect(await ids("level=top_rated")).toEqual([kampala.id]);
    expect(await ids("level=level_1")).toEqual([gulu.id]);
    expect(await ids("level=")).toEqual([kampala.id, gulu.id]);
    expect(await ids("")).toEqual([kampala.id, gulu.id]);
  });

  it("takes the /freelancers page's filters and sorts and answers what the page shows, in the same order", async () => {
    const skill = "Parity Weaving";
    const admin = await createUser(t.db, { role: "admin" });
    const made = [];
    for (const [i, [level, rating, vetted, languages]] of (
      [
        ["level_1", 4.9, true, ["Luganda"]],
        ["top_rated", 4.1, true, ["Luganda", "English"]],
        ["top_rated", 4.6, false, ["Luganda"]],
        ["level_2", 5.0, true, ["Kiswahili"]],
        ["new", 3.0, true, ["luganda"]],
      ] as const
    ).entries()) {
      const u = await createUser(t.db, { role: "freelancer", name: `Weaver ${i} Parity` });
      await t
        .db("users")
        .where({ id: u.id })
        .update({ level, rating, skills: [skill], languages, vetted_at: vetted ? new Date() : null, vetted_by: vetted ? admin.id : null });
      made.push(u);
    }
    const query = "skill=parity%20weaving&language=LUGANDA&vetted=1&sort=level";
    const answer = await api.call("get", "/users/freelancers", `/users/freelancers?${query}`, { headers: from() });
    expect(answer.status).toBe(200);
    const names = answer.body.data.items.map((i: { name: string; vetted: boolean }) => [i.name, i.vetted]);
    expect(names).toEqual([
      ["Weaver 1 Parity", true],
      ["Weaver 0 Parity", true],
      ["Weaver 4 Parity", true],
    ]);
    const page = await fetch(`${server.baseUrl}/freelancers?${query}`, { headers: from() });
    expect(page.status).toBe(200);
    const html = await page.text();
    // Each name in the order it first appears (a card names its member again in its heart's label).
    const shown = [...new Set([...html.matchAll(/Weaver \d Parity/g)].map((m) => m[0]))];
    expect(shown).toEqual(names.map(([name]: [string]) => name));

    // A cursor pages only the sort it came from.
    const first = await api.call("get", "/users/freelancers", `/users/freelancers?${query}&limit=1`, { headers: from() });
    const cursor = encodeURIComponent(first.body.data.nextCursor);
    const other = await api.call("get", "/users/freelancers", `/users/freelancers?skill=parity%20weaving&sort=rating&cursor=${cursor}`, { headers: from() });
    expect(other.status).toBe(400);
    expect(Object.keys(other.body.issues)).toEqual(["query.cursor"]);
    const wrongPage = await fetch(`${server.baseUrl}/freelancers?skill=parity%20weaving&sort=active&cursor=${cursor}`, { headers: from() });
    expect(wrongPage.status).toBe(400);
  });

  it("refuses a cursor it did not give beside query.cursor, and a bad limit, rating or level beside theirs", async () => {
    for (const cursor of ["nonsense!", Buffer.from("9.99:1").toString("base64url"), Buffer.from("4.50:abc").toString("base64url")]) {
      const answer = await api.call("get", "/users/freelancers", `/users/freelancers?cursor=${encodeURIComponent(cursor)}`, { headers: from() });
      expect(answer.status, cursor).toBe(400);
      expect(Object.keys(answer.body.issues)).toEqual(["query.cursor"]);
    }
    const bad = await api.call("get", "/users/freelancers", "/users/freelancers?limit=500&rating=six&level=Top%20Rated", { headers: from() });
    expect(bad.status).toBe(400);
    // A level is its code (top_rated), not the words a page shows.
    expect(Object.keys(bad.body.issues).sort()).toEqual(["query.level", "query.limit", "query.rating"]);
  });
});
