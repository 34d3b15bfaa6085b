/**
 * Data-saver mode (ADR 054), against the built server: the switch (POST /data-saver) keeps a visitor's choice in a
 * cookie and a member's in their row, which every device they sign in on then follows; it refuses anything but on or
 * off; a data-saver page carries no image, no avatar picture and no app script, and offers "Show image" links to the
 * small rendition, made from the thumb for an image stored before it existed; and the page cache never gives a
 * data-saver visitor a normal page or the other way round.
 */
process.env.QUEUE_PREFIX = `t_datasaver_${process.pid}_${Date.now()}`;

import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSourceCatalogues } from "~/i18n/catalog.server";
import { closeRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

const BROWSER = "Mozilla/5.0 (Linux; Android 13; SM-A145F) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";
const words = readSourceCatalogues();
const SHOW_IMAGE = words.en.common!["common.dataSaver.showImage"]!;
const IMAGE_KEY = "0b8f3c8e-1d2a-4c5b-9e6f-7a8b9c0d1e2f";

let t: TestDatabase;
let server: TestServer;
let uploadDir: string;
let seller: TestUser;
let member: TestUser;
let gigId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  seller = await createUser(t.db, { role: "freelancer", name: "Sarah Namuli" });
  member = await createUser(t.db, { role: "client", name: "Grace Nakato" });
  ({ id: gigId } = await createGig(t.db, { sellerId: seller.id, title: "I will design a bold logo for your shop", images: [IMAGE_KEY] }));
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-data-saver-"));
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: process.env.QUEUE_PREFIX!, PAGE_CACHE: "on", UPLOAD_DIR: uploadDir });
});

afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await t?.drop();
  if (uploadDir) fs.rmSync(uploadDir, { recursive: true, force: true });
});

async function page(pathname: string, cookie?: string) {
  const res = await fetch(`${server.baseUrl}${pathname}`, {
    redirect: "manual",
    headers: { Accept: "text/html", "User-Agent": BROWSER, ...(cookie ? { Cookie: cookie } : {}) },
  });
  return { status: res.status, html: await res.text(), cache: res.headers.get("x-page-cache"), headers: res.headers };
}

function switchTo(dataSaver: string, { cookie, redirectTo = "/browse?sort=newest" }: { cookie?: string; redirectTo?: string } = {}) {
  return fetch(`${server.baseUrl}/data-saver`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: server.baseUrl, ...(cookie ? { Cookie: cookie } : {}) },
    body: new URLSearchParams({ dataSaver, redirectTo }),
  });
}

const images = (html: string) => html.match(/<img\b/g)?.length ?? 0;
const appScripts = (html: string) => html.match(/<script[^>]*\s(?:src|type="module")|<link rel="modulepreload"/g)?.length ?? 0;
/** What the page shows for a data-saver reader: the gig's "Show image" link to its small rendition. */
const showImageLink = `<a href="/media/${IMAGE_KEY}-small.webp" class="show-image gig-thumb" data-show-image=""`;

describe("the data-saver switch", () => {
  it("keeps a visitor's choice in a cookie and goes back to the page", async () => {
    const on = await switchTo("on");
    expect(on.status).toBe(302);
    expect(on.headers.get("location")).toBe("/browse?sort=newest");
    expect(on.headers.get("set-cookie")).toMatch(/^soko_data_saver=on; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax/);
    const off = await switchTo("off");
    expect(off.headers.get("set-cookie")).toMatch(/^soko_data_saver=off;/);
  });

  it("refuses anything but on or off, and a way back to another site, storing nothing", async () => {
    const cookie = `soko_session=${await createSession(t.db, member.id)}`;
    for (const value of ["yes", "", "ON"]) {
      const bad = await switchTo(value, { cookie });
      expect(bad.status).toBe(400);
      expect(bad.headers.get("set-cookie")).toBeNull();
      expect(await bad.text()).toBe(words.en.ops!["ops.dataSaver.choose"]);
    }
    expect((await t.db("users").where({ id: member.id }).first("data_saver")).data_saver).toBe(false);
    const away = await switchTo("on", { redirectTo: "https://evil.example/" });
    expect(away.headers.get("location")).toBe("/");
    // A GET is not a switch.
    expect((await page("/data-saver")).status).toBe(302);
  });

  it("saves a member's choice, which a new sign-in on another device follows, and switches it off again", async () => {
    const cookie = `soko_session=${await createSession(t.db, member.id)}`;
    expect((await switchTo("on", { cookie })).status).toBe(302);
    expect((await t.db("users").where({ id: member.id }).first("data_saver")).data_saver).toBe(true);
    expect(Number((await t.db("activity").where({ user_id: member.id, kind: "preferences_updated" }).count({ n: "*" }).first())?.n)).toBe(1);
    // Another device: a new session, no cookie of the switch's.
    const elsewhere = `soko_session=${await createSession(t.db, member.id)}`;
    const saver = await page("/browse", elsewhere);
    expect(images(saver.html)).toBe(0);
    expect(saver.html).toContain(showImageLink);
    // The member's row comes before a cookie left from before.
    expect(images((await page("/browse", `${elsewhere}; soko_data_saver=off`)).html)).toBe(0);
    expect((await switchTo("off", { cookie: elsewhere })).status).toBe(302);
    expect((await t.db("users").where({ id: member.id }).first("data_saver")).data_saver).toBe(false);
    expect(images((await page("/browse", `${elsewhere}; soko_data_saver=on`)).html)).toBe(1);
  });
});

describe("a data-saver page", () => {
  it("carries no image and no app script; the normal page offers the renditions as a srcset", async () => {
    const normal = await page(`/gig/${gigId}?ref=normal`);
    expect(normal.status).toBe(200);
    // (HTML's attribute names know no case: React writes this one "srcSet".)
    expect(normal.html.toLowerCase()).toContain(
      `srcset="/media/${IMAGE_KEY}-small.webp 320w, /media/${IMAGE_KEY}-thumb.webp 480w, /media/${IMAGE_KEY}-large.webp 1280w"`,
    );
    expect(appScripts(normal.html)).toBeGreaterThan(0);

    const saver = await page(`/gig/${gigId}?ref=saver`, "soko_data_saver=on");
    expect(saver.status).toBe(200);
    expect(images(saver.html)).toBe(0);
    expect(saver.html).toContain(`href="/media/${IMAGE_KEY}-small.webp"`);
    expect(saver.html).toContain(`>${SHOW_IMAGE}</a>`);
    expect(appScripts(saver.html)).toBe(0);
    // The seller's picture is their initials, named by their name.
    expect(saver.html).toContain(`role="img" aria-label="Sarah Namuli"`);
    // Its one script is inline, with the response's nonce.
    const nonce = /'nonce-([^']+)'/.exec(saver.headers.get("content-security-policy") ?? "")?.[1];
    expect([...saver.html.matchAll(/<script nonce="([^"]+)">/g)].map((m) => m[1])).toEqual([nonce]);
    expect(saver.html).toContain(words.en.common!["common.dataSaver.turnOff"]);
  });

  it("serves the small rendition, made from the thumb of an image stored before it existed", async () => {
    await sharp({ create: { width: 480, height: 270, channels: 3, background: "#0f5132" } })
      .webp()
      .toFile(path.join(uploadDir, `${IMAGE_KEY}-thumb.webp`));
    const res = await fetch(`${server.baseUrl}/media/${IMAGE_KEY}-small.webp`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/webp");
    expect(await sharp(Buffer.from(await res.arrayBuffer())).metadata()).toMatchObject({ format: "webp", width: 320, height: 180 });
    expect(fs.existsSync(path.join(uploadDir, `${IMAGE_KEY}-small.webp`))).toBe(true);
    // An image with no thumb either is not found.
    expect((await fetch(`${server.baseUrl}/media/1b8f3c8e-1d2a-4c5b-9e6f-7a8b9c0d1e2f-small.webp`)).status).toBe(404);
  });
});

describe("the page cache and data-saver mode", () => {
  it("never serves a cached normal page to a data-saver visitor, nor a data-saver page to anyone else", async () => {
    const pathname = "/browse?ref=cache";
    // A normal page, stored.
    await page(pathname);
    const normal = await page(pathname);
    expect(normal.cache).toBe("fresh");
    expect(images(normal.html)).toBe(1);
    // The data-saver visitor gets their own page, built for them and then stored under their key.
    const saver = await page(pathname, "soko_data_saver=on");
    expect(saver.cache).toBe("miss");
    expect(images(saver.html)).toBe(0);
    expect(saver.html).toContain(showImageLink);
    const saverAgain = await page(pathname, "soko_data_saver=on; soko_sid=abc");
    expect(saverAgain.cache).toBe("fresh");
    expect(images(saverAgain.html)).toBe(0);
    expect(appScripts(saverAgain.html)).toBe(0);
    // Everyone else still gets the normal page: "off" and a value that is not ours draw the same page as no cookie.
    for (const cookie of [undefined, "soko_data_saver=off", "soko_data_saver=1"]) {
      const other = await page(pathname, cookie);
      expect(other.cache).toBe("fresh");
      expect(images(other.html)).toBe(1);
      expect(other.html).not.toContain(showImageLink);
    }
    // The same for a navigation's data: each mode its own.
    const data = await fetch(`${server.baseUrl}/browse.data?ref=cache`, { headers: { Cookie: "soko_data_saver=on" } });
    expect(await data.text()).toMatch(/"dataSaver",true/);
    // No page leaves with a header that would let a shared cache (a CDN, a proxy) keep it for others.
    for (const res of [normal, saverAgain]) {
      expect(res.headers.get("cache-control") ?? "").not.toMatch(/public|max-age|s-maxage/);
      expect(res.headers.get("etag")).toBeNull();
      expect(res.headers.get("last-modified")).toBeNull();
    }
  });
});
