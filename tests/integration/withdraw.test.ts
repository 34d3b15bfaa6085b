/**
 * Withdrawing from the dashboard, through the real server with JavaScript off (a form POST): the amount is
 * checked against the available balance under its lock, refusals come back beside the amount field (400) or
 * as the form's message (409), and neither a double click (one request key) nor two forms sent at once (two
 * keys, each for the whole balance) can take more than there is.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { runOrderTimers } from "~/operations/orders.server";
import { settlePayout } from "~/operations/payments.server";
import { messageOf } from "~/content/operation-messages";

const NO_PAYOUT_NUMBER = messageOf({ code: "payout.no_number", params: {} });
import { createSession, createUser } from "../support/factories";
import { DAY_MS, rowCount } from "../support/order-checks";
import { completedTestOrder, opts, orderTestContext, system } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

/**
 * The server has the file's QUEUE_PREFIX, so its sandbox is `t.sandbox`: the withdrawals it sends are settled
 * from here with `t.providers`.
 */
const t = orderTestContext("withdraw", { parties: { seller: { name: "Okello James" } } });
let server: TestServer;
let sellerCookie: string;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });
  sellerCookie = `soko_session=${await createSession(t.db, t.seller.id)}`;
  // The seller has UGX 80,000 available: an order of UGX 100,000 (less the 20% fee) completed and cleared.
  await completedTestOrder(t, t.buyer, t.seller, t.gigId);
  await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * DAY_MS) });
  expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ pendingUgx: 0, availableUgx: 80_000 });
});
afterAll(async () => {
  await server?.stop();
});

let keys = 0;
const newKey = () => `withdraw-test-key-${process.pid}-${++keys}`;

/** The withdraw form as a browser without JavaScript sends it. */
function withdraw(cookie: string, amountUgx: string, requestKey = newKey()) {
  return fetch(`${server.baseUrl}/dashboard`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, Origin: server.baseUrl },
    body: new URLSearchParams({ amountUgx, requestKey, intent: "withdraw" }),
  });
}

async function page(cookie: string, path = "/dashboard") {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  return (await res.text()).replace(/<!-- -->/g, "");
}

const payoutsOf = (userId: number) => t.db("payouts").where({ user_id: userId }).orderBy("id");

describe("withdrawing from the dashboard", () => {
  it("refuses more than the available balance beside the amount, and moves nothing", async () => {
    const res = await withdraw(sellerCookie, "80001");
    expect(res.status).toBe(400);
    const html = (await res.text()).replace(/<!-- -->/g, "");
    expect(html).toContain("You can withdraw at most UGX 80,000.");
    // The message is the amount field's own, and the field keeps what was typed.
    expect(html).toMatch(/<input[^>]*name="amountUgx"[^>]*aria-invalid="true"|<input[^>]*aria-invalid="true"[^>]*name="amountUgx"/);
    expect(await payoutsOf(t.seller.id)).toEqual([]);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 80_000, inTransitUgx: 0 });
  });

  it("refuses less than the smallest withdrawal", async () => {
    const res = await withdraw(sellerCookie, "4999");
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("The smallest withdrawal is UGX 5,000.");
    expect(await payoutsOf(t.seller.id)).toEqual([]);
  });

  it("refuses an amount that is not whole shillings", async () => {
    const res = await withdraw(sellerCookie, "12.5");
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Enter an amount in whole shillings");
    expect(await payoutsOf(t.seller.id)).toEqual([]);
  });

  it("says where to add a payout number when the seller has none (409), and links to Settings → Billing", async () => {
    const other = await createUser(t.db, { role: "freelancer" });
    const cookie = `soko_session=${await createSession(t.db, other.id)}`;
    const res = await withdraw(cookie, "10000");
    expect(res.status).toBe(409);
    const html = await res.text();
    expect(html).toContain(NO_PAYOUT_NUMBER);
    expect(html).toContain('href="/settings?tab=billing"');
    expect(await payoutsOf(other.id)).toEqual([]);
  });

  it("sends a good withdrawal to the Billing number, lists it, and moves the balance", async () => {
    const res = await withdraw(sellerCookie, "30000");
    expect(res.status).toBe(303);
    const location = res.headers.get("location")!;
    const [payout] = await payoutsOf(t.seller.id);
    expect(payout).toMatchObject({ kind: "withdrawal", amount_ugx: 30_000, msisdn: "+256701234567", status: "in_transit", provider: "sandbox" });
    expect(location).toBe(`/dashboard?payout=${payout.reference}`);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 50_000, inTransitUgx: 30_000 });

    let html = await page(sellerCookie, location);
    expect(html).toContain("Your withdrawal of UGX 30,000 is on its way to +256 701 234 567.");
    expect(html).toMatch(/UGX 30,000 <span class="status-badge payout-in_transit">In transit<\/span>/);
    expect(html).toMatch(/<dt>In transit<\/dt><dd>UGX 30,000<\/dd>/);

    // The sandbox pays a disbursement at once; once asked, the payout is paid and leaves the platform.
    expect(await settlePayout(system, { reference: payout.reference }, { db: t.db, providers: t.providers })).toMatchObject({
      ok: true,
      value: { settlement: "paid" },
    });
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 50_000, inTransitUgx: 0 });
    html = await page(sellerCookie, location);
    expect(html).toContain("Your withdrawal of UGX 30,000 was paid to +256 701 234 567.");
    expect(html).toMatch(/UGX 30,000 <span class="status-badge payout-paid">Paid<\/span>/);
    // The form offers the rest.
    expect(html).toMatch(/<input[^>]*name="amountUgx"[^>]*value="50000"/);
  });

  it("makes one payout of the same form sent twice (one request key)", async () => {
    const key = newKey();
    const answers = await Promise.all([withdraw(sellerCookie, "10000", key), withdraw(sellerCookie, "10000", key)]);
    expect(answers.map((r) => r.status)).toEqual([303, 303]);
    expect(answers[0]!.headers.get("location")).toBe(answers[1]!.headers.get("location"));
    expect(await rowCount(t.db("payouts").where({ user_id: t.seller.id, request_key: key }))).toBe(1);
    // And once more, later (a refresh that re-posts): still one.
    expect((await withdraw(sellerCookie, "10000", key)).status).toBe(303);
    expect(await payoutsOf(t.seller.id)).toHaveLength(2);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 40_000 });
  });

  it("lets only one of two withdrawals of the whole balance, sent at once, through", async () => {
    const answers = await Promise.all([withdraw(sellerCookie, "40000"), withdraw(sellerCookie, "40000")]);
    expect(answers.map((r) => r.status).sort()).toEqual([303, 400]);
    const refused = answers.find((r) => r.status === 400)!;
    expect(await refused.text()).toContain("You can withdraw at most UGX 0.");
    expect(await rowCount(t.db("payouts").where({ user_id: t.seller.id, amount_ugx: 40_000 }))).toBe(1);
    const balances = await memberBalances(t.db, t.seller.id);
    expect(balances.availableUgx).toBe(0);
    expect(balances.inTransitUgx).toBeGreaterThanOrEqual(40_000);
    // Every withdrawal is accounted for: 80,000 earned = what is available + what left or is leaving.
    const sent = await t.db("payouts").where({ user_id: t.seller.id }).whereNot({ status: "failed" }).sum({ total: "amount_ugx" });
    expect(Number(sent[0]!.total)).toBe(80_000);
  });
});
