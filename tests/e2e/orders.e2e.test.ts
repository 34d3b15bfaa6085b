/**
 * An order's work in the browser, with JavaScript on and off: the seller delivers (with a small text file),
 * the buyer downloads it and asks for a revision, the seller delivers again, the buyer approves and leaves
 * a review, and the review shows on the gig's page. The order is placed and paid beforehand through the
 * operations (checkout has its own specs).
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createGig, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";
import { allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { approveDelivery } from "../support/e2e-orders";
import { deliverOrder, openDispute } from "~/operations/orders.server";
import { memberActor, paidTestOrder, testProviders } from "../support/orders";

let notesFile: string;
let providers: ReturnType<typeof testProviders>;

beforeAll(() => {
  notesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "soko-order-")), "logo-notes.txt");
  fs.writeFileSync(notesFile, "Colours: green and gold.\nFont: bold.\n");
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
  if (notesFile) fs.rmSync(path.dirname(notesFile), { recursive: true, force: true });
});

async function signIn(mode: Mode, who: TestUser): Promise<Page> {
  await mode.context().clearCookies();
  const page = await mode.page();
  await page.goto(appUrl("/login"));
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
  return page;
}

async function open(page: Page, mode: Mode, url: string) {
  await page.goto(appUrl(url));
  await waitForHydration(page, mode);
}

/** Holds this page's POSTs to `pattern` until the returned function is called (to see a button's pending state). */
async function holdPosts(page: Page, pattern: string) {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  await page.route(pattern, async (route) => {
    if (route.request().method() === "POST") await held;
    await route.continue();
  });
  return release;
}

const timeline = (page: Page) => page.getByRole("list", { name: "Timeline" });

describeBothModes("Orders", (mode) => {
  let seller: TestUser;
  let buyer: TestUser;
  let gig: { id: number; title: string };
  let orderId: number;
  const comment = `Fast and friendly work ${randomBytes(4).toString("hex")}`;

  beforeAll(async () => {
    const db = e2eDb();
    const tag = randomBytes(4).toString("hex");
    seller = await createUser(db, { role: "freelancer", name: `Nakato Designs ${tag}`, username: `nakato_${tag}` });
    buyer = await createUser(db, { role: "client", name: `Okello Buyer ${tag}`, username: `okello_${tag}` });
    gig = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Shop logo ${tag}`,
      packages: { basic: { priceUgx: 60_000, deliveryDays: 3, revisions: 1 } },
    });
    ({ orderId } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id));
  });

  it("the seller finds the order in Active and delivers it with a file", async () => {
    const page = await signIn(mode, seller);
    await open(page, mode, "/orders");
    const card = page.getByRole("article").filter({ has: page.getByRole("link", { name: gig.title, exact: true }) });
    await card.getByText(`Buyer: ${buyer.name}`).waitFor();
    await card.getByRole("link", { name: "Deliver" }).click();
    await page.getByRole("heading", { name: "Deliver your work" }).waitFor();
    await waitForHydration(page, mode);

    await page.getByLabel("Message to the buyer").fill("Here is the first draft, with notes.");
    await page.getByLabel("Files (optional)").setInputFiles(notesFile);
    if (mode.js) {
      const release = await holdPosts(page, "**/orders/*.data*");
      await page.getByRole("button", { name: "Deliver", exact: true }).click();
      const pending = page.getByRole("button", { name: "Delivering…" });
      await pending.waitFor();
      expect(await pending.isDisabled()).toBe(true);
      release();
    } else {
      await page.getByRole("button", { name: "Deliver", exact: true }).click();
    }
    await timeline(page).getByText("Seller delivered").waitFor();
    await page.getByText("Delivered", { exact: true }).first().waitFor();
    expect(await page.getByRole("heading", { name: "Deliver your work" }).count()).toBe(0);
    expect(await e2eDb()("orders").where({ id: orderId }).first()).toMatchObject({ status: "delivered" });
    await page.close();
  });

  it("the buyer downloads the file and asks for a revision", async () => {
    const page = await signIn(mode, buyer);
    await open(page, mode, `/orders/${orderId}`);
    await page.getByText("Here is the first draft, with notes.").waitFor();
    const downloaded = page.waitForEvent("download");
    await page.getByRole("link", { name: "logo-notes.txt" }).click();
    const download = await downloaded;
    expect(download.suggestedFilename()).toBe("logo-notes.txt");
    expect(fs.readFileSync((await download.path())!, "utf8")).toBe("Colours: green and gold.\nFont: bold.\n");

    await page.getByLabel("What should change?").fill("Make the letters bigger.");
    await page.getByRole("button", { name: "Request revision" }).click();
    await timeline(page).getByText("Buyer asked for a revision: Make the letters bigger.").waitFor();
    await page.getByText("1 of 1 used").waitFor();
    expect(await e2eDb()("orders").where({ id: orderId }).first()).toMatchObject({ status: "in_progress", revisions_used: 1 });
    await page.close();
  });

  it("the seller delivers again", async () => {
    const page = await signIn(mode, seller);
    await open(page, mode, `/orders/${orderId}`);
    await page.getByText("Buyer asked for a revision: Make the letters bigger.").waitFor();
    await page.getByLabel("Message to the buyer").fill("Bigger letters, as you asked.");
    await page.getByRole("button", { name: "Deliver", exact: true }).click();
    await page.getByRole("heading", { name: "Delivery 2" }).waitFor();
    expect(await e2eDb()("deliveries").where({ order_id: orderId })).toHaveLength(2);
    await page.close();
  });

  it("the buyer approves through the confirmation that states the amount, and leaves a review, which shows on the gig's page", async () => {
    const page = await signIn(mode, buyer);
    // The list offers no Approve: its card leads to the delivery on the order's page.
    await open(page, mode, "/orders");
    const card = page.getByRole("article").filter({ has: page.getByRole("link", { name: gig.title, exact: true }) });
    await card.getByText("Delivered", { exact: true }).waitFor();
    expect(await card.getByRole("button", { name: /Approve/ }).count()).toBe(0);
    expect(await card.getByRole("link", { name: /Approve/ }).count()).toBe(0);
    await card.getByRole("link", { name: "Review delivery" }).click();
    await page.getByText("Bigger letters, as you asked.").waitFor();
    await waitForHydration(page, mode);
    // No revisions left: only approval (or a dispute) remains.
    expect(await page.getByRole("button", { name: "Request revision" }).count()).toBe(0);
    // Nothing is released until the buyer confirms the amount.
    await page.getByRole("link", { name: "Approve delivery…" }).click();
    await page.getByText(`Release UGX 60,000 to ${seller.name}? This cannot be undone.`).waitFor();
    expect(await e2eDb()("orders").where({ id: orderId }).first()).toMatchObject({ status: "delivered" });
    await page.getByRole("link", { name: "Not yet" }).click();
    await page.getByRole("link", { name: "Approve delivery…" }).waitFor();
    await waitForHydration(page, mode);
    expect(await e2eDb()("orders").where({ id: orderId }).first()).toMatchObject({ status: "delivered" });
    await approveDelivery(page, mode, { amount: "UGX 60,000", seller: seller.name });
    await page.getByRole("heading", { name: "Leave a review" }).waitFor();
    await waitForHydration(page, mode);
    expect(await e2eDb()("orders").where({ id: orderId }).first()).toMatchObject({ status: "completed" });

    await page.getByLabel("5 stars").check();
    await page.getByLabel("Your review (optional)").fill(comment);
    await page.getByRole("button", { name: "Submit review" }).click();
    await timeline(page).getByText("Buyer left a review: 5 of 5 stars").waitFor();
    expect(await page.getByRole("heading", { name: "Leave a review" }).count()).toBe(0);

    await open(page, mode, `/gig/${gig.id}`);
    await page.getByRole("list", { name: "Reviews" }).getByText(comment).waitFor();
    await page.close();
  });

  it("an order in dispute reads 'In dispute' on its card and its page, for both parties", async () => {
    const db = e2eDb();
    const { orderId: disputed } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id);
    expect((await openDispute(memberActor(buyer), { orderId: disputed, reason: "No word from the seller for a week" }, { db })).ok).toBe(true);
    for (const who of [buyer, seller]) {
      const page = await signIn(mode, who);
      await open(page, mode, "/orders");
      // The badge of its card, in the style of its own (not the status's).
      const badge = page.locator(`article[aria-labelledby="order-${disputed}-title"] .status-badge`);
      expect(await badge.innerText()).toBe("In dispute");
      expect(await badge.getAttribute("class")).toBe("status-badge order-status-disputed");
      await open(page, mode, `/orders/${disputed}`);
      expect(await page.locator(".order-number .status-badge").innerText()).toBe("In dispute");
      await page.getByText("This order is in dispute.").waitFor();
      await page.close();
    }
  });

  it("a step form says what is wrong beside its field, in the schema's words: checked in the browser with JavaScript, by the server without", async () => {
    const db = e2eDb();
    const { orderId: third } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id);
    expect((await deliverOrder(memberActor(seller), { orderId: third, message: "Draft one." }, { db })).ok).toBe(true);
    if (!mode.js) allowStatus(400, "the server answers a request for changes that says nothing with the field's message");
    const page = await signIn(mode, buyer);
    await open(page, mode, `/orders/${third}`);
    const posts: string[] = [];
    page.on("request", (r) => void (r.method() === "POST" && posts.push(r.url())));
    // Spaces pass the browser's own check (required), not the schema's, which trims them.
    const reason = page.getByLabel("What should change?");
    await reason.fill("   ");
    // With JavaScript the schema comes once the form is used; from then on the browser checks with it.
    if (mode.js) await page.locator("form#revision-form[novalidate]").waitFor({ state: "attached" });
    await page.getByRole("button", { name: "Request revision" }).click();
    await page.locator("#revision-form-reason-error").getByText("Say what should change").waitFor();
    expect(await page.getByLabel("What should change?").getAttribute("aria-invalid")).toBe("true");
    if (mode.js) {
      // Nothing was sent, and the field that is wrong has the focus.
      expect(posts).toEqual([]);
      expect(await page.evaluate(() => document.activeElement?.id)).toBe("revision-form-reason");
    }
    expect(await db("orders").where({ id: third }).first()).toMatchObject({ status: "delivered", revisions_used: 0 });
    await page.close();
  });

  // With JavaScript the page asks for the order again while it is active: the other party's step appears
  // without a reload (here the seller delivers through the operation while the buyer's page is open).
  it.skipIf(!mode.js)("the buyer's open page shows the seller's delivery without a reload", async () => {
    const db = e2eDb();
    const { orderId: second } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id);
    const page = await signIn(mode, buyer);
    await open(page, mode, `/orders/${second}`);
    await page.getByText("In progress", { exact: true }).waitFor();
    let documents = 0;
    page.on("request", (r) => void (r.resourceType() === "document" && documents++));
    expect((await deliverOrder(memberActor(seller), { orderId: second, message: "Delivered while you watched." }, { db })).ok).toBe(true);
    await page.getByText("Delivered while you watched.").waitFor({ timeout: 15_000 });
    await timeline(page).getByText("Seller delivered").waitFor();
    // The forms the delivery offers the buyer come with their words (the page had only those of an order in progress).
    await page.getByLabel("What should change?").waitFor();
    await page.getByRole("button", { name: "Request revision" }).waitFor();
    expect(documents).toBe(0);
    await page.close();
  });
});
