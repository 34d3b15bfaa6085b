/**
 * Checkout end to end, with JavaScript on and off: a client signs in, opens a gig, continues with a package,
 * pays, waits for their phone, answers the sandbox's phone prompt and sees the outcome. With JavaScript the
 * waiting page changes in place when the payment is approved elsewhere; without it, it reloads itself
 * (meta refresh) until it does.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";

/** A client with an MTN Billing number, and a published gig at UGX 100,000 (UGX 105,000 with the fee). */
async function buyerAndGig(what: string) {
  const tag = randomBytes(3).toString("hex");
  const buyer = await createUser(e2eDb(), { role: "client", name: `Checkout ${what} ${tag}` });
  await e2eDb()("users").where({ id: buyer.id }).update({ mobile_money_number: "+256772123456" });
  const seller = await createUser(e2eDb(), { role: "freelancer", name: `Seller ${what} ${tag}` });
  const gig = await createGig(e2eDb(), {
    sellerId: seller.id,
    category: "graphics-design",
    title: `Shop logo ${what} ${tag}`,
    packages: { basic: { priceUgx: 100_000, deliveryDays: 3 } },
  });
  return { buyer, gig };
}

/** Browser errors React reports (a hydration mismatch among them), collected for the test to check. */
function reactErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error" && /React|hydrat/i.test(message.text())) errors.push(message.text());
  });
  return errors;
}

/** A new page of the mode's browser, signed in as the buyer through the sign-in form. */
async function signedIn(mode: Mode, buyer: TestUser) {
  await mode.context().clearCookies();
  const page = await mode.page();
  const errors = reactErrors(page);
  await page.goto(appUrl("/login"));
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill(buyer.email);
  await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
  return { page, errors };
}

/** Signs in, opens the gig, continues with Basic and sends the checkout form; answers the waiting page. */
async function orderAndPay(mode: Mode, buyer: TestUser, gig: { id: number; title: string }) {
  const { page, errors } = await signedIn(mode, buyer);

  await page.goto(appUrl(`/gig/${gig.id}`));
  await waitForHydration(page, mode);
  await page.getByRole("button", { name: "Continue with Basic (UGX 100,000)" }).click();
  await page.getByRole("heading", { level: 1, name: "Your order", exact: true }).waitFor();
  expect(new URL(page.url()).pathname).toBe(`/gig/${gig.id}/order`);
  await waitForHydration(page, mode);
  const summary = await page.locator(".order-summary").innerText();
  expect(summary).toMatch(/Total\s+UGX 105,000/);

  const number = page.getByLabel("Mobile-money number");
  const mtn = page.getByRole("radio", { name: "MTN Mobile Money" });
  const airtel = page.getByRole("radio", { name: "Airtel Money" });
  expect(await number.inputValue()).toBe("+256772123456");
  expect(await mtn.isChecked()).toBe(true);
  if (mode.js) {
    // The network follows the typed number, until the payer picks one themselves.
    await number.fill("0752 123 456");
    expect(await airtel.isChecked()).toBe(true);
    await number.fill("+256 772 123 456");
    expect(await mtn.isChecked()).toBe(true);
    await airtel.check();
    await number.fill("0782 123 456");
    expect(await airtel.isChecked()).toBe(true);
    await mtn.check();
    await number.fill("+256 772 123 456");
  }
  // The requirements are folded away until asked for.
  await page.getByText("Add requirements (optional)").click();
  await page.getByLabel("What should the seller know? (optional)").fill("A green logo with a drum in it.");
  await page
    .getByLabel("Files (optional)")
    .setInputFiles({ name: "colours.txt", mimeType: "text/plain", buffer: Buffer.from("Green and gold, like the drum.") });

  const pay = page.getByRole("button", { name: "Pay UGX 105,000" });
  if (mode.js) {
    // While the order is being placed the button says so and cannot be pressed again.
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    await page.route(
      (url) => url.pathname.startsWith(`/gig/${gig.id}/order`),
      async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      },
    );
    await pay.click();
    const pending = page.getByRole("button", { name: "Sending to your phone…" });
    await pending.waitFor();
    expect(await pending.isDisabled()).toBe(true);
    release();
  } else {
    await pay.click();
  }
  await page.getByText("Waiting for your phone…").waitFor();
  const orderId = Number(/^\/orders\/(\d+)\/pay$/.exec(new URL(page.url()).pathname)?.[1]);
  expect(orderId).toBeGreaterThan(0);
  await page.getByText("Approve the payment of UGX 105,000 on your phone +256 772 123 456 (MTN Mobile Money).").waitFor();
  await page.getByText("Sandbox: no real money moves.").waitFor();
  expect(await e2eDb()("orders").where({ id: orderId }).first("status", "requirements")).toEqual({
    status: "pending_payment",
    requirements: "A green logo with a drum in it.",
  });
  expect(await e2eDb()("order_files").where({ order_id: orderId }).select("file_name", "content_type", "size_bytes")).toEqual([
    { file_name: "colours.txt", content_type: "text/plain", size_bytes: 30 },
  ]);
  return { page, orderId, errors };
}

describeBothModes("Checkout", (mode) => {
  it("a client orders, approves the payment on the sandbox's phone, and the waiting page turns to Paid", async () => {
    const { buyer, gig } = await buyerAndGig("approve");
    const { page, orderId, errors } = await orderAndPay(mode, buyer, gig);
    const prompt = await page.getByRole("link", { name: "Open the phone prompt" }).getAttribute("href");
    expect(prompt).toMatch(/^\/dev\/pay\/[0-9a-f-]{36}$/);
    if (mode.js) await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));

    // The "phone", in another tab: the prompt, answered.
    const phone = await mode.page();
    await phone.goto(appUrl(prompt!));
    await waitForHydration(phone, mode);
    await phone.getByText(`Pay UGX 105,000 to Soko for order ORD-${String(orderId).padStart(6, "0")}?`).waitFor();
    await phone.getByRole("button", { name: "Approve" }).click();
    await phone.getByText("Paid. UGX 105,000 is held in escrow until you approve the delivery.").waitFor();
    await phone.close();

    // The waiting tab learns of it by itself: in place with JavaScript, by its meta refresh without.
    await page.getByText("Paid. UGX 105,000 is held in escrow until you approve the delivery.").waitFor({ timeout: 20_000 });
    if (mode.js) expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true);
    expect(await page.getByRole("link", { name: "Go to your order" }).getAttribute("href")).toBe(`/orders/${orderId}`);
    expect(await page.getByText("Waiting for your phone…").count()).toBe(0);
    expect(await page.getByRole("button", { name: "Cancel this order" }).count()).toBe(0);
    expect(await e2eDb()("orders").where({ id: orderId }).first("status")).toEqual({ status: "in_progress" });
    expect(errors).toEqual([]);
    await page.close();
  });

  it("a declined payment says it did not go through, and Try again leads back to checkout", async () => {
    const { buyer, gig } = await buyerAndGig("decline");
    const { page, orderId, errors } = await orderAndPay(mode, buyer, gig);
    await page.getByRole("link", { name: "Open the phone prompt" }).click();
    await page.getByRole("button", { name: "Decline" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Decline" }).click();
    await page.getByText("The payment did not go through: Declined on the phone.").waitFor();
    expect(new URL(page.url()).pathname).toBe(`/orders/${orderId}/pay`);
    expect(await e2eDb()("orders").where({ id: orderId }).first("status")).toEqual({ status: "cancelled" });
    await page.getByRole("link", { name: "Try again" }).click();
    await page.getByRole("heading", { level: 1, name: "Your order", exact: true }).waitFor();
    expect(`${new URL(page.url()).pathname}${new URL(page.url()).search}`).toBe(`/gig/${gig.id}/order?package=basic`);
    await page.getByRole("button", { name: "Pay UGX 105,000" }).waitFor();
    expect(errors).toEqual([]);
    await page.close();
  });

  it("checks a wrong number before ordering: in the browser with the schema it fetches once the form is used, else on the server", async () => {
    allowStatus(400, "a checkout sent without JavaScript with a number that is not a Ugandan mobile number");
    const { buyer, gig } = await buyerAndGig("wrong number");
    const { page, errors } = await signedIn(mode, buyer);

    // Every script the page runs, and whether it is zod's (its parameters' error names are in no other code).
    const scripts: { url: string; zod: boolean }[] = [];
    page.on("response", async (res) => {
      if (res.request().resourceType() !== "script" && !res.url().endsWith(".js")) return;
      scripts.push({ url: res.url(), zod: (await res.text().catch(() => "")).includes("invalid_type_error") });
    });
    const posts: string[] = [];
    page.on("request", (req) => (req.method() === "POST" ? posts.push(new URL(req.url()).pathname) : undefined));
    await page.goto(appUrl(`/gig/${gig.id}/order`));
    await waitForHydration(page, mode);
    const number = page.getByLabel("Mobile-money number");
    if (mode.js) {
      await page.waitForLoadState("networkidle");
      expect(scripts.length).toBeGreaterThan(0);
      expect(scripts.filter((s) => s.zod)).toEqual([]); // The first view carries no schema...
      await number.focus();
      await expect.poll(() => scripts.some((s) => s.zod)).toBe(true); // ...until the form is used.
    }
    await number.fill("0772 12");
    await page.getByRole("button", { name: "Pay UGX 105,000" }).click();
    await page.getByText("Enter a Ugandan mobile number in the format +256 7XX XXXXXX").waitFor();
    expect(await number.getAttribute("aria-invalid")).toBe("true");
    // With JavaScript nothing was sent; without it the server refused the form.
    expect(posts).toEqual(mode.js ? [] : [`/gig/${gig.id}/order`]);
    expect(await e2eDb()("orders").where({ buyer_id: buyer.id }).first("id")).toBeUndefined();
    expect(errors).toEqual([]);
    await page.close();
  });
});
