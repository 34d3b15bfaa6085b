/**
 * Reviews with replies, edits and hiding (ADR 053), with JavaScript on and off: a seller answers a
 * review under it on their gig's page and a visitor reads the answer there; a buyer changes their review and then
 * deletes it from their order's page within the 7 days; an admin hides a review with a reason on the admin's
 * Reviews screen, after which the gig's page no longer shows it while its author reads the reason on their order.
 * The orders are bought and completed, and the reviews written, through the operations.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { approveOrder, deliverOrder } from "~/operations/orders.server";
import { createReview } from "~/operations/reviews.server";
import { appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { signIn } from "../support/e2e-orders";
import { createGig, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";
import { memberActor, paidTestOrder, testProviders } from "../support/orders";

const SLOW = { timeout: 120_000 };

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

describeBothModes("Reviews with replies", (mode) => {
  const tag = `${mode.js ? "on" : "off"}${randomBytes(3).toString("hex")}`;
  let seller: TestUser;
  let gigId: number;
  let gigTitle: string;
  const c = () => ({ db: e2eDb(), providers: providers.providers, sandbox: providers.sandbox });

  beforeAll(async () => {
    seller = await createUser(e2eDb(), { role: "freelancer", name: `Review Studio ${tag}`, username: `revstudio_${tag}` });
    ({ id: gigId, title: gigTitle } = await createGig(e2eDb(), { sellerId: seller.id, title: `Shop sign painting ${tag}` }));
  });

  /** A new buyer's completed order of the gig, reviewed by them. */
  async function reviewedOrder(name: string, rating: number, comment: string) {
    const buyer = await createUser(e2eDb(), { role: "client", name: `${name} ${tag}`, username: `${name.toLowerCase()}_${tag}` });
    const { orderId } = await paidTestOrder(c(), buyer, gigId);
    expect((await deliverOrder(memberActor(seller), { orderId, message: "Here it is" }, c())).ok).toBe(true);
    expect((await approveOrder(memberActor(buyer), { orderId }, c())).ok).toBe(true);
    const review = await createReview(memberActor(buyer), { gigId, orderId, rating, comment }, { db: e2eDb() });
    if (!review.ok) throw new Error(JSON.stringify(review));
    return { buyer, orderId, reviewId: review.value.id };
  }

  async function signedIn(who: { email: string }, path: string, heading: string | RegExp): Promise<Page> {
    await mode.context().clearCookies();
    await mode.context().addCookies([{ name: "soko_consent", value: "denied", url: appUrl("/") }]);
    const page = await mode.page();
    page.setDefaultTimeout(20_000);
    await page.goto(appUrl(`/login?redirectTo=${encodeURIComponent(path)}`));
    await signIn(page, mode, { email: who.email, password: DEFAULT_PASSWORD }, heading);
    return page;
  }

  it("a seller replies under a review on their gig's page, once, and a visitor reads the reply there", SLOW, async () => {
    const { reviewId } = await reviewedOrder("Akello", 4, `Lovely sign ${tag}`);
    const page = await signedIn(seller, `/gig/${gigId}`, gigTitle);
    const review = page.locator(`#review-${reviewId}`);
    await review.getByLabel("Reply to this review").fill(`Thank you, Akello ${tag}!`);
    await review.getByRole("button", { name: "Post reply" }).click();
    await page.locator(`#review-${reviewId}`).getByText(`Thank you, Akello ${tag}!`).waitFor();
    await waitForHydration(page, mode);
    // Answered: no second form under it.
    expect(await page.locator(`#review-${reviewId}`).getByLabel("Reply to this review").count()).toBe(0);
    expect(await e2eDb()("reviews").where({ id: reviewId }).first("reply")).toEqual({ reply: `Thank you, Akello ${tag}!` });

    await mode.context().clearCookies();
    await page.goto(appUrl(`/gig/${gigId}`));
    const shown = page.locator(`#review-${reviewId}`);
    await shown.getByText(`Lovely sign ${tag}`).waitFor();
    await shown.getByText("Seller's reply").waitFor();
    await shown.getByText(`Thank you, Akello ${tag}!`).waitFor();
    expect(await shown.getByLabel("Reply to this review").count()).toBe(0);
  });

  it("a buyer changes their review and then deletes it from their order's page", SLOW, async () => {
    const { buyer, orderId, reviewId } = await reviewedOrder("Okello", 5, `Quick work ${tag}`);
    const page = await signedIn(buyer, `/orders/${orderId}`, gigTitle);
    const block = page.getByRole("region", { name: "Your review" });
    await block.getByText(`Quick work ${tag}`).waitFor();
    await block.getByText(/You can change or delete your review until /).waitFor();
    await block.getByRole("link", { name: "Change review" }).click();
    await page.getByRole("heading", { level: 1, name: `Review of “${gigTitle}”` }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("2 stars").check();
    await page.getByLabel("Your review", { exact: true }).fill(`Slow in the end ${tag}`);
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByRole("region", { name: "Your review" }).getByText(`Slow in the end ${tag}`).waitFor();
    await waitForHydration(page, mode);
    const row = await e2eDb()("reviews").where({ id: reviewId }).first("rating", "comment", "edited_at");
    expect({ rating: row.rating, comment: row.comment }).toEqual({ rating: 2, comment: `Slow in the end ${tag}` });
    expect(row.edited_at).toBeInstanceOf(Date);
    await page.getByRole("region", { name: "Your review" }).getByText("edited").waitFor();

    await page.getByRole("region", { name: "Your review" }).getByRole("button", { name: "Delete review" }).click();
    // Gone, and the order may be reviewed again.
    await page.getByRole("heading", { level: 2, name: "Leave a review" }).waitFor();
    expect(await page.getByRole("region", { name: "Your review" }).count()).toBe(0);
    expect(await e2eDb()("reviews").where({ id: reviewId }).first()).toBeUndefined();
  });

  it("an admin hides a review with a reason: it leaves the gig's page and its author reads the reason on their order", SLOW, async () => {
    const { buyer, orderId, reviewId } = await reviewedOrder("Nakato", 1, `Rude words ${tag}`);
    const admin = await createUser(e2eDb(), { role: "admin", name: `Review Admin ${tag}`, username: `revadmin_${tag}` });
    const page = await signedIn(admin, `/admin/reviews?q=${encodeURIComponent(`Rude words ${tag}`)}`, "Reviews");
    const item = page.locator(`#admin-review-${reviewId}`);
    await item.getByText(`Rude words ${tag}`).waitFor();
    await item.getByLabel("Reason (its author reads it)").fill("Insults the seller");
    await item.getByRole("button", { name: "Hide review" }).click();
    await page.getByText("The review is hidden. Its author has been told why.").waitFor();
    await page
      .locator(`#admin-review-${reviewId}`)
      .getByText(/^Hidden by Review Admin .*: Insults the seller$/)
      .waitFor();
    expect(
      await e2eDb()("admin_audit_log")
        .where({ action: "review.hide", target_id: String(reviewId) })
        .count("* as n")
        .first(),
    ).toEqual({ n: 1 });

    await mode.context().clearCookies();
    await page.goto(appUrl(`/gig/${gigId}`));
    await page.getByRole("heading", { level: 2, name: "Reviews" }).waitFor();
    expect(await page.getByText(`Rude words ${tag}`).count()).toBe(0);

    const author = await signedIn(buyer, `/orders/${orderId}`, gigTitle);
    const block = author.getByRole("region", { name: "Your review" });
    await block.getByText(`Rude words ${tag}`).waitFor();
    await block.getByText("Soko's team hid this review from the gig and profile pages because it breaks our rules: Insults the seller").waitFor();
    expect(await block.getByRole("link", { name: "Change review" }).count()).toBe(0);
  });
});
