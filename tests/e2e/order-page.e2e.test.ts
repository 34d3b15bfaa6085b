/**
 * The order page on a 360×740 phone, for each party and each state: the banner at the top says where the order
 * stands, shows the next step as its main button (which works), gives the dates that matter in the member's
 * time zone, and sits with its button within the first screen. The orders are brought to each state through
 * the operations; their stored times are set here, and the expected dates computed from them.
 */
import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { approveOrder, deliverOrder, openDispute } from "~/operations/orders.server";
import { appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { createGig, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";
import { signIn as signInAs } from "../support/e2e-orders";
import { memberActor, paidTestOrder, placeTestOrder, testProviders } from "../support/orders";

const PHONE = { width: 360, height: 740 };
/** Most tests sign in as both parties, each a few page loads. */
const SLOW = { timeout: 120_000 };
const DAY_MS = 24 * 60 * 60 * 1000;

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

/** A date as the page should write it, in the member's zone (EAT is Kampala, UTC+3). */
function expected(when: Date, zone: "EAT" | "UTC") {
  const timeZone = zone === "EAT" ? "Africa/Kampala" : "UTC";
  const day = new Intl.DateTimeFormat("en-GB", { timeZone, weekday: "short", day: "numeric", month: "short" }).format(when);
  const time = new Intl.DateTimeFormat("en-GB", { timeZone, hour: "2-digit", minute: "2-digit", hour12: false }).format(when);
  return { day, time: `${time} ${zone}`, dayTime: `${day} at ${time} ${zone}` };
}

/** An instant `days` from now at 22:30 UTC: 01:30 the next day in Kampala, so the two zones name different days. */
function lateEvening(days: number) {
  const d = new Date(Date.now() + days * DAY_MS);
  d.setUTCHours(22, 30, 0, 0);
  return d;
}

describeBothModes("The order page's banner on a phone", (mode) => {
  let seller: TestUser;
  let buyer: TestUser;
  let gigId: number;
  const c = () => ({ db: e2eDb(), providers: providers.providers, sandbox: providers.sandbox });
  const order = (id: number) => e2eDb()("orders").where({ id }).first();

  beforeAll(async () => {
    const db = e2eDb();
    const tag = randomBytes(4).toString("hex");
    seller = await createUser(db, { role: "freelancer", name: `Apio Studio ${tag}`, username: `apio_${tag}` });
    buyer = await createUser(db, { role: "client", name: `Mugisha Shop ${tag}`, username: `mugisha_${tag}` });
    // The seller reads times in UTC, the buyer in EAT (the default).
    await db("users").where({ id: seller.id }).update({ time_zone: "UTC" });
    ({ id: gigId } = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Poster for a shop ${tag}`,
      packages: { basic: { priceUgx: 100_000, deliveryDays: 3, revisions: 1 } },
    }));
  });

  /** Signs in on a 360×740 page, with the privacy choice already made (as after any earlier visit). */
  async function signIn(who: TestUser): Promise<Page> {
    await mode.context().clearCookies();
    await mode.context().addCookies([{ name: "soko_consent", value: "denied", url: appUrl("/") }]);
    const page = await mode.page();
    await page.setViewportSize(PHONE);
    // Each step here is a page load of a server shared with other specs: give each more than the usual 10 s.
    page.setDefaultTimeout(20_000);
    await page.goto(appUrl("/login"));
    await signInAs(page, mode, { email: who.email, password: DEFAULT_PASSWORD });
    return page;
  }

  async function openOrder(page: Page, id: number) {
    await page.goto(appUrl(`/orders/${id}`));
    await waitForHydration(page, mode);
  }

  /** The banner, found by its title; it (and `button`, if given) lies within the first screen, unscrolled. */
  async function banner(page: Page, title: string, button?: Locator): Promise<Locator> {
    const region = page.getByRole("region", { name: title, exact: true });
    await region.waitFor();
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const box = (await region.boundingBox())!;
    expect(box.y + box.height, `the banner "${title}" ends within the first screen`).toBeLessThanOrEqual(PHONE.height);
    if (button) {
      const b = (await button.boundingBox())!;
      expect(b.y + b.height).toBeLessThanOrEqual(PHONE.height);
      expect(b.height).toBeGreaterThanOrEqual(44);
    }
    // Nothing is wider than the phone.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
    return region;
  }

  it("awaiting payment: the buyer is told to pay by the time the order expires, and the button leads to the payment", SLOW, async () => {
    const { orderId } = await placeTestOrder(c(), buyer, gigId);
    const { created_at } = await order(orderId);
    const expires = expected(new Date(new Date(created_at).getTime() + 30 * 60 * 1000), "EAT");
    const page = await signIn(buyer);
    await openOrder(page, orderId);
    const pay = page.getByRole("link", { name: "Complete payment" });
    const region = await banner(page, "Waiting for your payment", pay);
    await region.getByText(`Pay by ${expires.time} (${expires.day}), or the order is cancelled by itself.`).waitFor();
    await region.getByRole("button", { name: "Cancel order" }).waitFor();
    await pay.click();
    await page.waitForURL(appUrl(`/orders/${orderId}/pay`));
  });

  it("in progress: the seller sees the due date in UTC and the deliver button, the buyer the same date in EAT; delivering turns the banner", SLOW, async () => {
    const { orderId } = await paidTestOrder(c(), buyer, gigId);
    const due = lateEvening(4);
    await e2eDb()("orders").where({ id: orderId }).update({ due_at: due });
    const inUtc = expected(due, "UTC");
    const inEat = expected(due, "EAT");
    expect(inUtc.day).not.toBe(inEat.day);

    let page = await signIn(buyer);
    await openOrder(page, orderId);
    let region = await banner(page, `Due ${inEat.day}`);
    await region.getByText(`${seller.name} is working on your order. You will be told when it is delivered.`).waitFor();
    await region.getByText(`Due ${inEat.dayTime}.`).waitFor();
    expect(await region.getByRole("link").count()).toBe(0);
    await page.close();

    page = await signIn(seller);
    await openOrder(page, orderId);
    const deliver = page.getByRole("link", { name: "Deliver your work" });
    region = await banner(page, `Due ${inUtc.day}`, deliver);
    await region.getByText(`Deliver by ${inUtc.dayTime}.`).waitFor();
    await deliver.click();
    await page.waitForURL(/#deliver$/);
    const message = page.getByLabel("Message to the buyer");
    await message.waitFor();
    const box = (await message.boundingBox())!;
    expect(box.y, "the button brings the delivery form into view").toBeLessThan(PHONE.height);
    await message.fill("The poster, in A3.");
    await page.getByRole("button", { name: "Deliver", exact: true }).click();
    await page.getByRole("region", { name: "Delivered: waiting for the buyer", exact: true }).waitFor();
    expect(await order(orderId)).toMatchObject({ status: "delivered" });
    const { delivered_at } = await order(orderId);
    const auto = expected(new Date(new Date(delivered_at).getTime() + 3 * DAY_MS), "UTC");
    await page.getByText(`With no answer it completes by itself on ${auto.dayTime}, and you are paid.`).waitFor();
  });

  it("delivered: the buyer approves from the banner, or asks for changes; then the seller sees the changes asked and the new due date", SLOW, async () => {
    const { orderId } = await paidTestOrder(c(), buyer, gigId);
    expect((await deliverOrder(memberActor(seller), { orderId, message: "Poster attached." }, { db: e2eDb() })).ok).toBe(true);
    const deliveredAt = lateEvening(-1);
    await e2eDb()("orders").where({ id: orderId }).update({ delivered_at: deliveredAt });
    const auto = expected(new Date(deliveredAt.getTime() + 3 * DAY_MS), "EAT");

    let page = await signIn(buyer);
    await openOrder(page, orderId);
    const approve = page.getByRole("link", { name: "Approve delivery…" });
    const region = await banner(page, "Delivered: check the work", approve);
    await region.getByText(`${seller.name} delivered on ${expected(deliveredAt, "EAT").day}.`, { exact: false }).waitFor();
    await region.getByText(`Completes by itself on ${auto.dayTime} unless you ask for changes.`).waitFor();
    // Approve opens the confirmation that names the amount; nothing is released by the tap alone.
    await approve.click();
    await page.getByText(`Release UGX 100,000 to ${seller.name}? This cannot be undone.`).waitFor();
    expect(await order(orderId)).toMatchObject({ status: "delivered" });

    await openOrder(page, orderId);
    await page.getByRole("link", { name: "Ask for changes" }).click();
    await page.waitForURL(/#revision$/);
    await page.getByLabel("What should change?").fill("A bigger shop name, please.");
    await page.getByRole("button", { name: "Request revision" }).click();
    await page.getByText("You asked for changes.", { exact: false }).waitFor();
    expect(await order(orderId)).toMatchObject({ status: "in_progress", revisions_used: 1 });
    await page.close();

    const { due_at } = await order(orderId);
    const due = expected(new Date(due_at), "UTC");
    page = await signIn(seller);
    await openOrder(page, orderId);
    const deliver = page.getByRole("link", { name: "Deliver the changes" });
    const asked = await banner(page, `Due ${due.day}`, deliver);
    await asked.getByText("The buyer asked for changes: A bigger shop name, please.").waitFor();
    await asked.getByText(`Deliver by ${due.dayTime}.`).waitFor();
  });

  it("late: the seller sees the order as late, and the buyer may cancel it from the banner", SLOW, async () => {
    const { orderId } = await paidTestOrder(c(), buyer, gigId);
    const due = lateEvening(-3);
    await e2eDb()("orders").where({ id: orderId }).update({ due_at: due });

    let page = await signIn(seller);
    await openOrder(page, orderId);
    const region = await banner(page, `Late: was due ${expected(due, "UTC").day}`, page.getByRole("link", { name: "Deliver your work" }));
    await region.getByText(`It was due ${expected(due, "UTC").dayTime}: deliver as soon as you can.`).waitFor();
    await page.close();

    page = await signIn(buyer);
    await openOrder(page, orderId);
    const cancel = page.getByRole("link", { name: "Cancel for a refund…" });
    await banner(page, `Late: was due ${expected(due, "EAT").day}`, cancel);
    await cancel.click();
    await page.getByRole("button", { name: "Yes, cancel the order" }).waitFor();
    expect(await order(orderId)).toMatchObject({ status: "in_progress" });
  });

  it("completed: the buyer is asked for a review, the seller told when the earnings clear", SLOW, async () => {
    const { orderId } = await paidTestOrder(c(), buyer, gigId);
    expect((await deliverOrder(memberActor(seller), { orderId, message: "Done." }, { db: e2eDb() })).ok).toBe(true);
    expect((await approveOrder(memberActor(buyer), { orderId }, { db: e2eDb() })).ok).toBe(true);
    const completedAt = lateEvening(-2);
    await e2eDb()("orders").where({ id: orderId }).update({ completed_at: completedAt });

    let page = await signIn(seller);
    await openOrder(page, orderId);
    let region = await banner(page, "Completed");
    await region.getByText(`The order was completed on ${expected(completedAt, "UTC").day}: you earn UGX 80,000.`).waitFor();
    await region
      .getByText(`Your earnings clear on ${expected(new Date(completedAt.getTime() + 14 * DAY_MS), "UTC").day}; then you can withdraw them.`)
      .waitFor();
    await page.close();

    page = await signIn(buyer);
    await openOrder(page, orderId);
    const review = page.getByRole("link", { name: "Leave a review" });
    region = await banner(page, "Completed", review);
    await region.getByText(`The order was completed on ${expected(completedAt, "EAT").day} and the payment released to ${seller.name}.`).waitFor();
    await review.click();
    await page.waitForURL(/#review$/);
    await page.getByLabel("5 stars").check();
    await page.getByRole("button", { name: "Submit review" }).click();
    await page.getByRole("list", { name: "Timeline" }).getByText("Buyer left a review").waitFor();
    expect(await page.getByRole("link", { name: "Leave a review" }).count()).toBe(0);
  });

  it("disputed: both parties read who opened it and that an admin decides", SLOW, async () => {
    const { orderId } = await paidTestOrder(c(), buyer, gigId);
    expect((await openDispute(memberActor(buyer), { orderId, reason: "The seller stopped answering." }, { db: e2eDb() })).ok).toBe(true);
    const { created_at } = await e2eDb()("disputes").where({ order_id: orderId }).first();
    for (const [who, zone, opener] of [
      [buyer, "EAT", "You"],
      [seller, "UTC", "The buyer"],
    ] as const) {
      const page = await signIn(who);
      await openOrder(page, orderId);
      const button = who === seller ? page.getByRole("link", { name: "Deliver your work" }) : undefined;
      const region = await banner(page, "This order is in dispute.", button);
      await region.getByText(`${opener} opened it on ${expected(new Date(created_at), zone).day}: The seller stopped answering.`).waitFor();
      await region.getByText("An admin reads both sides and decides what happens to the payment", { exact: false }).waitFor();
      if (who === buyer) expect(await region.getByRole("link").count()).toBe(0);
      await page.close();
    }
  });
});
