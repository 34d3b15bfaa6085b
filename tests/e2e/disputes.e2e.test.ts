/**
 * A dispute split, with JavaScript on and off: an admin on the admin host, on a 360-pixel phone, first forgets
 * the amount (told beside the field), then splits the price with a reason; the buyer and the seller each find
 * the outcome, what they got and the reason on their order page. The order is placed, paid and disputed
 * beforehand through the operations.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDispute } from "~/operations/orders.server";
import { orderNumber } from "~/domain/order-rules";
import { createGig, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";
import { adminUrl, allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { DEMO_ADMIN, signIn } from "../support/e2e-orders";
import { memberActor, paidTestOrder, testProviders } from "../support/orders";

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

/** A member's own browser at phone size, signed in on the main host, on the order's page. */
async function orderPageOf(mode: Mode, who: TestUser, orderId: number): Promise<Page> {
  await mode.context().clearCookies();
  const page = await mode.page();
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto(appUrl("/login"));
  await signIn(page, mode, { email: who.email, password: DEFAULT_PASSWORD });
  await page.goto(appUrl(`/orders/${orderId}`));
  await waitForHydration(page, mode);
  return page;
}

/** The figure beside a term in the outcome box. */
const figure = (page: Page, term: string) =>
  page.locator("#dispute-outcome").locator("dt", { hasText: term }).locator("xpath=following-sibling::dd[1]").innerText();

describeBothModes("Dispute split", (mode) => {
  const tag = randomBytes(4).toString("hex");
  const reason = `Two of the four pages were delivered ${tag}.`;
  let seller: TestUser;
  let buyer: TestUser;
  let title: string;
  let orderId: number;

  beforeAll(async () => {
    const db = e2eDb();
    seller = await createUser(db, { role: "freelancer", name: `Kato Web ${tag}`, username: `kato_${tag}` });
    buyer = await createUser(db, { role: "client", name: `Nabirye Buyer ${tag}`, username: `nabirye_${tag}` });
    title = `Four page website ${tag}`;
    const gig = await createGig(db, {
      sellerId: seller.id,
      category: "web-development",
      title,
      packages: { basic: { priceUgx: 200_000, deliveryDays: 7, revisions: 1 } },
    });
    ({ orderId } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id));
    expect((await openDispute(memberActor(buyer), { orderId, reason: `Only half the pages came ${tag}` }, { db })).ok).toBe(true);
  });

  it(
    "an admin on the admin host splits it at 360 px: a missing amount is told beside the field, then the split is confirmed",
    { timeout: 60_000 },
    async () => {
      // Without JavaScript the refused form comes back as a page with status 400, which the browser logs.
      if (!mode.js) allowStatus(400, "the split's missing amount is refused");
      await mode.context().clearCookies();
      const page = await mode.page();
      await page.setViewportSize({ width: 360, height: 740 });
      await page.goto(adminUrl("/disputes"));
      await signIn(page, mode, DEMO_ADMIN, "Disputes");
      if (new URL(page.url()).pathname !== "/disputes") {
        await page.goto(adminUrl("/disputes"));
        await waitForHydration(page, mode);
      }
      const dispute = page.getByRole("article", { name: `${orderNumber(orderId)} · ${title}` });
      await dispute.waitFor();

      // Split chosen, the reason given, the amount forgotten: told beside the amount, nothing decided.
      await dispute.getByRole("radio", { name: "Split the price" }).check();
      await dispute.getByLabel("Reason (shown to the buyer and the seller)").fill(reason);
      await dispute.getByRole("button", { name: "Resolve dispute" }).click();
      await dispute.getByText("Enter the buyer's refund in whole shillings").waitFor();
      expect(await e2eDb()("disputes").where({ order_id: orderId }).first("status")).toEqual({ status: "open" });

      // The form fits the phone: no sideways scrolling, and the choices are big enough to tap.
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      for (const name of ["Release all to the seller", "Refund all to the buyer", "Split the price"]) {
        const box = await dispute.locator("label", { hasText: name }).boundingBox();
        expect(box!.height, name).toBeGreaterThanOrEqual(44);
      }

      const form = page.getByRole("article", { name: `${orderNumber(orderId)} · ${title}` });
      if (!(await form.getByRole("radio", { name: "Split the price" }).isChecked())) await form.getByRole("radio", { name: "Split the price" }).check();
      await form.getByLabel("Buyer's refund for a split (UGX)").fill("80,000");
      if ((await form.getByLabel("Reason (shown to the buyer and the seller)").inputValue()) !== reason) {
        await form.getByLabel("Reason (shown to the buyer and the seller)").fill(reason);
      }
      await form.getByRole("button", { name: "Resolve dispute" }).click();
      await page
        .getByRole("status")
        .getByText(
          `Dispute over ${orderNumber(orderId)} (${title}) resolved: you split the price: UGX 84,000 back to the buyer, UGX 96,000 to the seller after the fee.`,
        )
        .waitFor();
      expect(await e2eDb()("disputes").where({ order_id: orderId }).first("status", "resolution", "refund_ugx")).toEqual({
        status: "resolved",
        resolution: "split",
        refund_ugx: 80_000,
      });
    },
  );

  it("the buyer sees the outcome, their refund and the reason on the order page", async () => {
    const page = await orderPageOf(mode, buyer, orderId);
    await page.getByRole("heading", { name: "Dispute resolved" }).waitFor();
    await page.locator("#dispute-outcome").getByText(reason).waitFor();
    expect(await figure(page, "Refunded to you")).toBe("UGX 84,000");
    expect(await figure(page, "Paid to the seller")).toBe("UGX 96,000");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  it("the seller sees the outcome, their earnings and the reason on the order page", async () => {
    const page = await orderPageOf(mode, seller, orderId);
    await page.getByRole("heading", { name: "Dispute resolved" }).waitFor();
    await page.locator("#dispute-outcome").getByText(reason).waitFor();
    expect(await figure(page, "Refunded to the buyer")).toBe("UGX 84,000");
    expect(await figure(page, "Paid to you")).toBe("UGX 96,000");
    // The order's summary says the same: what the seller earns is their share, not the whole price.
    const earned = page.locator(".order-summary").locator("dt", { hasText: "You earn" }).locator("xpath=following-sibling::dd[1]");
    expect(await earned.innerText()).toBe("UGX 96,000");
  });
});
