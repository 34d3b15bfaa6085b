/**
 * Saved sellers and gigs and the freelancer directory (ADR 052), with JavaScript on and off: a client saves a
 * seller from their profile and a gig from its card there (the heart says it is pressed), finds both on
 * /saved and the seller in the dashboard's "Saved sellers"; then finds a vetted seller in /freelancers with the
 * vetted filter and pages through the directory with its Next and Previous links.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createUser, DEFAULT_PASSWORD } from "../support/factories";

async function open(page: Page, mode: Mode, path: string) {
  await page.goto(appUrl(path));
  await waitForHydration(page, mode);
}

async function signIn(page: Page, mode: Mode, email: string, to: string) {
  await open(page, mode, `/login?redirectTo=${encodeURIComponent(to)}`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => url.pathname === to.split("?")[0]);
  await waitForHydration(page, mode);
}

describeBothModes("Saved sellers and the directory", (mode) => {
  const tag = mode.js ? "on" : "off";

  it("saves a seller from their profile and a gig from its card, and finds both on /saved and the dashboard", async () => {
    await mode.context().clearCookies();
    const stamp = Date.now();
    const seller = await createUser(e2eDb(), { role: "freelancer", name: `Heart Seller ${tag}`, email: `heart.seller.${tag}.${stamp}@example.ug` });
    const gig = await createGig(e2eDb(), { sellerId: seller.id, title: `Heartfelt logo ${tag} ${stamp}` });
    const client = await createUser(e2eDb(), { role: "client", name: `Heart Client ${tag}`, email: `heart.client.${tag}.${stamp}@example.ug` });
    const page = await mode.page();

    // A visitor's heart asks them to sign in, and brings them back to the profile.
    await open(page, mode, `/user/${seller.username}`);
    await page.getByRole("link", { name: "Sign in to save" }).click();
    await page.waitForURL((url) => url.pathname === "/login");
    expect(new URL(page.url()).searchParams.get("redirectTo")).toBe(`/user/${seller.username}`);

    await signIn(page, mode, client.email, `/user/${seller.username}`);
    const sellerHeart = page.getByRole("button", { name: `Save the seller ${seller.name}` });
    expect(await sellerHeart.getAttribute("aria-pressed")).toBe("false");
    await sellerHeart.click();
    await page.waitForFunction(
      (name) => document.querySelector(`button[aria-label="${name}"]`)?.getAttribute("aria-pressed") === "true",
      `Save the seller ${seller.name}`,
    );
    expect(new URL(page.url()).pathname).toBe(`/user/${seller.username}`);
    await expect
      .poll(() =>
        e2eDb()("saved_sellers")
          .where({ user_id: client.id, seller_id: seller.id })
          .count("* as n")
          .first()
          .then((r) => Number(r?.n)),
      )
      .toBe(1);

    // The gig's card, among the seller's gigs on the same profile.
    const gigHeart = page.getByRole("button", { name: `Save the gig “${gig.title}”` });
    await gigHeart.click();
    await page.waitForFunction(
      (name) => document.querySelector(`button[aria-label="${name}"]`)?.getAttribute("aria-pressed") === "true",
      `Save the gig “${gig.title}”`,
    );
    await expect
      .poll(() =>
        e2eDb()("saved_gigs")
          .where({ user_id: client.id, gig_id: gig.id })
          .count("* as n")
          .first()
          .then((r) => Number(r?.n)),
      )
      .toBe(1);

    await open(page, mode, "/saved");
    await page.getByRole("list", { name: "Saved gigs" }).getByRole("link", { name: gig.title }).waitFor();
    await page.getByRole("link", { name: /^Saved sellers/ }).click();
    await page.getByRole("list", { name: "Saved sellers" }).getByRole("link", { name: seller.name }).waitFor();

    await open(page, mode, "/dashboard");
    const figure = page.locator(".stat-card").filter({ hasText: "Saved sellers" });
    expect(await figure.innerText()).toContain("1");

    // Unsaved from /saved: gone from the list.
    await open(page, mode, "/saved?tab=sellers");
    await page.getByRole("button", { name: `Save the seller ${seller.name}` }).click();
    await expect
      .poll(() =>
        e2eDb()("saved_sellers")
          .where({ user_id: client.id })
          .count("* as n")
          .first()
          .then((r) => Number(r?.n)),
      )
      .toBe(0);
    await page.close();
  });

  it("finds a vetted seller with the vetted filter and pages through the directory", async () => {
    await mode.context().clearCookies();
    const stamp = Date.now();
    const skill = `Kiteboard${tag}${stamp}`;
    const admin = await createUser(e2eDb(), { role: "admin" });
    const members = [];
    for (let i = 0; i < 23; i++) {
      const u = await createUser(e2eDb(), { role: "freelancer", name: `Directory Seller ${tag} ${i}` });
      await e2eDb()("users")
        .where({ id: u.id })
        .update({ skills: [skill], rating: 4 + (i % 10) / 10, ...(i === 7 ? { vetted_at: new Date(), vetted_by: admin.id } : {}) });
      members.push(u);
    }
    const page = await mode.page();
    await open(page, mode, "/freelancers");
    await page.getByLabel("Skill").fill(skill);
    await page.getByLabel("Vetted freelancers only").check();
    await page.getByRole("button", { name: "Show freelancers" }).click();
    await page.waitForURL((url) => url.searchParams.get("vetted") === "1");
    const results = page.getByRole("list", { name: "Freelancers" });
    await results.getByRole("link", { name: members[7]!.name, exact: true }).waitFor();
    expect(await results.getByRole("listitem").count()).toBe(1);
    await results.getByText("Vetted").first().waitFor();

    // All of them, 20 a page: Next shows the rest, Previous the first page again.
    await open(page, mode, `/freelancers?skill=${encodeURIComponent(skill)}`);
    const names = () => results.getByRole("heading").allInnerTexts();
    const first = await names();
    expect(first).toHaveLength(20);
    await page.getByRole("link", { name: "Next" }).click();
    await page.waitForURL((url) => url.searchParams.has("cursor"));
    await waitForHydration(page, mode);
    const second = await names();
    expect(second).toHaveLength(3);
    expect(new Set([...first, ...second]).size).toBe(23);
    await page.getByRole("link", { name: "Previous" }).click();
    await page.waitForURL((url) => url.searchParams.has("before"));
    await waitForHydration(page, mode);
    expect(await names()).toEqual(first);
    await page.close();
  });
});
