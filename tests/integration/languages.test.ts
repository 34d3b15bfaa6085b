/**
 * The language of a page (ADR 047), against the built server: a visitor's from Accept-Language or the
 * switcher's cookie, a member's from their saved preference on any device; the switch (POST /language) with
 * and without a session; and the page cache, which keeps each language's page apart.
 */
process.env.QUEUE_PREFIX = `t_languages_${process.pid}_${Date.now()}`;

import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSourceCatalogues } from "~/i18n/catalog.server";
import { closeRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

const BROWSER = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const words = readSourceCatalogues();
/** What the header's sign-in link says in a language, from its catalogue. */
const signIn = (lang: "en" | "lg" | "sw") => words[lang].common!["common.header.signIn"]!;

let t: TestDatabase;
let server: TestServer;
let member: TestUser;
let token: string;

beforeAll(async () => {
  t = await createTestDatabase();
  member = await createUser(t.db, { role: "client", name: "Grace Nakato" });
  token = await createSession(t.db, member.id);
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: process.env.QUEUE_PREFIX!, PAGE_CACHE: "on" });
});

afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await t?.drop();
});

async function page(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${server.baseUrl}${path}`, { redirect: "manual", headers: { Accept: "text/html", "User-Agent": BROWSER, ...headers } });
  const html = await res.text();
  return { status: res.status, html, lang: /<html lang="([^"]+)" dir="ltr"/.exec(html)?.[1] ?? null, cache: res.headers.get("x-page-cache") };
}

function switchTo(language: string, { cookie, redirectTo = "/help?x=1" }: { cookie?: string; redirectTo?: string } = {}) {
  return fetch(`${server.baseUrl}/language`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.baseUrl, ...(cookie ? { Cookie: cookie } : {}) },
    body: new URLSearchParams({ language, redirectTo }),
  });
}

/** The switch posted from the admin portal's header, on the admin host (reached with a Host header: Node's resolver does not know *.localhost). */
function switchOnAdminHost(language: string, cookie: string): Promise<{ status: number; location?: string; cookie?: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: "/language",
        method: "POST",
        headers: { Host: new URL(server.adminUrl).host, Origin: server.adminUrl, Cookie: cookie, "Content-Type": "application/x-www-form-urlencoded" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, location: res.headers.location, cookie: res.headers["set-cookie"]?.[0]?.split(";")[0] }));
      },
    );
    req.on("error", reject);
    req.end(new URLSearchParams({ language, redirectTo: "/users" }).toString());
  });
}

describe("a visitor's language", () => {
  it("follows Accept-Language, with regional tags, and falls back to English", async () => {
    for (const [header, lang] of [
      ["sw-KE,sw;q=0.9,en;q=0.8", "sw"],
      ["lg-UG", "lg"],
      ["fr-FR,fr;q=0.9", "en"],
      ["", "en"],
    ] as const) {
      const p = await page("/help", header ? { "Accept-Language": header } : {});
      expect(p.status).toBe(200);
      expect(p.lang, header).toBe(lang);
      expect(p.html).toContain(`>${signIn(lang)}<`);
    }
  });

  it("puts the switcher's cookie before Accept-Language", async () => {
    const p = await page("/terms", { "Accept-Language": "sw", Cookie: "soko_lang=lg" });
    expect(p.lang).toBe("lg");
    expect(p.html).toContain(`>${signIn("lg")}<`);
  });

  it("keeps each language's page apart in the page cache", async () => {
    const pages = [];
    for (const lang of ["sw", "en", "lg", "sw", "en", "lg"] as const) pages.push(await page("/privacy", { "Accept-Language": lang }));
    expect(pages.map((p) => p.lang)).toEqual(["sw", "en", "lg", "sw", "en", "lg"]);
    for (const p of pages) expect(p.html).toContain(`>${signIn(p.lang as "en" | "lg" | "sw")}<`);
    // The second round came from the cache, each in its own language.
    expect(pages.slice(3).map((p) => p.cache)).toEqual(["fresh", "fresh", "fresh"]);
  });
});

describe("the language switch", () => {
  it("keeps a visitor's choice in a cookie and goes back to the page", async () => {
    const res = await switchTo("sw");
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/help?x=1");
    expect(res.headers.get("set-cookie")).toMatch(/^soko_lang=sw; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax/);
  });

  it("refuses a language Soko does not speak, and a way back to another site", async () => {
    const bad = await switchTo("fr");
    expect(bad.status).toBe(400);
    expect(bad.headers.get("set-cookie")).toBeNull();
    const away = await switchTo("lg", { redirectTo: "https://evil.example/" });
    expect(away.headers.get("location")).toBe("/");
  });

  it("saves a member's choice, which every device of theirs then follows", async () => {
    const cookie = `soko_session=${token}`;
    const res = await switchTo("lg", { cookie });
    expect(res.status).toBe(302);
    expect((await t.db("users").where({ id: member.id }).first("language")).language).toBe("lg");
    expect(Number((await t.db("activity").where({ user_id: member.id, kind: "preferences_updated" }).count({ n: "*" }).first())?.n)).toBe(1);
    // Another browser: only the session, asking for English.
    const elsewhere = await page("/help", { Cookie: cookie, "Accept-Language": "en-GB" });
    expect(elsewhere.lang).toBe("lg");
    // The member's saved language comes before a cookie left from before.
    const stale = await page("/help", { Cookie: `${cookie}; soko_lang=sw` });
    expect(stale.lang).toBe("lg");
  });

  it("works on the admin host too, where the admin portal's header posts it", async () => {
    const admin = await createUser(t.db, { role: "admin", name: "Admin Okello" });
    const res = await switchOnAdminHost("sw", `soko_session=${await createSession(t.db, admin.id)}`);
    expect(res).toEqual({ status: 302, location: "/users", cookie: "soko_lang=sw" });
    expect((await t.db("users").where({ id: admin.id }).first("language")).language).toBe("sw");
  });
});

describe("a seller's level", () => {
  it("is stored as a code and said in the reader's language on the profile and the gig page", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Level Nakato" });
    expect((await t.db("users").where({ id: seller.id }).first("level")).level).toBe("new");
    await t.db("users").where({ id: seller.id }).update({ level: "top_rated" });
    const gig = await createGig(t.db, { sellerId: seller.id });
    // The page's text, without the scripts (whose loader data carry the page's catalogue).
    const text = async (path: string, lang: "en" | "sw" | "lg") =>
      (await page(path, { "Accept-Language": lang })).html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "").replace(/<!-- -->/g, "");
    for (const lang of ["en", "sw", "lg"] as const) {
      const level = words[lang].catalog!["catalog.level.top"]!;
      expect(await text(`/user/${seller.username}`, lang)).toContain(`<dd>${level}</dd>`);
      expect(await text(`/gig/${gig.id}`, lang)).toContain(level);
      if (lang !== "en") expect(await text(`/user/${seller.username}`, lang)).not.toContain(words.en.catalog!["catalog.level.top"]!);
    }
  });
});
