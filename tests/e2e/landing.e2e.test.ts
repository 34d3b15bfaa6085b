import { expect, it } from "vitest";
import { adminUrl, appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";

const categories = [
  ["Graphics & Design", "graphics-design"],
  ["Web Development", "web-development"],
  ["Writing & Translation", "writing-translation"],
  ["Video & Animation", "video-animation"],
  ["Digital Marketing", "digital-marketing"],
  ["Local Services", "local-services"],
] as const;

it("answers / with 200 and a complete page without any JavaScript", async () => {
  const res = await fetch(appUrl("/"));
  expect(res.status).toBe(200);
  const html = await res.text();
  expect(html).toContain("Browse by Category");
  expect(html).toContain("Featured Services");
  expect(html).not.toMatch(/style="/);
});

describeBothModes("Landing page", (mode) => {
  it("shows the header, the hero and the marketing sections", async () => {
    const page = await mode.page();
    const res = await page.goto(appUrl("/"));
    expect(res?.status()).toBe(200);
    expect(await page.title()).toContain("Soko");
    const nav = page.getByRole("navigation", { name: "Main" });
    // On a phone most of the header's links are in its menu.
    await nav.locator(".header-menu summary").click();
    for (const [name, href] of [
      ["Browse", "/browse"],
      ["How it works", "/help"],
      ["Sign in", "/login"],
      ["Join", "/register"],
    ]) {
      expect(await nav.getByRole("link", { name, exact: true }).getAttribute("href")).toBe(href);
    }
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toMatch(/freelancer/i);
    expect(await page.getByRole("link", { name: "Get Started" }).getAttribute("href")).toBe("/register");
    for (const heading of ["What is Soko?", "For businesses", "For freelancers", "How it works", "Why choose Soko?"]) {
      await page.locator("main").getByRole("heading", { name: heading, exact: true }).waitFor();
    }
    for (const step of ["Find a freelancer", "Discuss your project", "Pay securely", "Delivery and feedback"]) {
      await page.getByRole("heading", { name: step }).waitFor();
    }
    for (const reason of ["Local talent", "Fast delivery", "Affordable rates", "Quality work"]) {
      await page.getByRole("heading", { name: reason }).waitFor();
    }
    const footer = page.locator("footer");
    const footerText = await footer.innerText();
    expect(footerText).toContain("For clients");
    expect(footerText).toContain("For freelancers");
    expect(footerText).toContain("support@soko.ug");
    expect(footerText).toContain("Monday to Friday, 9 AM to 6 PM East Africa Time");
    expect(footerText).toContain(`© ${new Date().getFullYear()} Soko`);
    expect(await footer.getByRole("link", { name: "Terms of service" }).getAttribute("href")).toBe("/terms");
    expect(await footer.getByRole("link", { name: "Privacy policy" }).getAttribute("href")).toBe("/privacy");
    await page.close();
  });

  it("lists the six categories, each linking to its browse page with its number of services", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/"));
    const section = page.locator("section", { has: page.getByRole("heading", { name: "Browse by Category" }) });
    const cards = section.getByRole("link");
    expect(await cards.count()).toBe(6);
    for (const [i, [name, slug]] of categories.entries()) {
      const card = cards.nth(i);
      expect(await card.innerText()).toContain(name);
      expect(await card.innerText()).toMatch(/\d+ services?/);
      expect(await card.getAttribute("href")).toBe(`/browse?category=${slug}`);
    }
    await page.close();
  });

  it("shows four featured gig cards with category, seller, rating and a UGX price", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/"));
    const cards = page.locator(".gig-grid article");
    expect(await cards.count()).toBe(4);
    const categoryNames = categories.map(([name]) => name as string);
    for (let i = 0; i < 4; i++) {
      const card = cards.nth(i);
      const text = await card.innerText();
      expect(text).toMatch(/UGX \d{1,3}(,\d{3})+/);
      expect(text).toMatch(/\d\.\d \(\d+\)/);
      // textContent, not innerText: the label is upper-cased by CSS only.
      expect(categoryNames).toContain(await card.locator(".gig-category").textContent());
      expect(await card.getByRole("heading").getByRole("link").getAttribute("href")).toMatch(/^\/gig\/\d+$/);
      expect(await card.locator(".gig-seller a").getAttribute("href")).toMatch(/^\/user\/[\w.-]+$/);
    }
    await page.close();
  });

  it("shows what the database holds: a renamed featured gig appears after reload", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/"));
    const firstTitle = page.locator(".gig-grid article").first().getByRole("heading").getByRole("link");
    const gigId = Number((await firstTitle.getAttribute("href"))!.split("/").pop());
    const db = e2eDb();
    const { title: original } = await db("gigs").where({ id: gigId }).first("title");
    const renamed = `I will photograph your shop in Jinja ${mode.js ? "on" : "off"}`;
    try {
      await db("gigs").where({ id: gigId }).update({ title: renamed });
      await page.reload();
      expect(await page.locator(".gig-grid article").first().getByRole("heading").innerText()).toBe(renamed);
    } finally {
      await db("gigs").where({ id: gigId }).update({ title: original });
    }
    await page.reload();
    expect(await page.locator(".gig-grid").innerText()).not.toContain(renamed);
    await page.close();
  });

  it("submits the hero search to /search with the query", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/"));
    await waitForHydration(page, mode);
    await page.getByRole("searchbox", { name: "Search for a service" }).fill("logo design");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((url) => url.pathname === "/search");
    const url = new URL(page.url());
    expect(url.pathname).toBe("/search");
    expect(url.searchParams.get("q")).toBe("logo design");
    await page.close();
  });

  it("sends an anonymous visitor of the admin host to the admin login, with a way back to the main site", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    const res = await page.goto(adminUrl("/"));
    expect(res?.status()).toBe(200);
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Admin Login");
    expect(await page.locator(".gig-grid").count()).toBe(0);
    const back = page.getByRole("link", { name: "Back to the main site" });
    expect(new URL((await back.getAttribute("href"))!).hostname).toBe("localhost");
    await page.close();
  });
});
