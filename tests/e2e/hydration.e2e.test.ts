/**
 * The server's HTML is what React renders in the browser, so hydration keeps the page (and what someone typed
 * before the scripts arrived) instead of throwing it away and rendering again. A form or a <details> inside a
 * <p> broke that: the browser closes the paragraph before them, React finds another tree (errors #418, #423)
 * and re-renders the whole page, emptying the fields. Here a buyer types a revision request on a delivered
 * order's page while its scripts are held back, then lets them load: the text is still there and nothing was
 * logged. (Every e2e test also fails on any console error: tests/support/e2e.ts.)
 */
import { randomBytes } from "node:crypto";
import type { ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { deliverOrder } from "~/operations/orders.server";
import { appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { timeline } from "../support/e2e-orders";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { memberActor, paidTestOrder, testProviders } from "../support/orders";

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

/** Everything the page logs as an error, and its uncaught exceptions. */
function errorsOf(page: Page): string[] {
  const errors: string[] = [];
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (e) => errors.push(e.message));
  return errors;
}

describeBothModes("Hydration keeps the server's page", (mode) => {
  let buyer: TestUser;
  let orderId: number;

  beforeAll(async () => {
    const db = e2eDb();
    const tag = randomBytes(4).toString("hex");
    const seller = await createUser(db, { role: "freelancer", name: `Achieng Studio ${tag}`, username: `achieng_${tag}` });
    buyer = await createUser(db, { role: "client", name: `Mukasa Buyer ${tag}`, username: `mukasa_${tag}` });
    const gig = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Banner ${tag}`,
      packages: { basic: { priceUgx: 50_000, deliveryDays: 3, revisions: 2 } },
    });
    ({ orderId } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id));
    const delivered = await deliverOrder(memberActor(seller), { orderId, message: "First draft of the banner." }, { db, providers: providers.providers });
    expect(delivered.ok).toBe(true);
    await mode.context().addCookies([{ name: "soko_session", value: await createSession(db, buyer.id), url: appUrl("/") }]);
  });

  it("keeps a revision request typed before the scripts ran, with no hydration error", async () => {
    const page = await mode.page();
    const errors = errorsOf(page);
    const reason = "Make the banner green, not blue.";
    let release!: () => void;
    const scriptsHeld = new Promise<void>((resolve) => (release = resolve));
    if (mode.js) {
      // The page's scripts wait until the text is typed, as on a slow phone.
      await page.route(/\/assets\/.*\.js$/, async (route) => {
        await scriptsHeld;
        await route.continue();
      });
    }
    await page.goto(appUrl(`/orders/${orderId}`), { waitUntil: "commit" });
    const field = page.getByLabel("What should change?");
    await field.fill(reason);
    release();
    await waitForHydration(page, mode);
    if (mode.js) {
      // Let React finish: a failed hydration renders the page again after the first commit.
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
    }
    expect(await field.inputValue()).toBe(reason);
    expect(errors).toEqual([]);

    await page.getByRole("button", { name: "Request revision" }).click();
    await timeline(page).getByText(`Buyer asked for a revision: ${reason}`).waitFor();
    expect(await e2eDb()("orders").where({ id: orderId }).first()).toMatchObject({ status: "in_progress", revisions_used: 1 });
    await page.close();
  });

  it("hydrates the dashboard with its mark-all-read form without an error", async () => {
    const page = await mode.page();
    const errors = errorsOf(page);
    await page.goto(appUrl("/dashboard"));
    await waitForHydration(page, mode);
    // The seller's delivery left the buyer an unread notification, so the form is on the page.
    await page.getByRole("button", { name: "Mark all as read" }).waitFor();
    if (mode.js) await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 100))));
    expect(errors).toEqual([]);
    await page.close();
  });
});
