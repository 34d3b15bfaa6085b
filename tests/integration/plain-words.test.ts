/**
 * Answers a person reads with no page around them, in the reader's language (ADR 047), through the built server:
 * a file's link that leads nowhere (an order's file, a message's attachment, an image), a choice the currency
 * switch does not know, an address that cannot be read, a form from another site, and a POST to an admin screen,
 * whose error page a browser shows: each keeps its status (and the 405 its Allow), with words from the `ops`
 * catalogue instead of "Not Found", "Bad Request", "Forbidden: …" or "Method Not Allowed".
 */
import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Locale } from "~/i18n/locales";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser } from "../support/factories";
import { decode } from "../support/html";
import { startTestServer, type TestServer } from "../support/test-server";
import { words } from "../support/words";

let t: TestDatabase;
let server: TestServer;
/** Session cookies of members who chose a language in Settings. */
const reader: Partial<Record<Locale, string>> = {};
let admin = "";

beforeAll(async () => {
  t = await createTestDatabase();
  for (const language of ["lg", "sw"] as const) {
    const member = await createUser(t.db, { role: "client", name: `Reader ${language}` });
    await t.db("users").where({ id: member.id }).update({ language });
    reader[language] = `soko_session=${await createSession(t.db, member.id)}`;
  }
  const a = await createUser(t.db, { role: "admin", name: "Admin Nansubuga" });
  await t.db("users").where({ id: a.id }).update({ language: "lg" });
  admin = `soko_session=${await createSession(t.db, a.id)}`;
  server = await startTestServer({ DATABASE_URL: t.url });
});
afterAll(async () => {
  await server?.stop();
  await t?.drop();
});

const fetchFrom = (path: string, init: RequestInit = {}) => fetch(`${server.baseUrl}${path}`, { redirect: "manual", ...init });

async function plain(res: Response) {
  return { status: res.status, type: res.headers.get("content-type"), language: res.headers.get("content-language"), text: await res.text() };
}

describe("a file's link that leads nowhere", () => {
  it("is a 404 in the member's language, for an order's file and a message's attachment", async () => {
    const notFound = { status: 404, type: "text/plain; charset=utf-8" };
    expect(await plain(await fetchFrom("/orders/999999/files/1", { headers: { Cookie: reader.lg! } }))).toEqual({
      ...notFound,
      language: "lg",
      text: words("ops.file.notFound", "lg"),
    });
    for (const path of ["/messages/conv_doesnotexist00/files/1", "/messages/conv_doesnotexist00/files/not-a-number"]) {
      expect(await plain(await fetchFrom(path, { headers: { Cookie: reader.sw! } })), path).toEqual({
        ...notFound,
        language: "sw",
        text: words("ops.file.notFound", "sw"),
      });
    }
    expect(words("ops.file.notFound", "sw")).not.toBe(words("ops.file.notFound", "en"));
  });

  it("is a 404 in the visitor's language for an image, by the switcher's cookie or Accept-Language", async () => {
    const missing = `/media/${randomUUID()}-thumb.webp`;
    const swahili = await plain(await fetchFrom(missing, { headers: { "Accept-Language": "sw-KE,sw;q=0.9" } }));
    expect(swahili).toMatchObject({ status: 404, language: "sw", text: words("ops.file.notFound", "sw") });
    const luganda = await plain(await fetchFrom("/media/not-an-image.png", { headers: { Cookie: "soko_lang=lg" } }));
    expect(luganda).toMatchObject({ status: 404, language: "lg", text: words("ops.file.notFound", "lg") });
    expect((await plain(await fetchFrom(missing))).text).toBe("We could not find that file.");
  });
});

describe("the currency switch", () => {
  it("refuses a currency Soko does not show in the visitor's language, with its 400 and no cookie", async () => {
    const res = await fetchFrom("/currency", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.baseUrl, Cookie: "soko_lang=sw" },
      body: new URLSearchParams({ currency: "KES", redirectTo: "/" }),
    });
    expect(res.headers.get("set-cookie")).toBeNull();
    expect(await plain(res)).toMatchObject({ status: 400, language: "sw", text: words("ops.currency.choose", "sw") });
  });
});

describe("what the server answers before any page", () => {
  it("refuses an address it cannot read, and a form from another site, in the visitor's language", async () => {
    expect(await plain(await fetchFrom("/browse%E0%A4%A", { headers: { "Accept-Language": "sw" } }))).toEqual({
      status: 400,
      type: "text/plain; charset=utf-8",
      language: "sw",
      text: words("ops.request.badAddress", "sw"),
    });
    const elsewhere = await fetchFrom("/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: "https://evil.example", Cookie: "soko_lang=lg" },
      body: "email=a%40b.ug&password=x",
    });
    expect(await plain(elsewhere)).toMatchObject({ status: 403, language: "lg", text: words("ops.request.crossSite", "lg") });
  });
});

describe("a POST to an admin screen, which takes none", () => {
  const post = (path: string) =>
    fetchFrom(path, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.baseUrl, Cookie: admin, Accept: "text/html" },
      body: "x=1",
    });

  it("shows the browser the error page in the admin's language, with no key for a word, and says what it takes", async () => {
    const res = await post("/admin/analytics");
    expect(res.status).toBe(405);
    expect(res.headers.get("allow")).toBe("GET, HEAD");
    const html = decode(await res.text());
    expect(html).toContain('<html lang="lg"');
    expect(html).toContain(`<h1>${words("common.error.badRequestTitle", "lg")}</h1>`);
    expect(html).toContain("<title>Soko</title>");
    // No key in place of a word (the fallback words travel in a script; what is drawn has none).
    expect(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")).not.toMatch(/common\.[a-z]+\.[a-zA-Z]+/);
  });

  it("gives a navigation's data request its words in the admin's language", async () => {
    const res = await post("/admin/analytics.data");
    expect(res.status).toBe(405);
    const body = await res.text();
    expect(body).toContain(JSON.stringify(words("ops.page.readOnly", "lg")));
    expect(body).not.toContain("Method Not Allowed");
  });
});
