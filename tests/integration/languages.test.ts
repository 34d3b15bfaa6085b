/**
 * The language of a page (ADR 047), against the built server: a visitor's from Accept-Language or the
 * switcher's cookie, a member's from their saved preference on any device; the switch (POST /language) with
 * and without a session; and the page cache, which keeps each language's page apart.
 */
process.env.QUEUE_PREFIX = `t_languages_${process.pid}_${Date.now()}`;

import http from "node:http";
import vm from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { messagesFor, readSourceCatalogues } from "~/i18n/catalog.server";
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

function switchTo(
  language: string,
  { cookie, redirectTo = "/help?x=1", headers = {} }: { cookie?: string; redirectTo?: string; headers?: Record<string, string> } = {},
) {
  return fetch(`${server.baseUrl}/language`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.baseUrl, ...(cookie ? { Cookie: cookie } : {}), ...headers },
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
    expect(await bad.text()).toBe(words.en.ops!["ops.language.choose"]);
    // Said in the language the visitor reads in now: the switcher's cookie, else Accept-Language.
    const inLuganda = await switchTo("fr", { cookie: "soko_lang=lg", headers: { "Accept-Language": "sw" } });
    expect(inLuganda.status).toBe(400);
    expect(inLuganda.headers.get("content-language")).toBe("lg");
    expect(await inLuganda.text()).toBe(words.lg.ops!["ops.language.choose"]);
    const inSwahili = await switchTo("", { headers: { "Accept-Language": "sw-TZ" } });
    expect(inSwahili.status).toBe(400);
    expect(await inSwahili.text()).toBe(words.sw.ops!["ops.language.choose"]);
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

describe("the catalogue files a page loads (ADR 048)", () => {
  const compiled = (lang: "en" | "lg" | "sw", key: string) => messagesFor(lang, ["legal"])[key];

  /** The files a document names, as `{ ref, src }`, in document order. */
  const wordsOf = (html: string) =>
    [...html.matchAll(/<script defer="" src="(\/words\/[^"]+\.js)" data-words="([^"]+)"/g)].map((m) => ({ src: m[1]!, ref: m[2]! }));

  it("names the page's catalogues in its language as files, and carries none of their messages itself", async () => {
    const { status, html } = await page("/terms", { "Accept-Language": "sw-KE" });
    expect(status).toBe(200);
    const files = wordsOf(html);
    expect(files.map((f) => f.ref.replace(/\.[^.]+$/, ""))).toEqual(["sw/common", "sw/legal"]);
    // The page is drawn in Swahili, but the messages (keyed by their ids) are not in the document.
    expect(html).toContain(words.sw.legal!["legal.terms.title"]!);
    expect(html).not.toContain("legal.terms.title");
    expect(html).not.toContain("common.header.signIn");
  });

  it("serves a file that registers the compiled messages, compressed, to be kept for a year", async () => {
    const [, legal] = wordsOf((await page("/terms", { "Accept-Language": "sw" })).html);
    const res = await fetch(`${server.baseUrl}${legal!.src}`, { headers: { "Accept-Encoding": "br" } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(res.headers.get("content-type")).toBe("text/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const self: { __sokoWords?: Record<string, Record<string, unknown>> } = {};
    vm.runInNewContext(await res.text(), { self, JSON });
    expect(self.__sokoWords![legal!.ref]!["legal.terms.title"]).toEqual(compiled("sw", "legal.terms.title"));
  });

  it("sends a navigation's data with the messages inline, and a document never, whatever a client claims", async () => {
    const data = await fetch(`${server.baseUrl}/terms.data`, { headers: { "Accept-Language": "lg", "User-Agent": BROWSER } });
    const text = await data.text();
    expect(data.status).toBe(200);
    expect(text).toContain("legal.terms.title");
    expect(text).not.toContain("/words/");
    const spoofed = await page("/terms", { "Accept-Language": "lg", "X-Soko-Data-Request": "1" });
    expect(wordsOf(spoofed.html)).toHaveLength(2);
    expect(spoofed.html).not.toContain("legal.terms.title");
  });

  it("answers an old hash with today's words, not to be kept, and no file for server-only, unknown or made-up names", async () => {
    const old = await fetch(`${server.baseUrl}/words/en/legal.AAAAAAAAAA.js`, { headers: { "Accept-Encoding": "br" } });
    expect(old.status).toBe(200);
    expect(old.headers.get("cache-control")).toBe("no-cache");
    // Any hash can be asked for: a stale one is not compressed at brotli's slowest setting (nor kept).
    expect(old.headers.get("content-encoding")).toBeNull();
    expect(await old.text()).toContain(JSON.stringify(words.en.legal!["legal.terms.title"]!).slice(1, -1).slice(0, 20));
    for (const name of [
      "en/ops.AAAAAAAAAA",
      "en/mail.AAAAAAAAAA",
      "xx/legal.AAAAAAAAAA",
      "en/legal.noSuchArea.AAAAAAAAAA",
      "en/nothing.AAAAAAAAAA",
      "en/legal",
    ]) {
      expect((await fetch(`${server.baseUrl}/words/${name}.js`)).status, name).toBe(404);
    }
  });
});

describe("a seller's level", () => {
  it("is stored as a code and said in the reader's language on the profile and the gig page", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Level Nakato" });
    expect((await t.db("users").where({ id: seller.id }).first("level")).level).toBe("new");
    await t.db("users").where({ id: seller.id }).update({ level: "top_rated" });
    const gig = await createGig(t.db, { sellerId: seller.id });
    // The page's text, without its scripts (the loader data travel in them).
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
