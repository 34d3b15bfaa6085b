/**
 * The gig page as a buyer meets it, with JavaScript on and off: on a 360×740 phone the packages are tabs with one
 * Continue, the price and Continue on the first screen; on a 1366×900 screen the package panel sits beside the
 * description and stays in view while it scrolls. The seller card shows the seller's own facts; a gig without
 * images shows its category's placeholder, never its title a second time. And browse's filters behind their
 * Filters button.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";

const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1366, height: 900 };

async function box(page: Page, selector: string) {
  const b = await page.locator(selector).boundingBox();
  if (!b) throw new Error(`${selector} is not shown`);
  return b;
}

describeBothModes("Gig page", (mode) => {
  let gig: { id: number; title: string };
  let bare: { id: number; title: string };
  let seller: TestUser;
  let buyer: TestUser;
  const tag = randomBytes(4).toString("hex");

  beforeAll(async () => {
    const db = e2eDb();
    seller = await createUser(db, { role: "freelancer", name: `Nakato Designs ${tag}` });
    await db("users")
      .where({ id: seller.id })
      .update({
        level: "top_rated",
        rating: 4.8,
        reviews_count: 37,
        response_time_hours: 2,
        years_experience: 6,
        portfolio_url: "https://nakato.example/work",
        languages: ["English", "Luganda"],
        location: "Kampala",
        created_at: new Date("2025-03-10T09:00:00Z"),
      });
    buyer = await createUser(db, { role: "client", name: `Okello Buyer ${tag}` });
    gig = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Shop signboard design ${tag}`,
      // Long enough that the page scrolls well past the package panel on a wide screen.
      description: Array.from({ length: 60 }, (_, i) => `Line ${i + 1}: sketches, colours and the final files for your shop.`).join("\n"),
      packages: {
        basic: { priceUgx: 80_000, deliveryDays: 3, revisions: 1, features: ["One concept"] },
        standard: { priceUgx: 150_000, deliveryDays: 7, revisions: 2, features: ["Two concepts"] },
        premium: { priceUgx: 300_000, deliveryDays: 7, revisions: 5, features: ["Three concepts", "Print files"] },
      },
    });
    bare = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Plain flyer ${tag}`,
      description: "A flyer for your event.",
      packages: { basic: { priceUgx: 60_000, deliveryDays: 3 } },
    });
  });

  /** The gig page at this size, as a visitor who has answered the privacy question (no banner above the page). */
  async function visit(viewport: { width: number; height: number }, path = `/gig/${gig.id}`, session?: string) {
    await mode.context().clearCookies();
    await mode
      .context()
      .addCookies([
        { name: "soko_consent", value: "denied", url: appUrl("/") },
        ...(session ? [{ name: "soko_session", value: session, url: appUrl("/") }] : []),
      ]);
    const page = await mode.page();
    await page.setViewportSize(viewport);
    await page.goto(appUrl(path));
    await waitForHydration(page, mode);
    return page;
  }

  it("on a phone: package tabs, the price and Continue on the first screen, nothing wider than the screen", async () => {
    const page = await visit(PHONE);
    const price = page.locator(".pkg-price:visible");
    const cont = page.getByRole("button", { name: /^Continue/ });
    expect(await price.innerText()).toBe("UGX 80,000");
    expect(await cont.count()).toBe(1);
    for (const b of [await price.boundingBox(), await cont.boundingBox()]) {
      expect(b!.y + b!.height).toBeLessThanOrEqual(PHONE.height);
      expect(b!.height).toBeGreaterThanOrEqual(24);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    // Three tabs, each a 44 px target; Basic is chosen first.
    const tabs = page.locator(".pkg-tabs label");
    expect(await tabs.allInnerTexts()).toEqual(["Basic", "Standard", "Premium"]);
    for (const t of await tabs.all()) expect((await t.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await page.getByRole("radio", { name: "Basic" }).isChecked()).toBe(true);
    await page.getByRole("region", { name: "Basic" }).getByText("3 days delivery · 1 revision").waitFor();
    await cont.and(page.getByRole("button", { name: "Continue with Basic (UGX 80,000)" })).waitFor();

    // Switching is in place: no request, with or without JavaScript.
    const requests: string[] = [];
    page.on("request", (r) => requests.push(r.url()));
    await tabs.filter({ hasText: "Premium" }).click();
    expect(await page.getByRole("radio", { name: "Premium" }).isChecked()).toBe(true);
    expect(await price.innerText()).toBe("UGX 300,000");
    await page.getByRole("region", { name: "Premium" }).getByText("7 days delivery · 5 revisions").waitFor();
    await page.getByText("Print files").waitFor();
    expect(await page.getByText("One concept").isVisible()).toBe(false);
    expect(await page.getByRole("region", { name: "Basic" }).count()).toBe(0);
    await page.getByRole("button", { name: "Continue with Premium (UGX 300,000)" }).waitFor();
    expect(await page.getByRole("button", { name: /^Continue with Basic/ }).count()).toBe(0);
    expect(requests).toEqual([]);

    // A visitor signs in first, and then lands on the order for that package.
    await page.getByRole("button", { name: "Continue with Premium (UGX 300,000)" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("redirectTo")).toBe(`/gig/${gig.id}/order?package=premium`);
  }, 60_000);

  it("Continue goes to checkout with the chosen package", async () => {
    const page = await visit(PHONE, `/gig/${gig.id}`, await createSession(e2eDb(), buyer.id));
    await page.locator(".pkg-tabs label", { hasText: "Standard" }).click();
    await page.getByRole("button", { name: "Continue with Standard (UGX 150,000)" }).click();
    await page.getByRole("heading", { level: 1, name: "Your order", exact: true }).waitFor();
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/gig/${gig.id}/order?package=standard`);
    const summary = await page.locator(".order-summary").innerText();
    expect(summary).toContain("Standard · 7 days delivery · 2 revisions");
    expect(summary).toContain("UGX 150,000");
  });

  it("on a wide screen the package panel is beside the description and stays in view while scrolling", async () => {
    const page = await visit(DESKTOP);
    // Beside the column with the images, the description and the seller card, from its top.
    const panel = await box(page, ".gig-buy");
    const column = await box(page, ".gig-main");
    expect(panel.x).toBeGreaterThanOrEqual(column.x + column.width);
    expect(panel.y).toBeLessThan(column.y + 100);
    expect((await box(page, ".gig-description")).x).toBe(column.x);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(DESKTOP.width);

    // Scrolled down to the reviews: the panel, with its price and Continue, is still on screen.
    await page.locator("#reviews").scrollIntoViewIfNeeded();
    expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(1000);
    const stuck = await box(page, ".gig-buy");
    expect(stuck.y).toBeGreaterThanOrEqual(0);
    expect(stuck.y + stuck.height).toBeLessThanOrEqual(DESKTOP.height);
    const cont = await page.getByRole("button", { name: "Continue with Basic (UGX 80,000)" }).boundingBox();
    expect(cont!.y).toBeGreaterThanOrEqual(0);
    expect(cont!.y + cont!.height).toBeLessThanOrEqual(DESKTOP.height);
    // The escrow line is beside the button.
    const escrow = await box(page, ".escrow-note");
    expect(escrow.y - (cont!.y + cont!.height)).toBeLessThan(24);
    expect(await page.locator(".escrow-note").innerText()).toMatch(/holds your payment/);
  });

  it("the seller card shows the seller's own facts, and Contact Seller starts the conversation", async () => {
    const page = await visit(PHONE);
    const card = page.getByRole("region", { name: "About the seller" });
    await card.getByRole("link", { name: seller.name }).waitFor();
    expect(await card.getByRole("link", { name: seller.name }).getAttribute("href")).toBe(`/user/${seller.username}`);
    const text = await card.innerText();
    expect(text).toContain("Top Rated");
    expect(text).toContain("Kampala");
    expect(text).toMatch(/Rating\s+★★★★★ 4\.8 \(37\)/);
    // Two hours is said in words (ADR 049).
    expect(text).toMatch(/Response time\s+Within a few hours/);
    expect(text).toMatch(/Experience\s+6 years/);
    expect(await card.getByRole("link", { name: "nakato.example/work" }).getAttribute("rel")).toBe("nofollow ugc noopener");
    expect(text).toMatch(/Member since\s+Mar 2025/);
    expect(text).toMatch(/Languages\s+English, Luganda/);
    await card.getByRole("button", { name: "Contact Seller" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("redirectTo")).toBe(`/messages?to=${encodeURIComponent(seller.username)}&gig=${gig.id}`);

    // A signed-in buyer's Contact Seller opens the conversation with the seller.
    const member = await visit(PHONE, `/gig/${gig.id}`, await createSession(e2eDb(), buyer.id));
    await member.getByRole("region", { name: "About the seller" }).getByRole("button", { name: "Contact Seller" }).click();
    await member.waitForURL((url) => /^\/messages\/conv_\w+$/.test(url.pathname));
  }, 60_000);

  it("a gig without images shows its category's placeholder, and its title once, on its page and its card", async () => {
    const page = await visit(PHONE, `/gig/${bare.id}`);
    const main = page.getByRole("main");
    expect(await main.locator(".gig-ph").innerText()).toBe("GD");
    expect(await main.locator("img").count()).toBe(0);
    expect((await main.innerText()).split(bare.title).length - 1).toBe(1);
    // One package: no tabs, its price and Continue.
    expect(await page.locator(".pkg-tabs").count()).toBe(0);
    await page.getByRole("button", { name: "Continue with Basic (UGX 60,000)" }).waitFor();

    await page.goto(appUrl(`/search?q=${encodeURIComponent(`flyer ${tag}`)}`));
    const card = page.getByRole("list", { name: "Services" }).getByRole("listitem").filter({ hasText: bare.title });
    expect(await card.locator(".gig-ph").innerText()).toBe("GD");
    expect((await card.innerText()).split(bare.title).length - 1).toBe(1);
  });
});

describeBothModes("Browse filters", (mode: Mode) => {
  it("sit behind a Filters button on a phone, work and keep their values", async () => {
    await mode.context().clearCookies();
    await mode.context().addCookies([{ name: "soko_consent", value: "denied", url: appUrl("/") }]);
    const page = await mode.page();
    await page.setViewportSize(PHONE);
    await page.goto(appUrl("/browse"));
    await waitForHydration(page, mode);
    const filters = page.locator("summary", { hasText: "Filters" });
    const category = page.getByLabel("Category", { exact: true });
    const rating = page.getByLabel("Rating", { exact: true });
    const keyword = page.getByRole("main").getByLabel("Search", { exact: true });
    expect(await category.isVisible()).toBe(false);
    expect(await keyword.isVisible()).toBe(true);
    // The keyword box is a field like the others: a 44 px target with the same border.
    expect((await keyword.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    const border = (el: Element) => getComputedStyle(el).borderTopColor;
    expect(await keyword.evaluate(border)).toBe(await category.evaluate(border));
    expect((await filters.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);

    await filters.click();
    expect(await category.isVisible()).toBe(true);
    expect(await rating.locator("option").allInnerTexts()).toEqual(["Any rating", "4.5 and up", "4.0 and up", "3.5 and up"]);
    expect(await page.getByLabel("Delivery", { exact: true }).locator("option").allInnerTexts()).toEqual([
      "Any time",
      "Within 24 hours",
      "Up to 3 days",
      "Up to 7 days",
    ]);

    await category.selectOption("graphics-design");
    if (mode.js) await page.waitForURL((url) => url.searchParams.get("category") === "graphics-design");
    await rating.selectOption("4.5");
    if (!mode.js) await page.getByRole("button", { name: "Apply" }).click();
    await page.waitForURL((url) => url.searchParams.get("category") === "graphics-design" && url.searchParams.get("rating") === "4.5");
    await page.getByRole("heading", { level: 1, name: "Graphics & Design" }).waitFor();
    await page.locator("summary", { hasText: "Filters (2)" }).waitFor();
    for (const text of await page.getByRole("list", { name: "Services" }).getByRole("listitem").allInnerTexts()) {
      expect(text).toMatch(/Graphics & Design/i);
      expect(Number(/★\s*([\d.]+)/.exec(text)![1])).toBeGreaterThanOrEqual(4.5);
    }

    // Loaded again, the filters show what is applied.
    await page.reload();
    await waitForHydration(page, mode);
    if (!(await category.isVisible())) await page.locator("summary", { hasText: "Filters (2)" }).click();
    expect(await category.inputValue()).toBe("graphics-design");
    expect(await rating.inputValue()).toBe("4.5");
    await page.getByRole("link", { name: "Clear filters" }).click();
    await page.waitForURL((url) => url.pathname === "/browse" && url.search === "");
    await page.locator("summary", { hasText: /^Filters$/ }).waitFor();
  }, 60_000);
});
