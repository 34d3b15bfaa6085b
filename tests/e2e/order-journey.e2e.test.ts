/**
 * An order's whole journey, as new people meet it, with JavaScript on and off: a client and a freelancer
 * join, the freelancer publishes a gig and adds a Billing number; the client orders and pays in the
 * sandbox, the freelancer delivers, the client asks for a revision, gets a second delivery, approves and
 * reviews; after the clearance (the order's completion moved back 15 days) the freelancer withdraws the
 * earnings. A second order is declined on the phone; a third is disputed and an admin refunds it. Each
 * person is a browser of their own, each pass has its own people.
 */
import { randomBytes } from "node:crypto";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { systemActor } from "~/operations/core.server";
import { runOrderTimers } from "~/operations/orders.server";
import { orderNumber } from "~/domain/order-rules";
import { confirmPayoutNumber, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { approveDelivery, DEMO_ADMIN, joinAsClient, joinAsFreelancer, newPerson, open, signIn, timeline, type Person } from "../support/e2e-orders";
import { ledgerProblems } from "../support/order-checks";

const DAY_MS = 24 * 60 * 60 * 1000;

/** The value shown beside a term of a list of figures (the balance: "Available to withdraw" → "UGX 0"). */
const figure = (area: Locator, term: string) => area.locator("dt", { hasText: term }).locator("xpath=following-sibling::dd[1]").innerText();

/** What the order's escrow account holds now, from the ledger's entries. */
async function escrowUgx(orderId: number): Promise<number> {
  const row = await e2eDb()("ledger_entries as e")
    .join("ledger_accounts as a", "a.id", "e.account_id")
    .where("a.code", `escrow:order:${orderId}`)
    .sum<{ total: string | null }>({ total: "e.amount_ugx" })
    .first();
  return Number(row?.total ?? 0);
}

/**
 * From the gig's page through checkout: Basic, the requirements and an MTN number, Pay; returns the order
 * the waiting page is about, once it asks for the phone.
 */
async function orderGig(page: Page, mode: Mode, gig: { id: number }, requirements: string): Promise<number> {
  await open(page, mode, `/gig/${gig.id}`);
  await page.getByRole("button", { name: "Continue with Basic (UGX 50,000)" }).click();
  await page.getByRole("heading", { level: 1, name: "Your order", exact: true }).waitFor();
  await waitForHydration(page, mode);
  // The requirements are folded away until asked for.
  await page.getByText("Add requirements (optional)").click();
  await page.getByLabel("What should the seller know? (optional)").fill(requirements);
  await page.getByLabel("Mobile-money number").fill("0772 123 456");
  await page.getByRole("radio", { name: "MTN Mobile Money" }).check();
  await page.getByRole("button", { name: "Pay UGX 52,500" }).click();
  await page.getByText("Waiting for your phone…").waitFor();
  await page.getByText("Approve the payment of UGX 52,500 on your phone +256 772 123 456 (MTN Mobile Money).").waitFor();
  const orderId = Number(/^\/orders\/(\d+)\/pay$/.exec(new URL(page.url()).pathname)?.[1]);
  expect(orderId).toBeGreaterThan(0);
  return orderId;
}

/** On the waiting page: follows the sandbox's link to the phone prompt and answers it; back on the waiting page. */
async function answerPhone(page: Page, mode: Mode, orderId: number, answer: "Approve" | "Decline") {
  await page.getByRole("link", { name: "Open the phone prompt" }).click();
  await page.getByText(`Pay UGX 52,500 to Soko for order ${orderNumber(orderId)}?`).waitFor();
  await waitForHydration(page, mode);
  await page.getByRole("button", { name: answer, exact: true }).click();
  await page.waitForURL((url) => url.pathname === `/orders/${orderId}/pay`);
}

const paidText = "Paid. UGX 52,500 is held in escrow until you approve the delivery.";

describeBothModes("Order journey", (mode) => {
  const tag = randomBytes(4).toString("hex");
  const password = `journey-${tag}`;
  const clientWho = { name: `Aisha Namuli ${tag}`, email: `aisha.${tag}@example.ug`, password };
  const freelancerWho = {
    name: `Brian Ssenyonga ${tag}`,
    email: `brian.${tag}@example.ug`,
    password,
    skills: "Logo design, Branding",
    description: "Logos and signboards for shops and stalls in Kampala.",
  };
  const title = `I will design a logo for your juice stall ${tag}`;
  const comment = `Quick, kind and the logo is lovely ${tag}`;
  let client: Person;
  let freelancer: Person;
  let gig: { id: number; title: string };
  let clientId: number;
  let firstOrder: number;

  beforeAll(async () => {
    client = await newPerson(mode);
    freelancer = await newPerson(mode);
  });
  afterAll(async () => {
    await client?.close();
    await freelancer?.close();
  });

  it("a client and a freelancer join; the freelancer publishes a gig and adds a Billing number", { timeout: 60_000 }, async () => {
    await joinAsClient(client.page, mode, clientWho);
    const joined = await e2eDb()("users").where({ email: clientWho.email }).first("id", "role");
    expect(joined).toMatchObject({ role: "client" });
    clientId = Number(joined.id);

    const page = freelancer.page;
    await joinAsFreelancer(page, mode, freelancerWho);
    // A seller publishes once their email is verified (ADR 051): the link mailed at joining, from the outbox.
    await open(page, mode, "/dev/outbox");
    await page
      .getByRole("article")
      .filter({ hasText: `To: ${freelancerWho.email}` })
      .first()
      .getByRole("link")
      .click();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Verify my email" }).click();
    await page.getByRole("heading", { level: 1, name: "Your email is verified" }).waitFor();
    await open(page, mode, "/dashboard");
    await page.getByRole("link", { name: "Create your first gig" }).click();
    await page.getByRole("heading", { level: 1, name: "Create a gig" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Category", { exact: true }).selectOption("graphics-design");
    await page.getByLabel("Description", { exact: true }).fill("A bright logo for your stall, with files for the signboard and WhatsApp.");
    await page.getByLabel("Basic price (UGX)", { exact: true }).fill("50000");
    await page.getByLabel("Basic delivery", { exact: true }).selectOption("3");
    await page.getByLabel("Basic revisions", { exact: true }).fill("1");
    await page.getByRole("button", { name: "Publish Gig" }).click();
    await page.getByText("Your gig is published: buyers can find it now.").waitFor();
    const row = await e2eDb()("gigs").where({ title }).first("id", "status");
    expect(row).toMatchObject({ status: "published" });
    gig = { id: Number(row.id), title };

    // Settings → Billing: where the earnings will go.
    await open(page, mode, "/settings");
    await page.getByRole("navigation", { name: "Settings sections" }).getByRole("link", { name: "Billing" }).click();
    await page.getByRole("heading", { level: 2, name: "Billing" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Mobile-money number").fill("+256 701 234 567");
    await page.getByLabel("Current password").fill(freelancerWho.password);
    await page.getByRole("button", { name: "Save number" }).click();
    await confirmPayoutNumber(page, "+256701234567");
    expect(await e2eDb()("users").where({ email: freelancerWho.email }).first("role", "mobile_money_number")).toEqual({
      role: "freelancer",
      mobile_money_number: "+256701234567",
    });
  });

  it("the client orders the gig and approves the payment on the sandbox's phone: the order is paid", async () => {
    const page = client.page;
    firstOrder = await orderGig(page, mode, gig, "A logo for my juice stall: orange and green, with a mango.");
    await answerPhone(page, mode, firstOrder, "Approve");
    // Back on the waiting page, which says so (were it still waiting, its poll or meta refresh would turn it).
    await page.getByText(paidText).waitFor({ timeout: 20_000 });
    expect(await page.getByText("Waiting for your phone…").count()).toBe(0);
    await page.getByRole("link", { name: "Go to your order" }).click();
    await page.getByRole("heading", { level: 1, name: gig.title }).waitFor();
    await page.getByText("In progress", { exact: true }).waitFor();
    await timeline(page)
      .getByText(/^Payment received/)
      .waitFor();
    expect(await escrowUgx(firstOrder)).toBe(50_000);
  });

  it("the freelancer delivers, the client asks for a revision, and the freelancer delivers again", async () => {
    let page = freelancer.page;
    await open(page, mode, "/orders");
    const card = page.getByRole("article", { name: gig.title }).filter({ hasText: orderNumber(firstOrder) });
    await card.getByText(`Buyer: ${clientWho.name}`).waitFor();
    await card.getByRole("link", { name: "Deliver" }).click();
    await page.getByRole("heading", { name: "Deliver your work" }).waitFor();
    await waitForHydration(page, mode);
    // The seller's side of the money: the price less Soko's 20%.
    expect(await figure(page.locator(".order-summary"), "You earn")).toBe("UGX 40,000");
    await page.getByText("A logo for my juice stall: orange and green, with a mango.").waitFor();
    await page.getByLabel("Message to the buyer").fill("Here is the first logo: a mango on an orange sign.");
    await page.getByRole("button", { name: "Deliver", exact: true }).click();
    await timeline(page).getByText("Seller delivered").waitFor();

    page = client.page;
    await open(page, mode, `/orders/${firstOrder}`);
    await page.getByText("Here is the first logo: a mango on an orange sign.").waitFor();
    await page.getByLabel("What should change?").fill("Please make the mango bigger.");
    await page.getByRole("button", { name: "Request revision" }).click();
    await timeline(page).getByText("Buyer asked for a revision: Please make the mango bigger.").waitFor();
    await page.getByText("1 of 1 used").waitFor();

    page = freelancer.page;
    await open(page, mode, `/orders/${firstOrder}`);
    await page.getByText("Buyer asked for a revision: Please make the mango bigger.").waitFor();
    await page.getByLabel("Message to the buyer").fill("A bigger mango, as you asked.");
    await page.getByRole("button", { name: "Deliver", exact: true }).click();
    await page.getByRole("heading", { name: "Delivery 2" }).waitFor();
    expect(await e2eDb()("orders").where({ id: firstOrder }).first("status", "revisions_used")).toEqual({ status: "delivered", revisions_used: 1 });
  });

  it("the client approves and reviews with five stars; the review shows on the gig's page", async () => {
    const page = client.page;
    await open(page, mode, `/orders/${firstOrder}`);
    await page.getByText("A bigger mango, as you asked.").waitFor();
    await approveDelivery(page, mode, { amount: "UGX 50,000", seller: freelancerWho.name });
    await page.getByRole("heading", { name: "Leave a review" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByText("Completed", { exact: true }).first().waitFor();
    await page.getByLabel("5 stars").check();
    await page.getByLabel("Your review (optional)").fill(comment);
    await page.getByRole("button", { name: "Submit review" }).click();
    await timeline(page).getByText("Buyer left a review: 5 of 5 stars").waitFor();

    await open(page, mode, `/gig/${gig.id}`);
    await page.getByRole("list", { name: "Reviews" }).getByText(comment).waitFor();
  });

  it("after the clearance the freelancer withdraws the earnings from the dashboard and sees the payout", async () => {
    const page = freelancer.page;
    await open(page, mode, "/dashboard");
    let balance = page.getByRole("region", { name: "Balance" });
    expect(await figure(balance, "Pending clearance")).toBe("UGX 40,000");
    expect(await figure(balance, "Available to withdraw")).toBe("UGX 0");

    // The clock advanced for this order only: its completion 15 days back, then the timers as the worker runs them;
    // and for the freelancer's payout number, set over a day ago (a new number waits 24 hours).
    await e2eDb()("orders")
      .where({ id: firstOrder })
      .update({ completed_at: new Date(Date.now() - 15 * DAY_MS) });
    await e2eDb()("users")
      .where({ email: freelancerWho.email })
      .update({ payout_number_set_at: new Date(Date.now() - DAY_MS - 60_000) });
    expect(await runOrderTimers(systemActor("e2e"), { db: e2eDb() })).toMatchObject({ ok: true });
    expect(await e2eDb()("orders").where({ id: firstOrder }).first("cleared_at")).toEqual({ cleared_at: expect.any(Date) });

    await open(page, mode, "/dashboard");
    balance = page.getByRole("region", { name: "Balance" });
    expect(await figure(balance, "Pending clearance")).toBe("UGX 0");
    expect(await figure(balance, "Available to withdraw")).toBe("UGX 40,000");
    expect(await page.getByLabel("Amount (UGX)").inputValue()).toBe("40000");
    await page.getByRole("button", { name: "Withdraw to +256 701 234 567" }).click();
    await page
      .getByRole("status")
      .getByText(/^Your withdrawal of UGX 40,000 (is on its way to|was paid to) \+256 701 234 567\.$/)
      .waitFor();
    balance = page.getByRole("region", { name: "Balance" });
    const payouts = balance.getByRole("list", { name: "Recent payouts" }).getByRole("listitem");
    expect(await payouts.count()).toBe(1);
    expect(await payouts.first().textContent()).toMatch(/^UGX 40,000 (In transit|Paid)/);
    expect(await figure(balance, "Available to withdraw")).toBe("UGX 0");
    await balance.getByText("Nothing to withdraw yet", { exact: false }).waitFor();
  });

  it("a second order declined on the phone did not go through, and is among the client's cancelled orders", async () => {
    const page = client.page;
    const orderId = await orderGig(page, mode, gig, "A second logo, for the juice bottles.");
    await answerPhone(page, mode, orderId, "Decline");
    await page.getByText("The payment did not go through: Declined on the phone.").waitFor();
    await page.getByText("This order is cancelled. Nothing was taken from your account.").waitFor();

    await open(page, mode, "/orders?tab=cancelled");
    const card = page
      .getByRole("list", { name: "Cancelled orders" })
      .getByRole("article", { name: gig.title })
      .filter({ hasText: orderNumber(orderId) });
    await card.waitFor();
    expect(await card.textContent()).toContain("Cancelled");
    expect(await escrowUgx(orderId)).toBe(0);
  });

  it("a third order, paid and disputed by the client, is refunded by an admin; the client finds it cancelled and refunded", { timeout: 60_000 }, async () => {
    const page = client.page;
    const orderId = await orderGig(page, mode, gig, "A logo for my second stall, at the taxi park.");
    await answerPhone(page, mode, orderId, "Approve");
    await page.getByText(paidText).waitFor({ timeout: 20_000 });

    const reason = `The seller has not answered for a week ${tag}.`;
    await open(page, mode, `/orders/${orderId}`);
    await page.getByRole("link", { name: "open a dispute…" }).click();
    await page.getByLabel("What went wrong?").waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("What went wrong?").fill(reason);
    await page.getByRole("button", { name: "Open dispute" }).click();
    await page.getByText("This order is in dispute.").waitFor();
    await timeline(page).getByText(`Dispute opened by buyer: ${reason}`).waitFor();
    expect(await escrowUgx(orderId)).toBe(50_000);

    // An admin, on a browser of their own, reads the reason and refunds the buyer.
    const admin = await newPerson(mode);
    try {
      await open(admin.page, mode, "/admin/disputes");
      await signIn(admin.page, mode, DEMO_ADMIN, "Disputes");
      const dispute = admin.page.getByRole("article", { name: `${orderNumber(orderId)} · ${gig.title}` });
      await dispute.waitFor();
      expect(await dispute.getByRole("blockquote").textContent()).toBe(reason);
      await dispute.getByRole("radio", { name: "Refund all to the buyer" }).check();
      await dispute.getByLabel("Reason (shown to the buyer and the seller)").fill("Nothing was delivered: the buyer gets everything back.");
      await dispute.getByRole("button", { name: "Resolve dispute" }).click();
      await admin.page
        .getByRole("status")
        .getByText(`Dispute over ${orderNumber(orderId)} (${gig.title}) resolved: you refunded the buyer.`)
        .waitFor();
    } finally {
      await admin.close();
    }

    await open(page, mode, "/orders?tab=cancelled");
    const card = page
      .getByRole("list", { name: "Cancelled orders" })
      .getByRole("article", { name: gig.title })
      .filter({ hasText: orderNumber(orderId) });
    await card.waitFor();
    expect(await card.textContent()).toContain("Cancelled");
    await card.getByRole("link", { name: gig.title }).click();
    await page.getByRole("heading", { level: 1, name: gig.title }).waitFor();
    await timeline(page)
      .getByText(/^Admin resolved the dispute: refunded/)
      .waitFor();

    // What is stored: nothing left in escrow, the whole total on its way back to the buyer, and the books sound.
    expect(await escrowUgx(orderId)).toBe(0);
    expect(await e2eDb()("payouts").where({ order_id: orderId }).select("user_id", "kind", "amount_ugx")).toEqual([
      { user_id: clientId, kind: "refund", amount_ugx: 52_500 },
    ]);
    expect(await ledgerProblems(e2eDb(), { orderIds: [firstOrder, orderId], userIds: [clientId] })).toEqual([]);
  });
});
