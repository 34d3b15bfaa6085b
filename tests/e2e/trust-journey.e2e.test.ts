/**
 * The trust-and-reach journey end to end, with JavaScript on and off, everyone on a phone (360×740) but the
 * admin (a laptop): a new freelancer joins, follows the link mailed to them (read from /dev/outbox), verifies a
 * +256 phone with the texted code and publishes a gig through the form; a client orders it and pays in the
 * payment sandbox, and the freelancer's new-order text is in the SMS sandbox (the outbox page and sms_messages);
 * ten completed orders and 90 days on Soko later (a test clock: dates in the past), the platform's daily
 * recomputation makes them Level 1 (dashboard, profile, notification); an admin vets them; the client reviews a
 * completed order, the freelancer replies under it, and the client saves the seller, finds them on /saved and in
 * /freelancers with the vetted filter, and reads the reply on their profile and gig page.
 */
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { orderNumber } from "~/domain/order-rules";
import { systemActor } from "~/operations/core.server";
import { recomputeSellerLevel } from "~/operations/seller-levels.server";
import { adminUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { DEMO_ADMIN, joinAsFreelancer, open, signIn, timeline, type Person } from "../support/e2e-orders";
import { createCompletedOrder, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";

const DAY = 24 * 60 * 60 * 1000;
const PHONE = { width: 360, height: 740 };
const LAPTOP = { width: 1280, height: 800 };
const SLOW = { timeout: 120_000 };

/** A person with a browser of their own in this pass (their own cookies), on a phone unless told. */
async function person(mode: Mode, viewport = PHONE): Promise<Person> {
  const context = await mode.context().browser()!.newContext({ javaScriptEnabled: mode.js, viewport });
  // Joining and signing in hash passwords: slow on a busy machine.
  context.setDefaultTimeout(30_000);
  return { page: await context.newPage(), close: () => context.close() };
}

/** Nothing on the page is wider than the phone. */
async function fitsThePhone(page: Page) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

/** The newest article of the dev outbox that matches, read as a developer would, from a fresh outbox page. */
async function fromOutbox(page: Page, mode: Mode, article: (page: Page) => Locator): Promise<Locator> {
  await open(page, mode, "/dev/outbox");
  await page.getByRole("heading", { level: 1, name: "Outbox" }).waitFor();
  return article(page).first();
}

/** Waits until the heart's button says it is pressed (the server's answer, with JavaScript or without). */
async function pressed(page: Page, label: string) {
  await page.waitForFunction((name) => document.querySelector(`button[aria-label="${name}"]`)?.getAttribute("aria-pressed") === "true", label);
}

describeBothModes("Trust and reach journey", (mode) => {
  // Each pass its own people, numbers and words.
  const stamp = Date.now();
  const tag = `${mode.js ? "on" : "off"}${stamp.toString(36)}`;
  const skill = `Dronework${tag}`;
  const seller = {
    name: `Nalwoga Trust ${tag}`,
    email: `nalwoga.${tag}@trust.example`,
    password: `trust-journey-${tag}`,
    skills: `Photography, ${skill}`,
    description: "Wedding and event photographer in Kampala, with a drone for the wide shots.",
  };
  // A Ugandan mobile number of this pass: 077 on, 078 off, then the clock's last seven digits.
  const local = `07${mode.js ? 7 : 8}${String(stamp % 10_000_000).padStart(7, "0")}`;
  const e164 = `+256${local.slice(1)}`;
  // At most 40 characters, so a text quotes it whole.
  const title = `Wedding photos in Kampala ${tag}`;
  const review = `Sharp photos and on time ${tag}`;
  const reply = `Thank you for having me at the wedding ${tag}!`;

  let freelancer: Person;
  let buyer: Person;
  let sellerId: number;
  let username: string;
  let gigId: number;
  let client: TestUser;
  let paidOrder: number;
  let reviewedOrder: number;

  beforeAll(async () => {
    freelancer = await person(mode);
    buyer = await person(mode);
  });
  afterAll(async () => {
    await freelancer?.close();
    await buyer?.close();
  });

  it("a new freelancer joins, verifies their email through the mailed link and their phone with the texted code, and publishes a gig", SLOW, async () => {
    const page = freelancer.page;
    await joinAsFreelancer(page, mode, seller);
    const joined = await e2eDb()("users").where({ email: seller.email }).first("id", "username", "role", "email_verified_at", "phone_verified_at");
    expect(joined).toMatchObject({ role: "freelancer", email_verified_at: null, phone_verified_at: null });
    sellerId = Number(joined.id);
    username = joined.username as string;

    // The link mailed at joining, followed from the outbox.
    const mail = await fromOutbox(page, mode, (p) => p.getByRole("article").filter({ hasText: `To: ${seller.email}` }));
    expect(await mail.getByRole("link").getAttribute("href")).toMatch(/\/auth\/verify-email\?token=[\w-]+$/);
    await mail.getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Confirm your email" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Verify my email" }).click();
    await page.getByRole("heading", { level: 1, name: "Your email is verified" }).waitFor();

    // Settings › Security leads to the phone page; the code comes by text, read from the outbox.
    await open(page, mode, "/settings?tab=security");
    await page.getByRole("link", { name: "Your phone: verify a number for texts and payouts" }).click();
    await page.getByRole("heading", { level: 1, name: "Your phone" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Mobile number").fill(local);
    await page.getByRole("button", { name: "Text me a code" }).click();
    await page.getByText("We texted you a code. It works for 10 minutes.").waitFor();
    const outbox = await mode.page();
    const codeText = await (await fromOutbox(outbox, mode, (p) => p.getByRole("article", { name: `Text to ${e164}` }))).innerText();
    expect(codeText).toContain(`To: ${e164} · verification ·`);
    const code = /your code is (\d{6})/.exec(codeText)?.[1];
    expect(code).toMatch(/^\d{6}$/);
    await page.getByLabel(`The six-digit code texted to ${e164}`).fill(code!);
    await page.getByRole("button", { name: "Verify my phone" }).click();
    await page.getByText("Your phone is verified.").waitFor();
    await page.getByText(`Your verified phone is ${e164}.`).waitFor();
    await fitsThePhone(page);

    // The gig, from the dashboard's first step.
    await open(page, mode, "/dashboard");
    await page.getByRole("link", { name: "Create your first gig" }).click();
    await page.getByRole("heading", { level: 1, name: "Create a gig" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Category", { exact: true }).selectOption("local-services");
    await page.getByLabel("Description", { exact: true }).fill("A day of wedding photography, edited and delivered online within the week.");
    await page.getByLabel("Basic price (UGX)", { exact: true }).fill("50000");
    await page.getByLabel("Basic delivery", { exact: true }).selectOption("3");
    await page.getByRole("button", { name: "Publish Gig" }).click();
    await page.getByText("Your gig is published: buyers can find it now.").waitFor();

    const stored = await e2eDb()("users").where({ id: sellerId }).first("phone", "phone_verified_at", "email_verified_at");
    expect(stored).toMatchObject({ phone: e164, phone_verified_at: expect.any(Date), email_verified_at: expect.any(Date) });
    const gig = await e2eDb()("gigs").where({ title }).first("id", "status", "seller_id");
    expect(gig).toMatchObject({ status: "published", seller_id: sellerId });
    gigId = Number(gig.id);
  });

  it("a client orders the gig and pays in the sandbox, and the freelancer's new-order text is in the SMS outbox", SLOW, async () => {
    client = await createUser(e2eDb(), { role: "client", name: `Kato Client ${tag}`, email: `kato.${tag}@trust.example` });
    const page = buyer.page;
    await open(page, mode, `/login?redirectTo=${encodeURIComponent(`/gig/${gigId}`)}`);
    await signIn(page, mode, { email: client.email, password: DEFAULT_PASSWORD }, title);

    await page.getByRole("button", { name: "Continue with Basic (UGX 50,000)" }).click();
    await page.getByRole("heading", { level: 1, name: "Your order", exact: true }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Mobile-money number").fill("0772 123 456");
    await page.getByRole("radio", { name: "MTN Mobile Money" }).check();
    await page.getByRole("button", { name: "Pay UGX 52,500" }).click();
    await page.getByText("Waiting for your phone…").waitFor();
    paidOrder = Number(/^\/orders\/(\d+)\/pay$/.exec(new URL(page.url()).pathname)?.[1]);
    expect(paidOrder).toBeGreaterThan(0);
    // The sandbox's phone prompt, answered as the client's phone would.
    await page.getByRole("link", { name: "Open the phone prompt" }).click();
    await page.getByText(`Pay UGX 52,500 to Soko for order ${orderNumber(paidOrder)}?`).waitFor();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Approve", exact: true }).click();
    await page.waitForURL((url) => url.pathname === `/orders/${paidOrder}/pay`);
    await page.getByText("Paid. UGX 52,500 is held in escrow until you approve the delivery.").waitFor({ timeout: 20_000 });

    // The text to the freelancer's verified phone, in the words a developer reads on the outbox page.
    const words = `Soko: new paid order "${title}". Open Soko to start the work on time.`;
    const text = await fromOutbox(freelancer.page, mode, (p) => p.getByRole("article", { name: `Text to ${e164}` }).filter({ hasText: "new paid order" }));
    expect(await text.locator("pre").innerText()).toBe(words);
    // Sent by now, or held for the morning when the order came in East Africa's quiet hours.
    expect(await text.locator("p").innerText()).toMatch(new RegExp(`^To: \\${e164} · order · (\\d{4}-\\d\\d-\\d\\dT|not sent yet)`));
    expect(await e2eDb()("sms_messages").where({ user_id: sellerId, purpose: "order" }).select("to_number", "body", "event_key")).toEqual([
      { to_number: e164, body: words, event_key: `order_paid:${paidOrder}:in_progress:0` },
    ]);

    // And the order waits on the freelancer's own list.
    await open(freelancer.page, mode, "/orders");
    await freelancer.page
      .getByRole("article", { name: title })
      .filter({ hasText: orderNumber(paidOrder) })
      .getByText(`Buyer: ${client.name}`)
      .waitFor();
  });

  it("after ten completed orders and 90 days on Soko, the daily recomputation makes the freelancer Level 1", SLOW, async () => {
    const db = e2eDb();
    // The test clock: the account joined 90 days ago, and ten orders were completed 20 to 29 days ago.
    await db("users")
      .where({ id: sellerId })
      .update({ created_at: new Date(Date.now() - 90 * DAY) });
    for (let i = 0; i < 10; i++) {
      const { id } = await createCompletedOrder(db, { sellerId, buyerId: client.id, gigId, completedAt: new Date(Date.now() - (20 + i) * DAY) });
      reviewedOrder ??= id;
    }

    const page = freelancer.page;
    await open(page, mode, "/dashboard");
    expect(await page.getByRole("region", { name: "Your seller level" }).innerText()).toContain("New Seller");

    // What the worker runs each day, as the platform.
    const result = await recomputeSellerLevel(systemActor("e2e"), { userId: sellerId }, { db });
    expect(result).toMatchObject({ ok: true, value: { level: "level_1", previous: "new", changed: true } });
    expect(await db("users").where({ id: sellerId }).first("level")).toEqual({ level: "level_1" });

    await open(page, mode, "/dashboard");
    const level = await page.getByRole("region", { name: "Your seller level" }).innerText();
    expect(level).toMatch(/Your level now:\s*Level 1\b/);
    expect(level).not.toContain("New Seller");
    expect(await page.getByRole("list", { name: "Latest notifications" }).innerText()).toContain("You are now Level 1 on Soko: well done!");
    await fitsThePhone(page);

    await open(page, mode, `/user/${username}`);
    expect(await page.locator(".profile-facts").innerText()).toMatch(/Level\s+Level 1\b/);
    await fitsThePhone(page);
  });

  it("an admin vets the freelancer on the Users screen", SLOW, async () => {
    const admin = await person(mode, LAPTOP);
    try {
      const page = admin.page;
      await page.goto(adminUrl("/users"));
      await signIn(page, mode, DEMO_ADMIN, "User management");
      await page.getByLabel("Search").fill(username);
      if (!mode.js) await page.getByRole("button", { name: "Search" }).click();
      await page.waitForURL((url) => url.searchParams.get("q") === username);
      const row = page.getByRole("row", { name: new RegExp(seller.name) });
      await row.getByText(`Vet ${seller.name}`).click();
      await row.getByLabel("What you checked in their portfolio").fill("Two wedding albums checked against the clients' reviews.");
      await row.getByRole("button", { name: "Mark vetted" }).click();
      await page
        .getByRole("row", { name: new RegExp(seller.name) })
        .getByText("Vetted", { exact: true })
        .waitFor();
    } finally {
      await admin.close();
    }
    expect(await e2eDb()("users").where({ id: sellerId }).first("vetted_at", "vetted_note")).toEqual({
      vetted_at: expect.any(Date),
      vetted_note: "Two wedding albums checked against the clients' reviews.",
    });
  });

  it("the client reviews a completed order and the freelancer replies under it on the gig's page", SLOW, async () => {
    let page = buyer.page;
    await open(page, mode, `/orders/${reviewedOrder}`);
    await page.getByRole("heading", { name: "Leave a review" }).waitFor();
    await page.getByLabel("5 stars").check();
    await page.getByLabel("Your review (optional)").fill(review);
    await page.getByRole("button", { name: "Submit review" }).click();
    await timeline(page).getByText("Buyer left a review: 5 of 5 stars").waitFor();
    const stored = await e2eDb()("reviews").where({ order_id: reviewedOrder }).first("id", "rating", "comment", "reviewer_id");
    expect(stored).toMatchObject({ rating: 5, comment: review, reviewer_id: client.id });
    const reviewId = Number(stored.id);

    page = freelancer.page;
    await open(page, mode, `/gig/${gigId}`);
    const under = page.locator(`#review-${reviewId}`);
    await under.getByText(review).waitFor();
    await under.getByLabel("Reply to this review").fill(reply);
    await under.getByRole("button", { name: "Post reply" }).click();
    await page.locator(`#review-${reviewId}`).getByText(reply).waitFor();
    expect(await e2eDb()("reviews").where({ id: reviewId }).first("reply")).toEqual({ reply });
  });

  it("the client saves the seller, finds them on /saved and in the directory with the vetted filter, and reads the reply", SLOW, async () => {
    const page = buyer.page;
    await open(page, mode, `/user/${username}`);
    await page.getByRole("heading", { level: 1, name: seller.name }).waitFor();
    const heart = page.getByRole("button", { name: `Save the seller ${seller.name}` });
    expect(await heart.getAttribute("aria-pressed")).toBe("false");
    await heart.click();
    await pressed(page, `Save the seller ${seller.name}`);
    await expect
      .poll(() =>
        e2eDb()("saved_sellers")
          .where({ user_id: client.id, seller_id: sellerId })
          .count("* as n")
          .first()
          .then((r) => Number(r?.n)),
      )
      .toBe(1);

    await open(page, mode, "/saved");
    await page.getByRole("link", { name: /^Saved sellers/ }).click();
    await page.getByRole("list", { name: "Saved sellers" }).getByRole("link", { name: seller.name }).waitFor();

    // The directory: by their skill, vetted only; one card, theirs, saying Vetted and Level 1.
    await open(page, mode, "/freelancers");
    await page.getByLabel("Skill").fill(skill);
    await page.getByLabel("Vetted freelancers only").check();
    await page.getByRole("button", { name: "Show freelancers" }).click();
    await page.waitForURL((url) => url.searchParams.get("vetted") === "1");
    await waitForHydration(page, mode);
    const results = page.getByRole("list", { name: "Freelancers" });
    await results.getByRole("link", { name: seller.name, exact: true }).waitFor();
    expect(await results.getByRole("listitem").count()).toBe(1);
    const card = await results.getByRole("listitem").innerText();
    expect(card).toContain("Vetted");
    expect(card).toContain("Level 1");
    await fitsThePhone(page);

    // Their profile from the card, then the gig: the review and the seller's reply under it on both.
    await results.getByRole("link", { name: seller.name, exact: true }).click();
    await page.getByRole("heading", { level: 1, name: seller.name }).waitFor();
    await waitForHydration(page, mode);
    const checks = await page.getByRole("list", { name: "Checks" }).innerText();
    for (const badge of ["Email verified", "Phone verified", "Vetted by Soko"]) expect(checks).toContain(badge);
    const onProfile = page.getByRole("listitem").filter({ hasText: review });
    await onProfile.getByText("Seller's reply").waitFor();
    await onProfile.getByText(reply).waitFor();
    await page.getByRole("link", { name: title }).first().click();
    await page.getByRole("heading", { level: 1, name: title }).waitFor();
    await waitForHydration(page, mode);
    const onGig = page.getByRole("list", { name: "Reviews" }).getByRole("listitem").filter({ hasText: review });
    await onGig.getByText("Seller's reply").waitFor();
    await onGig.getByText(reply).waitFor();
    expect(await onGig.getByLabel("Reply to this review").count()).toBe(0);
    await fitsThePhone(page);
  });
});
