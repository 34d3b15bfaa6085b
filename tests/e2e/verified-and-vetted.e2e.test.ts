/**
 * Verified emails and vetted sellers (ADR 051), with JavaScript on and off: a new freelancer registers, is told
 * to verify, cannot publish (the reason above the form, the gig kept), follows the link mailed to them (read
 * from the dev outbox), publishes, and the "Email verified" badge shows on their profile and gig page; an admin
 * vets a freelancer on the Users screen with a note, and a buyer filters the search for vetted sellers.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { adminUrl, allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { DEMO_ADMIN, newPerson, signIn } from "../support/e2e-orders";
import { createGig, createUser } from "../support/factories";

async function open(page: Page, mode: Mode, url: string) {
  await page.goto(url);
  await waitForHydration(page, mode);
}

async function fillGig(page: Page, title: string) {
  await page.getByLabel("Title", { exact: true }).fill(title);
  await page.getByLabel("Category", { exact: true }).selectOption("local-services");
  await page.getByLabel("Description", { exact: true }).fill("A day of event photography, edited and delivered online.");
  await page.getByLabel("Basic price (UGX)", { exact: true }).fill("150000");
  await page.getByLabel("Basic delivery", { exact: true }).selectOption("3");
}

describeBothModes("Verified emails and vetted sellers", (mode) => {
  const tag = randomBytes(3).toString("hex");

  it("a new freelancer verifies their email through the mailed link before publishing, and the badge shows", async () => {
    allowStatus(409, "publishing before the email is verified");
    await mode.context().clearCookies();
    const page = await mode.page();
    page.setDefaultTimeout(30_000); // sign-in and joining hash passwords: slow on a busy machine
    const seller = { name: `Nakato Verify ${tag}`, email: `nakato_${tag}@verify.example`, password: "nakato-password-2026" };
    await open(page, mode, appUrl("/freelancer/register"));
    await page.getByLabel("Full name").fill(seller.name);
    await page.getByLabel("Email").fill(seller.email);
    await page.getByLabel("Password", { exact: true }).fill(seller.password);
    await page.getByLabel("Confirm password").fill(seller.password);
    await page.getByLabel("Skills").fill("Photography, Events");
    await page.getByLabel("Years of experience").fill("3");
    await page.getByLabel("Professional description").fill("Event and portrait photographer based in Kampala.");
    await page.getByLabel(/I agree to the/).check();
    await page.getByRole("button", { name: "Join as a seller" }).click();
    await page.getByText("Verify your email.").waitFor();
    await page.getByText(`We sent a link to ${seller.email}`).waitFor();

    // Publishing waits for the email; the gig as typed stays on the form.
    const title = `I will photograph your wedding ${tag}`;
    await open(page, mode, appUrl("/gig/create"));
    await fillGig(page, title);
    await page.getByRole("button", { name: "Publish Gig" }).click();
    await page.getByText("Verify your email before publishing").waitFor();
    expect(await page.getByLabel("Title", { exact: true }).inputValue()).toBe(title);
    expect(await e2eDb()("gigs").where({ title }).first("id")).toBeUndefined();

    // The link mailed at joining, from the outbox: one click on its page verifies the address.
    await page.goto(appUrl("/dev/outbox"));
    const link = await page
      .getByRole("article")
      .filter({ hasText: `To: ${seller.email}` })
      .first()
      .getByRole("link")
      .getAttribute("href");
    expect(link).toMatch(/\/auth\/verify-email\?token=[\w-]+$/);
    await open(page, mode, link!);
    await page.getByRole("heading", { level: 1, name: "Confirm your email" }).waitFor();
    await page.getByRole("button", { name: "Verify my email" }).click();
    await page.getByRole("heading", { level: 1, name: "Your email is verified" }).waitFor();
    expect(new URL(page.url()).search).toBe("?verified=1");
    const user = await e2eDb()("users").where({ email: seller.email }).first("username", "email_verified_at");
    expect(user.email_verified_at).toBeInstanceOf(Date);
    // The same link again: used.
    allowStatus(410, "the used link is opened again");
    await open(page, mode, link!);
    await page.getByRole("heading", { level: 1, name: "This link does not work" }).waitFor();

    await open(page, mode, appUrl("/gig/create"));
    expect(await page.getByText("Verify your email.").count()).toBe(0);
    await fillGig(page, title);
    await page.getByRole("button", { name: "Publish Gig" }).click();
    await page.getByText("Your gig is published: buyers can find it now.").waitFor();

    const gig = await e2eDb()("gigs").where({ title }).first("id", "status");
    expect(gig.status).toBe("published");
    const visitor = await newPerson(mode);
    await open(visitor.page, mode, appUrl(`/user/${user.username}`));
    await visitor.page.getByRole("list", { name: "Checks" }).getByText("Email verified").waitFor();
    expect(await visitor.page.getByText("Phone verified").count()).toBe(0);
    await open(visitor.page, mode, appUrl(`/gig/${gig.id}`));
    await visitor.page.getByRole("list", { name: "Checks" }).getByText("Email verified").waitFor();
    await visitor.close();
    await page.close();
  }, 120_000);

  it("an admin vets a freelancer with a note, and a buyer finds only vetted sellers' gigs with the filter", async () => {
    const db = e2eDb();
    const word = `kingfisher${tag}`;
    const vetted = await createUser(db, { role: "freelancer", name: `Vetted Seller ${tag}`, username: `vetted_${tag}` });
    const other = await createUser(db, { role: "freelancer", name: `Other Seller ${tag}`, username: `other_${tag}` });
    const mine = await createGig(db, { sellerId: vetted.id, title: `Portraits by the lake ${word}` });
    const theirs = await createGig(db, { sellerId: other.id, title: `Sketches by the lake ${word}` });

    await mode.context().clearCookies();
    const page = await mode.page();
    page.setDefaultTimeout(30_000); // sign-in and joining hash passwords: slow on a busy machine
    await open(page, mode, adminUrl("/users"));
    await signIn(page, mode, DEMO_ADMIN, "User management");
    await page.getByLabel("Search").fill(`vetted_${tag}`);
    if (!mode.js) await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((url) => url.searchParams.get("q") === `vetted_${tag}`);
    const row = page.getByRole("row", { name: new RegExp(vetted.name) });
    await row.getByText(`Vet ${vetted.name}`).click();
    await row.getByLabel("What you checked in their portfolio").fill("Ten portraits checked against the client's reviews.");
    await row.getByRole("button", { name: "Mark vetted" }).click();
    await page
      .getByRole("row", { name: new RegExp(vetted.name) })
      .getByText("Vetted", { exact: true })
      .waitFor();
    expect(await db("users").where({ id: vetted.id }).first("vetted_note")).toEqual({ vetted_note: "Ten portraits checked against the client's reviews." });
    expect(
      await db("admin_audit_log")
        .where({ action: "user.vet", target_id: String(vetted.id) })
        .first("details"),
    ).toEqual({
      details: { note: "Ten portraits checked against the client's reviews." },
    });

    const buyer = await newPerson(mode);
    await open(buyer.page, mode, appUrl(`/search?q=${word}`));
    await buyer.page.getByRole("link", { name: theirs.title }).first().waitFor();
    await buyer.page.getByRole("link", { name: mine.title }).first().waitFor();
    await buyer.page.getByText(/^Filters/).click();
    await buyer.page.getByLabel("Vetted sellers only").check();
    await buyer.page.getByRole("button", { name: "Apply" }).click();
    await buyer.page.waitForURL((url) => url.searchParams.get("vetted") === "1");
    await buyer.page.getByRole("link", { name: mine.title }).first().waitFor();
    expect(await buyer.page.getByRole("link", { name: theirs.title }).count()).toBe(0);
    await open(buyer.page, mode, appUrl(`/gig/${mine.id}`));
    await buyer.page.getByRole("list", { name: "Checks" }).getByText("Vetted by Soko").waitFor();
    await buyer.close();
    await page.close();
  }, 120_000);
});
