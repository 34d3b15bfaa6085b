/**
 * Money end to end, with JavaScript on and off: an admin refunds a disputed order from the disputes screen
 * and the buyer finds it cancelled in /orders; a seller withdraws their cleared earnings from the dashboard
 * and sees the payout listed. The orders are brought to their states by the operations, on the e2e server's
 * database, with a sandbox of this process's own (the server runs its own, PAYMENTS_SANDBOX=1).
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { openDispute, runOrderTimers } from "~/operations/orders.server";
import { orderNumber } from "~/utils/order-rules";
import { appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createUser, DEFAULT_PASSWORD } from "../support/factories";
import { completedTestOrder, memberActor, opts, paidTestOrder, system, testProviders, type OrderTestContext } from "../support/orders";

const DEMO_PASSWORD = "soko-demo-2026";
const DAY_MS = 24 * 60 * 60 * 1000;

let c: OrderTestContext;
let closeProviders: () => Promise<unknown>;

beforeAll(() => {
  const p = testProviders();
  closeProviders = p.close;
  c = { db: e2eDb(), providers: p.providers, sandbox: p.sandbox };
});
afterAll(async () => {
  await closeProviders?.();
});

/** Signs in on the page the browser is on (the sign-in page), and waits for `heading`. */
async function signIn(page: Page, mode: Mode, email: string, password: string, heading: string | RegExp) {
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await waitForHydration(page, mode);
}

/** A buyer and a seller of this pass, with names no other spec uses, and a published gig of the seller's. */
async function partiesAndGig(what: string, priceUgx: number) {
  const tag = randomBytes(3).toString("hex");
  const buyer = await createUser(e2eDb(), { role: "client", name: `Buyer ${what} ${tag}` });
  const seller = await createUser(e2eDb(), { role: "freelancer", name: `Seller ${what} ${tag}` });
  const gig = await createGig(e2eDb(), {
    sellerId: seller.id,
    category: "graphics-design",
    title: `Shop signboard ${what} ${tag}`,
    packages: { basic: { priceUgx, deliveryDays: 3 } },
  });
  return { buyer, seller, gig };
}

describeBothModes("Money", (mode) => {
  it("an admin refunds a disputed order from the disputes screen, and the buyer sees it cancelled", async () => {
    const { buyer, gig } = await partiesAndGig("refund", 60_000);
    const { orderId } = await paidTestOrder(c, buyer, gig.id);
    const reason = "The seller stopped answering after the payment.";
    expect((await openDispute(memberActor(buyer), { orderId, reason }, opts(c))).ok).toBe(true);

    await mode.context().clearCookies();
    const page = await mode.page();
    await page.goto(appUrl("/admin/disputes"));
    await signIn(page, mode, "admin@soko.test", DEMO_PASSWORD, "Disputes");
    expect(new URL(page.url()).pathname).toBe("/admin/disputes");

    const dispute = page.getByRole("article", { name: `${orderNumber(orderId)} · ${gig.title}` });
    await dispute.waitFor();
    expect(await dispute.getByRole("blockquote").textContent()).toBe(reason);
    await dispute.getByLabel("Note on the refund (optional)").fill("No work was delivered; the buyer gets everything back.");
    await dispute.getByRole("button", { name: "Refund the buyer" }).click();
    await page.getByRole("status").getByText(`Dispute over ${orderNumber(orderId)} (${gig.title}) resolved: you refunded the buyer.`).waitFor();
    expect(await dispute.count()).toBe(0);
    expect(await e2eDb()("orders").where({ id: orderId }).first("status")).toEqual({ status: "cancelled" });
    expect(await e2eDb()("payouts").where({ order_id: orderId }).select("user_id", "kind", "amount_ugx")).toEqual([{ user_id: buyer.id, kind: "refund", amount_ugx: 63_000 }]);
    await page.close();

    // The buyer signs in and finds the order among the cancelled ones.
    await mode.context().clearCookies();
    const buyerPage = await mode.page();
    await buyerPage.goto(appUrl("/orders?tab=cancelled"));
    await signIn(buyerPage, mode, buyer.email, DEFAULT_PASSWORD, "Orders");
    const card = buyerPage.getByRole("list", { name: "Cancelled orders" }).getByRole("listitem").filter({ hasText: gig.title });
    await card.first().waitFor();
    expect(await card.first().textContent()).toContain("Cancelled");
    await buyerPage.close();
  });

  it("a seller withdraws the cleared earnings from the dashboard and sees the payout listed", async () => {
    const { buyer, seller, gig } = await partiesAndGig("withdraw", 100_000);
    await e2eDb()("users").where({ id: seller.id }).update({ mobile_money_number: "+256772345678" });
    const { orderId } = await completedTestOrder(c, buyer, seller, gig.id);
    // Fourteen days of clearance, for this order only: its completion is moved back (rather than the timers'
    // clock forward, which would also complete other specs' deliveries on this shared server).
    await e2eDb()("orders").where({ id: orderId }).update({ completed_at: new Date(Date.now() - 15 * DAY_MS) });
    expect(await runOrderTimers(system, opts(c))).toMatchObject({ ok: true });
    expect(await e2eDb()("orders").where({ id: orderId }).first("cleared_at")).toEqual({ cleared_at: expect.any(Date) });

    await mode.context().clearCookies();
    const page = await mode.page();
    await page.goto(appUrl("/dashboard"));
    await signIn(page, mode, seller.email, DEFAULT_PASSWORD, /^Welcome back, /);
    const balance = page.getByRole("region", { name: "Balance" });
    // Available to withdraw: the whole net price (UGX 100,000 less the 20% fee); nothing pending or in transit.
    await balance.getByText("UGX 80,000", { exact: true }).waitFor();
    expect(await balance.getByText("UGX 0", { exact: true }).count()).toBe(2);
    expect(await page.getByLabel("Amount (UGX)").inputValue()).toBe("80000");

    const button = page.getByRole("button", { name: "Withdraw to +256 772 345 678" });
    if (mode.js) {
      // While the withdrawal is on its way the button says so and cannot be pressed again.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route(
        (url) => url.pathname.startsWith("/dashboard"),
        async (route) => {
          if (route.request().method() === "POST") await held;
          await route.continue();
        },
      );
      await button.click();
      await page.getByRole("button", { name: "Sending…" }).waitFor();
      expect(await page.getByRole("button", { name: "Sending…" }).isDisabled()).toBe(true);
      release();
    } else {
      await button.click();
    }
    await page.getByRole("status").getByText(/^Your withdrawal of UGX 80,000 (is on its way to|was paid to) \+256 772 345 678\.$/).waitFor();
    const payouts = page.getByRole("list", { name: "Recent payouts" }).getByRole("listitem");
    expect(await payouts.count()).toBe(1);
    expect(await payouts.first().textContent()).toMatch(/^UGX 80,000 (In transit|Paid)/);
    expect(await page.getByText("Nothing to withdraw yet", { exact: false }).count()).toBe(1);
    expect(await e2eDb()("payouts").where({ user_id: seller.id }).select("kind", "amount_ugx", "msisdn")).toEqual([
      { kind: "withdrawal", amount_ugx: 80_000, msisdn: "+256772345678" },
    ]);
    await page.close();
  });
});
