/**
 * The payment page on a 360×740 phone, with JavaScript on and off: what the payer should see on their phone
 * for MTN and for Airtel, "Send the prompt again" and "Use another number" (each a new payment of the order),
 * and the network taken from the typed number when the radio was left where the page drew it (without
 * JavaScript it does not follow the number), on checkout and on the payment page.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { open } from "../support/e2e-orders";

/** A client with an MTN Billing number, and a published gig at UGX 100,000 (UGX 105,000 with the fee). */
async function buyerAndGig(what: string) {
  const tag = randomBytes(3).toString("hex");
  const buyer = await createUser(e2eDb(), { role: "client", name: `Payer ${what} ${tag}` });
  await e2eDb()("users").where({ id: buyer.id }).update({ mobile_money_number: "+256772123456" });
  const seller = await createUser(e2eDb(), { role: "freelancer", name: `Seller ${what} ${tag}` });
  const gig = await createGig(e2eDb(), {
    sellerId: seller.id,
    category: "graphics-design",
    title: `Stall sign ${what} ${tag}`,
    packages: { basic: { priceUgx: 100_000, deliveryDays: 3 } },
  });
  return { buyer, gig };
}

/** Nothing wider than the screen, and `main` (the page's main action) within the first screen. */
async function fitsThePhone(page: Page, main: string) {
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  const box = await page.getByRole("button", { name: main }).boundingBox();
  expect(box).not.toBeNull();
  expect(box!.y + box!.height).toBeLessThanOrEqual(740);
  expect(box!.height).toBeGreaterThanOrEqual(44);
}

/** Signs in on a phone-sized page and checks out the gig's Basic package from `number`, the radio untouched. */
async function checkout(mode: Mode, buyer: TestUser, gigId: number, number: string) {
  await mode.context().clearCookies();
  // A member who made their privacy choice before: the first screen is the page's own.
  // Signed in already (a session of the buyer's): sign-in itself is tested elsewhere.
  await mode.context().addCookies([
    { name: "soko_consent", value: "denied", url: appUrl("/") },
    { name: "soko_session", value: await createSession(e2eDb(), buyer.id), url: appUrl("/") },
  ]);
  const page = await mode.page();
  await page.setViewportSize({ width: 360, height: 740 });
  await open(page, mode, `/gig/${gigId}/order`);
  await page.getByRole("heading", { level: 1, name: "Your order", exact: true }).waitFor();
  await page.getByText("The phone that approves the payment: 0772 123456 or +256 772 123456.").waitFor();
  await page.getByLabel("Mobile-money number").fill(number);
  await page.getByRole("button", { name: "Pay UGX 105,000" }).click();
  await page.getByText("Waiting for your phone…").waitFor();
  const orderId = Number(/^\/orders\/(\d+)\/pay$/.exec(new URL(page.url()).pathname)?.[1]);
  expect(orderId).toBeGreaterThan(0);
  await waitForHydration(page, mode);
  return { page, orderId };
}

const paymentsOf = (orderId: number) =>
  e2eDb()("payments").where({ order_id: orderId }).orderBy("id").select("network", "msisdn", "status", e2eDb().raw("superseded_at IS NOT NULL AS superseded"));
const steps = (page: Page) => page.locator(".pay-steps").innerText();

describeBothModes("The payment page", (mode) => {
  it("checkout takes an Airtel number's network with the radio left on MTN; the page says what Airtel shows, and sends the prompt again", async () => {
    const { buyer, gig } = await buyerAndGig("again");
    const { page, orderId } = await checkout(mode, buyer, gig.id, "0752 123456");
    const number = `ORD-${String(orderId).padStart(6, "0")}`;
    expect(await paymentsOf(orderId)).toEqual([{ network: "airtel", msisdn: "+256752123456", status: "pending", superseded: false }]);
    await page.getByText("Approve the payment of UGX 105,000 on your phone +256 752 123 456 (Airtel Money).").waitFor();
    expect(await steps(page)).toContain(`A prompt from Airtel Money asks you to confirm paying UGX 105,000 for “Soko ${number}”.`);
    expect(await steps(page)).toContain("Enter your Airtel Money PIN to confirm.");
    await page.getByText(/This order waits 30 minutes for your payment: (30|29) minutes left\./).waitFor();
    await fitsThePhone(page, "Send the prompt again");

    await page.getByRole("button", { name: "Send the prompt again" }).click();
    // The sandbox withdraws the superseded prompt (after the commit); the new one goes to the same phone.
    await expect
      .poll(() => paymentsOf(orderId))
      .toEqual([
        { network: "airtel", msisdn: "+256752123456", status: "failed", superseded: true },
        { network: "airtel", msisdn: "+256752123456", status: "pending", superseded: false },
      ]);
    await page.getByText("Waiting for your phone…").waitFor();
    expect(new URL(page.url()).pathname).toBe(`/orders/${orderId}/pay`);
    expect(await e2eDb()("orders").where({ id: orderId }).first("status")).toEqual({ status: "pending_payment" });
    await page.getByRole("button", { name: "Cancel this order" }).waitFor();
  }, 90_000);

  it("Use another number takes an Airtel number's network with the radio untouched; the page follows the new prompt until it is paid", async () => {
    const { buyer, gig } = await buyerAndGig("number");
    const { page, orderId } = await checkout(mode, buyer, gig.id, "0772 123456");
    const number = `ORD-${String(orderId).padStart(6, "0")}`;
    expect(await steps(page)).toContain(`A prompt from MTN Mobile Money asks you to pay UGX 105,000 for “Soko ${number}”.`);
    expect(await steps(page)).toContain("Enter your Mobile Money PIN to approve.");
    await fitsThePhone(page, "Send the prompt again");

    await page.getByRole("link", { name: "Use another number" }).click();
    await page.getByLabel("Mobile-money number").fill("0701 234567");
    if (!mode.js) expect(await page.getByRole("radio", { name: "MTN Mobile Money" }).isChecked()).toBe(true);
    await page.getByRole("button", { name: "Send the prompt to this number" }).click();
    await page.getByText("Approve the payment of UGX 105,000 on your phone +256 701 234 567 (Airtel Money).").waitFor();
    expect(await steps(page)).toContain("Enter your Airtel Money PIN to confirm.");
    expect(await paymentsOf(orderId)).toEqual([
      { network: "mtn", msisdn: "+256772123456", status: "failed", superseded: true },
      { network: "airtel", msisdn: "+256701234567", status: "pending", superseded: false },
    ]);

    // A number that is not one is refused beside the field (400), and nothing is asked.
    allowStatus(400, "the number form refuses a number that is not one");
    await page.getByRole("link", { name: "Use another number" }).click();
    await page.getByLabel("Mobile-money number").fill("12345");
    await page.getByRole("button", { name: "Send the prompt to this number" }).click();
    await page.getByText("Enter a Ugandan mobile number in the format +256 7XX XXXXXX").waitFor();
    expect(await paymentsOf(orderId)).toHaveLength(2);

    await open(page, mode, `/orders/${orderId}/pay`);
    await page.getByRole("link", { name: "Open the phone prompt" }).click();
    await page.getByRole("button", { name: "Approve" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Paid. UGX 105,000 is held in escrow until you approve the delivery.").waitFor();
    expect(await e2eDb()("orders").where({ id: orderId }).first("status")).toEqual({ status: "in_progress" });
    expect(await page.getByRole("button", { name: "Send the prompt again" }).count()).toBe(0);
  }, 90_000);
});
