import { randomInt } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Locator, Page } from "playwright-core";
import sharp from "sharp";
import { beforeAll, expect, it } from "vitest";
import { allowStatus, appUrl, describeBothModes, e2eDb, type Mode, waitForHydration } from "../support/e2e";

const DEMO_PASSWORD = "soko-demo-2026";
const TITLE_PREFIX = "Kabaka drum lessons "; // 20 characters; with a 10-letter word, 30
let galleryFile: string;

beforeAll(async () => {
  galleryFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "soko-gig-")), "drums.png");
  await sharp({ create: { width: 640, height: 360, channels: 3, background: "#7a3e12" } })
    .png()
    .toFile(galleryFile);
});

/**
 * A made-up word no demo gig contains, so a search for it finds only our gig. Letters 4 and 5 differ, so
 * swapping them is a real misspelling.
 */
function uniqueWord(): string {
  const letters = "abcdefghijklmnopqrstuvwxyz";
  for (;;) {
    const word = Array.from({ length: 10 }, () => letters[randomInt(letters.length)]).join("");
    if (word[3] !== word[4]) return word;
  }
}

/** The word with its 4th and 5th letters swapped: 'kabaka' → 'kabkaa'. */
function transposed(word: string): string {
  return word.slice(0, 3) + word[4] + word[3] + word.slice(5);
}

async function open(mode: Mode, url: string): Promise<Page> {
  const page = await mode.page();
  await page.goto(url);
  await waitForHydration(page, mode);
  return page;
}

async function signIn(mode: Mode, email: string): Promise<Page> {
  await mode.context().clearCookies();
  const page = await open(mode, appUrl("/login"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
  return page;
}

/**
 * Clicks a button of the gig form. Without JavaScript every such button submits the form and the page comes
 * back from the server: wait for that new page to load before looking at it.
 */
async function press(page: Page, mode: Mode, button: Locator) {
  if (mode.js) return button.click();
  const loaded = page.waitForEvent("load");
  await button.click();
  await loaded;
}

/** Holds this page's POST requests matching `pattern` until the returned function is called. */
async function holdPosts(page: Page, pattern: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(pattern, async (route) => {
    if (route.request().method() === "POST") await held;
    await route.continue();
  });
  return release;
}

const visibleGigCount = async () =>
  Number(
    (
      await e2eDb()("gigs as g")
        .join("users as u", "u.id", "g.seller_id")
        .where({ "g.status": "published", "u.status": "active" })
        .whereNotNull("g.starting_price_ugx")
        .count({ n: "*" })
    )[0]!.n,
  );

type Gig = { id: number; title: string; word: string };

/** The catalog's card for a gig (its title is unique). */
const cardOf = (page: Page, title: string) =>
  page
    .getByRole("list", { name: "Services" })
    .getByRole("listitem")
    .filter({ has: page.getByRole("link", { name: title, exact: true }) });

/** Links of every card shown, in order. */
async function cardLinks(page: Page): Promise<string[]> {
  const links = await page.getByRole("list", { name: "Services" }).getByRole("heading").getByRole("link").all();
  return Promise.all(links.map(async (l) => (await l.getAttribute("href"))!));
}

describeBothModes("Gigs", (mode) => {
  /** The published gig of this pass: made by the first spec, or (when that did not run) by `publishedGig`. */
  let gig: Gig | undefined;

  /** A published gig at UGX 90,000 in Local Services, for the specs that find and buy it. */
  async function publishedGig(): Promise<Gig> {
    if (gig) return gig;
    const word = uniqueWord();
    const title = TITLE_PREFIX + word;
    const page = await signIn(mode, "freelancer@soko.test");
    await page.goto(appUrl("/gig/create"));
    await waitForHydration(page, mode);
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Category", { exact: true }).selectOption("local-services");
    await page.getByLabel("Description", { exact: true }).fill("Learn the royal drums of Buganda.");
    await page.getByLabel("Add images", { exact: true }).setInputFiles(galleryFile);
    await page.getByLabel("Basic price (UGX)", { exact: true }).fill("90000");
    await page.getByLabel("Basic delivery", { exact: true }).selectOption("3");
    await page.getByRole("button", { name: "Publish Gig" }).click();
    await page.getByText("Your gig is published: buyers can find it now.").waitFor();
    const row = await e2eDb()("gigs").where({ title }).first();
    await page.close();
    gig = { id: Number(row.id), title, word };
    return gig;
  }

  it("a freelancer creates a gig as a draft, then publishes it from the dashboard", async () => {
    const word = uniqueWord();
    const title = TITLE_PREFIX + word;
    const page = await signIn(mode, "freelancer@soko.test");
    await page.getByRole("main").getByRole("link", { name: "Create a gig" }).click();
    await page.getByRole("heading", { level: 1, name: "Create a gig" }).waitFor();
    await waitForHydration(page, mode);

    // Title, with its counter: live with JavaScript, as the server counted it after a round trip without.
    await page.getByText("0/80 characters").waitFor();
    await page.getByLabel("Title", { exact: true }).fill(title);
    if (mode.js) await page.getByText("30/80 characters").waitFor();
    else expect(await page.locator("#title-count").innerText()).toBe("0/80 characters");
    await page.getByLabel("Category", { exact: true }).selectOption("local-services");
    await page.getByLabel("Description", { exact: true }).fill("Learn the royal drums of Buganda: rhythms, technique and care of the drum.");
    // Without JavaScript the image goes up with the first round trip (Add tag) and is kept from then on.
    await page.getByLabel("Add images", { exact: true }).setInputFiles(galleryFile);

    // Tags: three added (Enter and the button with JavaScript; the button, a round trip, without).
    // With JavaScript, Conform's list buttons act in place: no request until the form is saved.
    const posts: string[] = [];
    page.on("request", (r) => void (r.method() === "POST" && posts.push(r.url())));
    const tags = page.getByRole("list", { name: "Tags" }).getByRole("listitem");
    const newTag = page.getByLabel("New tag", { exact: true });
    const addTag = page.getByRole("button", { name: "Add tag" });
    await newTag.fill("drums");
    if (mode.js) await newTag.press("Enter");
    else await press(page, mode, addTag);
    await page.getByRole("button", { name: "Remove tag drums" }).waitFor();
    if (!mode.js) {
      // The round trip kept everything typed, counted the title and stored the image.
      expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe(title);
      expect(await page.locator("#title-count").innerText()).toBe("30/80 characters");
      expect(await page.getByLabel("Category", { exact: true }).inputValue()).toBe("local-services");
      expect(await page.getByLabel("Description", { exact: true }).inputValue()).toMatch(/^Learn the royal drums of Buganda/);
      await page.getByRole("img", { name: "Gallery image 1" }).waitFor();
      await page.getByRole("button", { name: "Remove image 1" }).waitFor();
    }
    expect(await newTag.inputValue()).toBe("");
    await newTag.fill("Kiganda music");
    await press(page, mode, addTag);
    await page.getByRole("button", { name: "Remove tag Kiganda music" }).waitFor();
    await newTag.fill("lessons");
    await press(page, mode, addTag);
    await page.getByRole("button", { name: "Remove tag lessons" }).waitFor();
    expect(await tags.allInnerTexts()).toHaveLength(3);

    // A repeat (in another letter case) and an empty tag are ignored.
    await newTag.fill("DRUMS");
    await press(page, mode, addTag);
    await expect.poll(() => newTag.inputValue()).toBe("");
    await newTag.fill("   ");
    await press(page, mode, addTag);
    await expect.poll(() => newTag.inputValue()).toBe("");
    expect((await tags.allInnerTexts()).map((t) => t.replace(/\s*×$/, ""))).toEqual(["drums", "Kiganda music", "lessons"]);

    // One removed.
    await press(page, mode, page.getByRole("button", { name: "Remove tag lessons" }));
    await page.getByRole("button", { name: "Remove tag lessons" }).waitFor({ state: "detached" });
    expect((await tags.allInnerTexts()).map((t) => t.replace(/\s*×$/, ""))).toEqual(["drums", "Kiganda music"]);
    expect(posts).toHaveLength(mode.js ? 0 : 6);

    await page.getByLabel("Basic price (UGX)", { exact: true }).fill("90000");
    await page.getByLabel("Basic delivery", { exact: true }).selectOption("3");
    await page.getByRole("button", { name: "Save as Draft" }).click();
    await page.getByText("Your gig is saved as a draft. Only you can see it.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    const draft = await e2eDb()("gigs").where({ title }).first();
    expect(draft).toMatchObject({ status: "draft", tags: ["drums", "Kiganda music"] });
    const id = Number(draft.id);

    // A draft: its owner can preview it, nobody else can see it, and search does not find it.
    expect((await fetch(appUrl(`/gig/${id}`), { redirect: "manual" })).status).toBe(404);
    await page.goto(appUrl(`/gig/${id}`));
    await page.getByText("This is a draft: only you can see it.").waitFor();
    expect(await page.getByRole("button", { name: /^Continue with/ }).count()).toBe(0);
    await page.goto(appUrl(`/search?q=${word}`));
    await page.getByRole("heading", { name: "No results found" }).waitFor();
    expect(await page.getByRole("link", { name: title }).count()).toBe(0);

    // Edit from the dashboard: the form shows what was saved; publish.
    await page.goto(appUrl("/dashboard"));
    await page.getByRole("link", { name: `Edit ${title}` }).click();
    await page.getByRole("heading", { level: 1, name: "Edit gig" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByText("Draft: only you can see it").waitFor();
    expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe(title);
    expect(await page.getByLabel("Basic price (UGX)", { exact: true }).inputValue()).toBe("90000");
    expect(await page.getByLabel("Basic delivery", { exact: true }).inputValue()).toBe("3");
    await page.getByRole("button", { name: "Remove tag Kiganda music" }).waitFor();
    await page.getByRole("img", { name: "Gallery image 1" }).waitFor();
    if (mode.js) {
      const release = await holdPosts(page, "**/edit.data*");
      await page.getByRole("button", { name: "Publish Gig" }).click();
      const pending = page.getByRole("button", { name: "Publishing…" });
      await pending.waitFor();
      expect(await pending.isDisabled()).toBe(true);
      release();
    } else {
      await page.getByRole("button", { name: "Publish Gig" }).click();
    }
    await page.getByText("Your gig is published: buyers can find it now.").waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard");

    const stored = await e2eDb()("gigs").where({ id }).first();
    expect(stored).toMatchObject({ status: "published", tags: ["drums", "Kiganda music"] });
    expect(Number(stored.starting_price_ugx)).toBe(90_000);
    expect(await e2eDb()("gig_images").where({ gig_id: id })).toHaveLength(1);
    expect((await fetch(appUrl(`/gig/${id}`), { redirect: "manual" })).status).toBe(200);
    await page.close();
    gig = { id, title, word };
  });

  // The server stores a chosen image even when the form comes back with an error, and lists it in the
  // gallery; the file input must then be empty, or the next submit would store a second copy.
  it("stores a chosen image once when the form first comes back with an error", async () => {
    allowStatus(400, "the gig form is sent with an error");
    const title = `Luganda lessons for beginners ${uniqueWord()}`;
    const page = await signIn(mode, "freelancer@soko.test");
    await page.goto(appUrl("/gig/create"));
    await waitForHydration(page, mode);
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Add images", { exact: true }).setInputFiles(galleryFile);
    await page.getByRole("button", { name: "Save as Draft" }).click();
    await page.locator("#category-error").getByText("Choose a category").waitFor();
    const gallery = page.getByRole("list", { name: "Gallery images" }).getByRole("listitem");
    await gallery.first().waitFor();
    expect(await gallery.count()).toBe(1);

    await page.getByLabel("Category", { exact: true }).selectOption("writing-translation");
    await page.getByRole("button", { name: "Save as Draft" }).click();
    await page.getByText("Your gig is saved as a draft. Only you can see it.").waitFor();
    const row = await e2eDb()("gigs").where({ title }).first();
    expect(row).toMatchObject({ status: "draft" });
    expect(await e2eDb()("gig_images").where({ gig_id: row.id })).toHaveLength(1);
    await page.close();
  });

  it("buyers find the gig by category and price, and by a misspelt search, and open it", async () => {
    const { id, title, word } = await publishedGig();
    await mode.context().clearCookies();
    const page = await open(mode, appUrl("/browse"));
    await page.locator("summary", { hasText: "Filters" }).click();
    await page.getByLabel("Category", { exact: true }).selectOption("local-services");
    if (mode.js) {
      // A choice applies at once.
      await page.waitForURL((url) => url.searchParams.get("category") === "local-services");
      await page.getByRole("heading", { level: 1, name: "Local Services" }).waitFor();
      await page.getByLabel("Price", { exact: true }).selectOption("under-100000");
    } else {
      await page.getByLabel("Price", { exact: true }).selectOption("under-100000");
      expect(new URL(page.url()).search).toBe("");
      await page.getByRole("button", { name: "Apply" }).click();
    }
    await page.waitForURL((url) => url.searchParams.get("category") === "local-services" && url.searchParams.get("price") === "under-100000");
    await page.getByRole("heading", { level: 1, name: "Local Services" }).waitFor();
    const card = cardOf(page, title);
    await card.waitFor();
    expect(await card.innerText()).toContain("UGX 90,000");
    expect(await page.getByLabel("Price", { exact: true }).inputValue()).toBe("under-100000");
    // Every card is of the category, and under UGX 100,000.
    for (const text of await page.getByRole("list", { name: "Services" }).getByRole("listitem").allTextContents()) {
      expect(text).toContain("Local Services");
      const price = Number(/From\s*UGX ([\d,]+)/.exec(text)![1]!.replace(/,/g, ""));
      expect(price).toBeLessThan(100_000);
    }

    // Search, with two letters of the word swapped: corrected.
    const misspelt = transposed(word);
    await page.goto(appUrl("/search"));
    await waitForHydration(page, mode);
    await page.getByRole("main").getByLabel("Search", { exact: true }).fill(misspelt);
    await page.getByRole("main").getByLabel("Search", { exact: true }).press("Enter");
    await page.waitForURL((url) => url.pathname === "/search" && url.searchParams.get("q") === misspelt);
    await page.getByRole("heading", { level: 1, name: `Results for “${misspelt}”` }).waitFor();
    await page.getByText(`Showing results for “${word}”`).waitFor();
    await page.getByText(/^1 result\b/).waitFor();
    await cardOf(page, title).waitFor();

    // The gig page.
    await cardOf(page, title).getByRole("link", { name: title, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: title }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/gig/${id}`);
    expect(await page.locator(".gig-seller-line").getByRole("link", { name: "James Okello" }).getAttribute("href")).toBe("/user/james_okello");
    const image = page.getByRole("img", { name: `${title}: image 1` });
    await image.waitFor();
    const served = await page.request.get(appUrl((await image.getAttribute("src"))!));
    expect(served.status()).toBe(200);
    expect(served.headers()["content-type"]).toBe("image/webp");
    await page.getByRole("region", { name: "Basic" }).getByText("3 days delivery").waitFor();
    await page.getByRole("button", { name: "Continue with Basic (UGX 90,000)" }).waitFor();
    await page.getByRole("button", { name: "Contact Seller" }).waitFor();
    expect(await page.getByRole("button", { name: /^Continue with (Standard|Premium)/ }).count()).toBe(0);
    await page.close();
  });

  it("shows skeleton cards only while a search is loading", async () => {
    if (mode.js) {
      const page = await open(mode, appUrl("/search"));
      expect(await page.getByTestId("skeleton-card").count()).toBe(0);
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route("**/search.data*", async (route) => {
        await held;
        await route.continue();
      });
      try {
        await page.getByRole("main").getByLabel("Search", { exact: true }).fill("logo");
        await page.getByRole("main").getByLabel("Search", { exact: true }).press("Enter");
        await page.getByTestId("skeleton-card").first().waitFor();
        expect(await page.getByTestId("skeleton-card").count()).toBe(6);
        await page.getByText("Loading services…").waitFor();
        expect(await page.getByRole("list", { name: "Services" }).count()).toBe(0);
      } finally {
        release();
      }
      await page.getByRole("heading", { level: 1, name: "Results for “logo”" }).waitFor();
      await page.getByRole("list", { name: "Services" }).getByRole("listitem").first().waitFor();
      await page.getByTestId("skeleton-card").first().waitFor({ state: "detached" });
      expect(await page.getByText("Loading services…").count()).toBe(0);
      await page.close();
    } else {
      const page = await mode.page();
      for (const url of ["/search?q=logo", "/browse", "/browse?category=graphics-design&sort=price-low"]) {
        const response = await page.goto(appUrl(url));
        const html = await response!.text();
        expect(html).toContain('aria-label="Services"');
        expect(html).not.toContain("skeleton-card");
        // The page's own markup: its scripts carry the catalogue's words, the loading text among them.
        expect(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")).not.toContain("Loading services…");
        expect(await page.getByTestId("skeleton-card").count()).toBe(0);
      }
      // Nor after a filter is applied (a new page from the server).
      await page.locator("summary", { hasText: "Filters" }).click();
      await page.getByLabel("Sort by", { exact: true }).selectOption("rating");
      await page.getByRole("button", { name: "Apply" }).click();
      await page.waitForURL((url) => url.searchParams.get("sort") === "rating");
      await page.getByRole("list", { name: "Services" }).waitFor();
      expect(await page.getByTestId("skeleton-card").count()).toBe(0);
      expect(await page.content()).not.toContain("skeleton-card");
      await page.close();
    }
  });

  it("Load More walks the whole catalog without repeating a gig", async () => {
    await mode.context().clearCookies();
    const before = await visibleGigCount();
    const page = await open(mode, appUrl("/browse"));
    const start = page.url();
    const cards = page.getByRole("list", { name: "Services" }).getByRole("listitem");
    await cards.first().waitFor();
    expect(await cards.count()).toBe(12);
    const first = await cardLinks(page);
    const loadMore = page.getByRole("link", { name: "Load More" });
    let seen: string[];

    if (mode.js) {
      // Appended in place: the URL stays.
      await loadMore.click();
      await cards.nth(23).waitFor();
      expect(await cards.count()).toBe(24);
      expect(page.url()).toBe(start);
      expect((await cardLinks(page)).slice(0, 12)).toEqual(first);
      while ((await loadMore.count()) > 0) {
        const shown = await cards.count();
        await loadMore.click();
        await cards.nth(shown).waitFor();
        await page.getByRole("link", { name: "Loading…" }).waitFor({ state: "detached" });
      }
      expect(page.url()).toBe(start);
      seen = await cardLinks(page);
    } else {
      // A plain link: the next page, with other gigs.
      seen = [...first];
      let pages = 1;
      while ((await loadMore.count()) > 0) {
        const href = (await loadMore.getAttribute("href"))!;
        expect(new URL(href, start).searchParams.get("cursor")).toBeTruthy();
        await loadMore.click();
        await page.waitForURL((url) => url.pathname + url.search === href);
        await page.getByRole("link", { name: "Back to the first page" }).waitFor();
        const links = await cardLinks(page);
        expect(links.length).toBeGreaterThan(0);
        expect(links.length).toBeLessThanOrEqual(12);
        if (pages === 1) expect(links.some((l) => first.includes(l))).toBe(false);
        seen.push(...links);
        pages++;
      }
      expect(pages).toBeGreaterThanOrEqual(6);
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.every((l) => /^\/gig\/\d+$/.test(l))).toBe(true);
    const after = await visibleGigCount();
    expect(seen.length).toBeGreaterThanOrEqual(before);
    expect(seen.length).toBeLessThanOrEqual(after);
    expect(before).toBeGreaterThanOrEqual(66);
    await page.close();
  });

  it("Continue as an anonymous visitor signs in first, then shows the order", async () => {
    const { id, title } = await publishedGig();
    await mode.context().clearCookies();
    const page = await open(mode, appUrl(`/gig/${id}`));
    await page.getByRole("button", { name: "Continue with Basic (UGX 90,000)" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("redirectTo")).toBe(`/gig/${id}/order?package=basic`);
    await page.getByRole("heading", { level: 1, name: "Welcome back" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Email").fill("client@soko.test");
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Your order" }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/gig/${id}/order`);
    await page.getByRole("link", { name: title }).first().waitFor();
    const summary = await page.locator(".order-summary").innerText();
    expect(summary).toContain("Basic · 3 days delivery · 1 revision");
    expect(summary).toContain("UGX 90,000");
    expect(summary).toMatch(/Processing fee[^\n]*\s+UGX 4,500/);
    expect(summary).toMatch(/Total\s+UGX 94,500/);
    await page.getByText("Nothing has been charged yet.").waitFor();
    await page.close();
  });
});
