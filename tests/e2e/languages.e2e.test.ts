/**
 * Soko in each language (ADR 047), with JavaScript on and off. For English, Luganda and Swahili in turn a
 * new visitor whose browser asks for that language joins, browses to a gig, orders it and writes to its seller;
 * every page on the way is in that language: `<html lang>`, no message key showing, and no English sentence of
 * the catalogues left where the language has its own. The language switch in the footer changes the page in
 * place and keeps the address; a member's saved language follows them to another browser.
 */
import { randomBytes } from "node:crypto";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, expect, inject, it } from "vitest";
import { readSourceCatalogues } from "~/i18n/catalog.server";
import { LANGUAGE_NAMES, LOCALES, type Locale } from "~/i18n/locales";
import { getEnv } from "~/server/env.server";
import { createRedis } from "~/server/redis.server";
import { allowConsoleErrors, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createUser, DEFAULT_PASSWORD } from "../support/factories";
import { PHONE } from "../support/phone-checks";

const catalogues = readSourceCatalogues(path.resolve("app/locales"));
/** The namespaces a browser ever receives. */
const PAGE_NAMESPACES = ["common", "catalog", "legal", "account", "orders", "chat", "dashboard"];
const KEY = new RegExp(`\\b(?:${[...PAGE_NAMESPACES, "admin", "ops", "mail", "notify", "api"].join("|")})\\.[a-z][A-Za-z0-9]*\\.[A-Za-z0-9_.]+`);

/** English sentences (three words or more, no placeholder) that the language says otherwise. */
function englishLeftovers(lang: Locale): string[] {
  if (lang === "en") return [];
  const out: string[] = [];
  for (const ns of PAGE_NAMESPACES) {
    for (const [key, english] of Object.entries(catalogues.en[ns] ?? {})) {
      if (/[{}<]/.test(english) || english.split(/\s+/).length < 3) continue;
      if (catalogues[lang][ns]?.[key] !== english) out.push(english);
    }
  }
  return out;
}

/** The page is in `lang`: its <html lang>, no key showing, no English sentence left. */
async function speaks(page: Page, lang: Locale, where: string) {
  expect(await page.locator("html").getAttribute("lang"), where).toBe(lang);
  const text = await page.locator("body").innerText();
  expect(KEY.exec(text)?.[0] ?? null, `${where}: a message key on the page`).toBeNull();
  const left = englishLeftovers(lang).filter((sentence) => text.includes(sentence));
  expect(left, `${where}: English left on a ${lang} page`).toEqual([]);
}

const say = (lang: Locale, ns: string, key: string) => catalogues[lang][ns]![key]!;

const redis = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
afterAll(() => redis.quit());
/**
 * The whole end-to-end suite makes more accounts from 127.0.0.1 than the join limit allows an address in an hour
 * (tested on its own in tests/integration): this spec is about languages, so it starts each join with the
 * e2e server's join counts cleared.
 */
async function clearJoinLimit() {
  const keys = await redis.keys(`${inject("e2eQueuePrefix")}:rl:join*`);
  if (keys.length) await redis.del(...keys);
}

describeBothModes("Soko in each language", (mode: Mode) => {
  for (const lang of LOCALES) {
    it(`${LANGUAGE_NAMES[lang]}: a visitor asking for it joins, browses, orders a gig and writes to its seller, every page in ${lang}`, async () => {
      allowConsoleErrors(
        /status of 401 \(Unauthorized\) \(from http:\/\/[^/]+\/notifications\/counts\)$/,
        "a page asks for the header's counts as the session changes",
      );
      const tag = randomBytes(3).toString("hex");
      const seller = await createUser(e2eDb(), { role: "freelancer", name: `Nakato ${lang} ${tag}` });
      const gig = await createGig(e2eDb(), {
        sellerId: seller.id,
        category: "graphics-design",
        title: `Bold shop sign ${lang} ${tag}`,
        packages: { basic: { priceUgx: 80_000, deliveryDays: 3 } },
      });
      await mode.context().clearCookies();
      const page = await mode.page();
      await page.setViewportSize(PHONE);
      await page.setExtraHTTPHeaders({ "Accept-Language": { en: "en-GB,en;q=0.9", lg: "lg-UG,lg;q=0.9,en;q=0.5", sw: "sw-KE,sw;q=0.9,en;q=0.5" }[lang] });

      // Join.
      await clearJoinLimit();
      await page.goto(appUrl("/register"));
      await waitForHydration(page, mode);
      await speaks(page, lang, "/register");
      const email = `joiner.${lang}.${tag}@example.ug`;
      await page.locator('#main input[name="name"]').fill(`Okello ${lang} ${tag}`);
      await page.locator('#main input[name="email"]').fill(email);
      await page.locator('#main input[name="password"]').fill("a-good-password-1");
      await page.locator('#main input[name="confirmPassword"]').fill("a-good-password-1");
      await page.locator('#main form button[type="submit"]').last().click();
      await page.waitForURL((url) => url.pathname === "/dashboard");
      await waitForHydration(page, mode);
      await speaks(page, lang, "/dashboard");
      const buyer = await e2eDb()("users").where({ email }).first("id", "language");
      // The new member keeps the language they joined in (their mail and notifications follow it).
      expect(buyer.language).toBe(lang);
      await e2eDb()("users").where({ id: buyer.id }).update({ mobile_money_number: "+256772123456" });

      // Browse, then a gig from the list, then this seller's.
      await page.goto(appUrl("/browse?category=graphics-design"));
      await waitForHydration(page, mode);
      await speaks(page, lang, "/browse");
      await page.locator("#main .gig-card h3 a, #main .gig-card a").first().click();
      await page.waitForURL((url) => /^\/gig\/\d+$/.test(url.pathname));
      await waitForHydration(page, mode);
      await speaks(page, lang, "a gig from /browse");
      await page.goto(appUrl(`/gig/${gig.id}`));
      await waitForHydration(page, mode);
      await speaks(page, lang, "/gig/:id");

      // Order: checkout, then the payment page.
      await page.goto(appUrl(`/gig/${gig.id}/order?package=basic`));
      await waitForHydration(page, mode);
      await speaks(page, lang, "checkout");
      await page.locator('#main form button[type="submit"]').last().click();
      await page.waitForURL((url) => /^\/orders\/\d+\/pay$/.test(url.pathname));
      await waitForHydration(page, mode);
      await speaks(page, lang, "the payment page");
      expect(Number((await e2eDb()("orders").where({ buyer_id: buyer.id, gig_id: gig.id }).count({ n: "*" }).first())?.n)).toBe(1);

      // Chat: Contact Seller from the gig, then a message.
      await page.goto(appUrl(`/gig/${gig.id}`));
      await waitForHydration(page, mode);
      // Signed in, the seller's card posts straight to /messages.
      await page.locator('#main button[name="intent"][value="start"]').click();
      await page.waitForURL(/\/messages\/conv_[a-z0-9]+$/);
      await waitForHydration(page, mode);
      await speaks(page, lang, "a chat thread");
      const hello = `Oli otya, ${lang} ${tag}`;
      await page.locator('#main textarea[name="body"]').fill(hello);
      await page
        .locator("#main form", { has: page.locator('textarea[name="body"]') })
        .locator('button[type="submit"]')
        .click();
      await page.locator("li.chat-message", { hasText: hello }).waitFor();
      await speaks(page, lang, "a chat thread with a message");
    }, 90_000);
  }

  it("switches the language from the footer, on the same page, and back", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.setViewportSize(PHONE);
    await page.goto(appUrl("/help?topic=payments"));
    await waitForHydration(page, mode);
    await speaks(page, "en", "/help");
    for (const lang of ["lg", "sw", "en"] as const) {
      await page.getByRole("button", { name: LANGUAGE_NAMES[lang], exact: true }).click();
      await page.waitForFunction((l) => document.documentElement.lang === l, lang);
      await waitForHydration(page, mode);
      expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe("/help?topic=payments");
      await speaks(page, lang, `/help after choosing ${lang}`);
      expect(await page.getByRole("button", { name: LANGUAGE_NAMES[lang], exact: true }).getAttribute("aria-pressed")).toBe("true");
      await page.getByRole("heading", { level: 1 }).first().waitFor();
    }
  });

  it("loads a page's words as files the browser keeps, and without them leaves the page working as the server drew it", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.setViewportSize(PHONE);
    await page.setExtraHTTPHeaders({ "Accept-Language": "sw-TZ" });
    const served: string[] = [];
    page.on("response", (res) => void (new URL(res.url()).pathname.startsWith("/words/") && served.push(new URL(res.url()).pathname)));
    await page.goto(appUrl("/help"));
    await waitForHydration(page, mode);
    await speaks(page, "sw", "/help");
    // Without JavaScript the browser never asks for them: the server drew every word.
    expect(served.map((p) => p.replace(/\.[^.]+\.js$/, ""))).toEqual(mode.js ? ["/words/sw/common", "/words/sw/legal"] : []);
    if (!mode.js) return;

    // A phone that loses the files (a dropped connection): the page is not drawn again without its words; it
    // stays as the server drew it, and its forms post as they do without JavaScript.
    allowConsoleErrors(/Failed to load resource: net::ERR_FAILED/, "the test drops the catalogue files on purpose");
    const lost = await mode.page();
    await lost.setViewportSize(PHONE);
    await lost.setExtraHTTPHeaders({ "Accept-Language": "sw-TZ" });
    await lost.route("**/words/**", (route) => route.abort("failed"));
    await lost.goto(appUrl("/help?topic=payments"));
    await lost.waitForLoadState("load");
    await speaks(lost, "sw", "/help without its word files");
    expect(await lost.locator("html[data-hydrated=true]").count()).toBe(0);
    await lost.getByRole("button", { name: LANGUAGE_NAMES.lg, exact: true }).click();
    await lost.waitForFunction(() => document.documentElement.lang === "lg");
    expect(new URL(lost.url()).pathname + new URL(lost.url()).search).toBe("/help?topic=payments");
    await speaks(lost, "lg", "/help after choosing Luganda without the word files");
  });

  it("keeps a member's language on another browser", async () => {
    const tag = randomBytes(3).toString("hex");
    const member = await createUser(e2eDb(), { role: "client", name: `Kato ${tag}` });
    await e2eDb()("users").where({ id: member.id }).update({ language: "sw" });
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.setExtraHTTPHeaders({ "Accept-Language": "en-GB" });
    await page.goto(appUrl("/login"));
    await waitForHydration(page, mode);
    await speaks(page, "en", "/login before signing in");
    await page.locator('#main input[name="email"]').fill(member.email);
    await page.locator('#main input[name="password"]').fill(DEFAULT_PASSWORD);
    await page.locator('#main form button[type="submit"]').last().click();
    await page.waitForURL((url) => url.pathname === "/dashboard");
    await waitForHydration(page, mode);
    await speaks(page, "sw", "/dashboard of a member who chose Swahili");
    expect((await page.locator('header a[href="/orders"]').first().textContent())?.trim()).toBe(say("sw", "common", "common.header.orders"));
  });
});
