/**
 * Changing where the earnings go (ADR 032, 055), through the real server with JavaScript off (form POSTs):
 * Settings → Billing takes the current password (wrong ones counted per member in Redis) and texts a code to a
 * new number, which is set only when the code comes back; a new number is told to the member by mail and in
 * /notifications with the number masked, and withdrawals to it wait 24 hours while the dashboard says until
 * when. Withdrawals to a number never proven are refused. The seller has UGX 80,000 available, no payout number
 * and no verified phone at first.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memberBalances } from "~/models/ledger.server";
import { runOrderTimers } from "~/operations/orders.server";
import { formatDateTime } from "~/utils/dates";
import { PAYOUT_NUMBER_HOLD_MS } from "~/domain/mobile-money";
import { createSession, createUser, DEFAULT_PASSWORD } from "../support/factories";
import { DAY_MS, MINUTE_MS, rowCount } from "../support/order-checks";
import { completedTestOrder, createParties, opts, orderTestContext, system } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("payout_number", { parties: { seller: { name: "Nakato Grace", payoutNumber: null } } });
let server: TestServer;
let sellerCookie: string;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });
  sellerCookie = `soko_session=${await createSession(t.db, t.seller.id)}`;
  await completedTestOrder(t, t.buyer, t.seller, t.gigId);
  await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * DAY_MS) });
  expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ pendingUgx: 0, availableUgx: 80_000 });
});
afterAll(async () => {
  await server?.stop();
});

function post(cookie: string, path: string, form: Record<string, string>) {
  return fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: cookie, Origin: server.baseUrl },
    body: new URLSearchParams(form),
  });
}
const saveNumber = (cookie: string, form: Record<string, string>) => post(cookie, "/settings?tab=billing", form);
const typeCode = (cookie: string, code: string) => post(cookie, "/settings?tab=billing", { intent: "confirm-payout", code });
/** The code in the latest text to `userId` (the SMS sandbox keeps it in sms_messages). */
async function textedCode(userId: number, to: string): Promise<string> {
  const sms = await t.db("sms_messages").where({ user_id: userId, purpose: "verification", to_number: to }).orderBy("id", "desc").first("body");
  return /code is (\d{6})/.exec(sms?.body ?? "")?.[1] ?? "none";
}
/** Saves a number and brings back the code texted to it, as the member would. */
async function saveAndConfirm(cookie: string, userId: number, number: string) {
  const res = await saveNumber(cookie, { mobileMoneyNumber: number, currentPassword: DEFAULT_PASSWORD });
  expect(res.headers.get("location")).toBe("/settings?tab=billing&saved=code");
  return typeCode(cookie, await textedCode(userId, number.replace(/\s/g, "")));
}
let keys = 0;
const withdraw = (cookie: string, amountUgx: string) =>
  post(cookie, "/dashboard", { amountUgx, requestKey: `payout-number-${process.pid}-${++keys}`, intent: "withdraw" });

async function page(cookie: string, path: string) {
  const res = await fetch(`${server.baseUrl}${path}`, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  return text(await res.text());
}
/** A page's HTML as a reader sees its text runs (React's text separators and escapes undone). */
const text = (html: string) =>
  html
    .replace(/<!-- -->/g, "")
    .replace(/&#x27;/g, "'")
    .replace(/&amp;/g, "&");

/** The message shown beside a field (Conform's `<form>-<field>-error` list), as text. */
function besideField(html: string, field: string): string {
  const list = new RegExp(`<ul id="[\\w-]*-${field}-error"[^>]*>(.*?)</ul>`, "s").exec(html)?.[1] ?? "";
  return list
    .replace(/<[^>]+>/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

const stored = (userId: number) => t.db("users").where({ id: userId }).first("mobile_money_number", "payout_number_set_at");
const proof = (userId: number) => t.db("users").where({ id: userId }).first("payout_number_verified_at", "phone", "phone_verified_at");
/** The member's mails and notifications about their payout number (the order's own steps sent them others). */
const mailsTo = (email: string) => t.db("outbox").where({ to_address: email }).whereLike("subject", "%payout number%").orderBy("id").select("subject", "body");
const notificationsOf = (userId: number) =>
  t.db("notifications").where({ user_id: userId, kind: "payout_number_changed" }).orderBy("id").select("kind", "body");
const journals = () => rowCount(t.db("ledger_journals"));

describe("setting the payout number takes the current password", () => {
  it("refuses a number without the password: 400, the message beside the password field, nothing stored or sent", async () => {
    const res = await saveNumber(sellerCookie, { mobileMoneyNumber: "+256 701 234 567" });
    expect(res.status).toBe(400);
    expect(besideField(await res.text(), "currentPassword")).toBe("Enter your current password");
    expect(await stored(t.seller.id)).toEqual({ mobile_money_number: null, payout_number_set_at: null });
    expect(await mailsTo(t.seller.email)).toEqual([]);
    expect(await notificationsOf(t.seller.id)).toEqual([]);
  });

  it("refuses a wrong password: 400 beside the field, never echoed, nothing stored or sent", async () => {
    const res = await saveNumber(sellerCookie, { mobileMoneyNumber: "+256 701 234 567", currentPassword: "guessed-password-1" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(besideField(html, "currentPassword")).toBe("Your current password is not right");
    expect(html).not.toContain("guessed-password-1");
    expect(await stored(t.seller.id)).toEqual({ mobile_money_number: null, payout_number_set_at: null });
    expect(await mailsTo(t.seller.email)).toEqual([]);
    expect(await notificationsOf(t.seller.id)).toEqual([]);
  });

  it("with the right password texts a code to the new number and stores nothing yet; a wrong code is refused beside its field", async () => {
    const res = await saveNumber(sellerCookie, { mobileMoneyNumber: "+256 701 234 567", currentPassword: DEFAULT_PASSWORD });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/settings?tab=billing&saved=code");
    expect(await stored(t.seller.id)).toEqual({ mobile_money_number: null, payout_number_set_at: null });
    const code = await textedCode(t.seller.id, "+256701234567");
    expect(code).toMatch(/^\d{6}$/);
    expect(await t.db("phone_codes").where({ user_id: t.seller.id, purpose: "payout" }).first("phone", "code_hash")).toMatchObject({ phone: "+256701234567" });
    expect(JSON.stringify(await t.db("phone_codes").where({ user_id: t.seller.id }))).not.toContain(code);
    const billing = await page(sellerCookie, "/settings?tab=billing&saved=code");
    expect(billing).toContain("We texted a code to your new number.");
    expect(billing).toContain("The six-digit code texted to +256701234567");

    const wrong = await typeCode(sellerCookie, code === "000000" ? "111111" : "000000");
    expect(wrong.status).toBe(400);
    expect(text(await wrong.text())).toContain("That code is not right. Check the text and try again.");
    expect(await stored(t.seller.id)).toEqual({ mobile_money_number: null, payout_number_set_at: null });
    expect(await mailsTo(t.seller.email)).toEqual([]);
  });

  it("the right code stores the number, proves it and the phone, mails the account's email and notifies in-app, the number masked", async () => {
    const res = await typeCode(sellerCookie, await textedCode(t.seller.id, "+256701234567"));
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("/settings?tab=billing&saved=1");
    expect(await proof(t.seller.id)).toMatchObject({
      phone: "+256701234567",
      payout_number_verified_at: expect.any(Date),
      phone_verified_at: expect.any(Date),
    });
    // The same code again: used.
    const replay = await typeCode(sellerCookie, await textedCode(t.seller.id, "+256701234567"));
    expect(replay.status).toBe(400);
    expect(text(await replay.text())).toContain("That code was already used.");
    const row = await stored(t.seller.id);
    expect(row.mobile_money_number).toBe("+256701234567");
    expect(Math.abs(row.payout_number_set_at.getTime() - Date.now())).toBeLessThan(MINUTE_MS);
    const setAt = formatDateTime(row.payout_number_set_at, "EAT");
    const opens = formatDateTime(new Date(row.payout_number_set_at.getTime() + PAYOUT_NUMBER_HOLD_MS), "EAT");

    const mails = await mailsTo(t.seller.email);
    expect(mails).toHaveLength(1);
    expect(mails[0].subject).toBe("Soko: your payout number was set");
    expect(mails[0].body).toContain(`was set to ****4567 on ${setAt}.`);
    expect(mails[0].body).toContain(`withdrawals to the new number open 24 hours later, on ${opens}.`);
    expect(mails[0].body).toMatch(/If it was not you, .*\/forgot-password/s);
    expect(mails[0].body).not.toContain("701234567");

    const notifications = await notificationsOf(t.seller.id);
    expect(notifications).toEqual([
      {
        kind: "payout_number_changed",
        body: `Your payout number was set to ****4567 on ${setAt}. Withdrawals to it open on ${opens}. Not you? Reset your password now and write to support@soko.ug.`,
      },
    ]);
    // /notifications shows it, leading to Settings → Billing.
    const list = await page(sellerCookie, "/notifications");
    const escaped = notifications[0].body.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    expect(list).toMatch(new RegExp(`<a [^>]*href="/settings\\?tab=billing"[^>]*>${escaped}</a>`));
    expect(await rowCount(t.db("activity").where({ user_id: t.seller.id, kind: "billing_updated" }))).toBe(1);

    // The Billing tab says so, and keeps no password in its form.
    const billing = await page(sellerCookie, "/settings?tab=billing&saved=1");
    expect(billing).toContain("Your mobile-money number is saved.");
    expect(billing).toContain(`Withdrawals to ****4567 open on ${opens}.`);
  });

  it("the same number again changes nothing: no new mail, no new hold", async () => {
    const before = await stored(t.seller.id);
    const res = await saveNumber(sellerCookie, { mobileMoneyNumber: "+256701234567", currentPassword: DEFAULT_PASSWORD });
    expect(res.status).toBe(302);
    expect(await stored(t.seller.id)).toEqual(before);
    expect(await mailsTo(t.seller.email)).toHaveLength(1);
    expect(await notificationsOf(t.seller.id)).toHaveLength(1);
  });
});

describe("withdrawals to a new payout number wait 24 hours", () => {
  it("refuses a withdrawal right after with the hold's message (409): no payout, the ledger untouched, the money still available", async () => {
    const setAt: Date = (await stored(t.seller.id)).payout_number_set_at;
    const opens = formatDateTime(new Date(setAt.getTime() + PAYOUT_NUMBER_HOLD_MS), "EAT");
    const before = await journals();
    const res = await withdraw(sellerCookie, "30000");
    expect(res.status).toBe(409);
    expect(text(await res.text())).toContain(`Withdrawals to ****4567 open on ${opens}: a new payout number waits 24 hours`);
    expect(await rowCount(t.db("payouts").where({ user_id: t.seller.id }))).toBe(0);
    expect(await journals()).toBe(before);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 80_000, inTransitUgx: 0 });
  });

  it("the dashboard says until when, in the member's time zone, and offers no form to send until then", async () => {
    const setAt: Date = (await stored(t.seller.id)).payout_number_set_at;
    const until = new Date(setAt.getTime() + PAYOUT_NUMBER_HOLD_MS);
    let html = await page(sellerCookie, "/dashboard");
    expect(html).toContain(`Withdrawals to ****4567 open on ${formatDateTime(until, "EAT")}.`);
    expect(html).toMatch(/<dt>Available to withdraw<\/dt><dd>UGX 80,000<\/dd>/);
    expect(html).not.toContain('name="amountUgx"');
    await t.db("users").where({ id: t.seller.id }).update({ time_zone: "UTC" });
    html = await page(sellerCookie, "/dashboard");
    expect(html).toContain(`Withdrawals to ****4567 open on ${formatDateTime(until, "UTC")}.`);
    expect(formatDateTime(until, "UTC")).toMatch(/ UTC$/);
    await t.db("users").where({ id: t.seller.id }).update({ time_zone: "EAT" });
  });

  it("24 hours after the number was set, the withdrawal goes through to it (not a few minutes before)", async () => {
    // The clock moved for this member only: their number set a day less two minutes ago, then a day and a minute ago.
    await t
      .db("users")
      .where({ id: t.seller.id })
      .update({ payout_number_set_at: new Date(Date.now() - PAYOUT_NUMBER_HOLD_MS + 2 * MINUTE_MS) });
    expect((await withdraw(sellerCookie, "30000")).status).toBe(409);
    expect(await rowCount(t.db("payouts").where({ user_id: t.seller.id }))).toBe(0);
    await t
      .db("users")
      .where({ id: t.seller.id })
      .update({ payout_number_set_at: new Date(Date.now() - PAYOUT_NUMBER_HOLD_MS - MINUTE_MS) });
    const dashboard = await page(sellerCookie, "/dashboard");
    expect(dashboard).not.toContain("Withdrawals to ****4567 open on");
    expect(dashboard).toContain('name="amountUgx"');
    const res = await withdraw(sellerCookie, "30000");
    expect(res.status).toBe(303);
    expect(await t.db("payouts").where({ user_id: t.seller.id }).select("msisdn", "amount_ugx")).toEqual([{ msisdn: "+256701234567", amount_ugx: 30_000 }]);
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 50_000 });
  });

  it("a changed number is held again, and its mail names the old number masked", async () => {
    const res = await saveAndConfirm(sellerCookie, t.seller.id, "+256 772 555 111");
    expect(res.status).toBe(302);
    const mails = await mailsTo(t.seller.email);
    expect(mails).toHaveLength(2);
    expect(mails[1].subject).toBe("Soko: your payout number was changed");
    expect(mails[1].body).toMatch(/was changed to \*\*\*\*5111 on .* \(it was \*\*\*\*4567\)\./);
    expect((await notificationsOf(t.seller.id)).at(-1)?.body).toMatch(/^Your payout number was changed to \*\*\*\*5111 on /);
    const refused = await withdraw(sellerCookie, "10000");
    expect(refused.status).toBe(409);
    expect(text(await refused.text())).toContain("Withdrawals to ****5111 open on ");
    expect(await memberBalances(t.db, t.seller.id)).toMatchObject({ availableUgx: 50_000 });
  });
});

describe("wrong current passwords are counted per member", () => {
  it("after ten wrong ones (Billing and Security together) even the right one waits: 429 with Retry-After, nothing stored; right ones are not counted", async () => {
    const member = await createUser(t.db, { role: "freelancer" });
    const cookie = `soko_session=${await createSession(t.db, member.id)}`;
    // A right password first: given back, so it uses up none of the ten.
    expect((await saveAndConfirm(cookie, member.id, "+256772000001")).status).toBe(302);
    for (let i = 0; i < 5; i++) {
      expect((await saveNumber(cookie, { mobileMoneyNumber: "+256772999999", currentPassword: `guess-${i}` })).status).toBe(400);
      const security = await post(cookie, "/settings?tab=security", {
        currentPassword: `guess-s-${i}`,
        password: "a-new-password",
        confirmPassword: "a-new-password",
      });
      expect(security.status).toBe(400);
    }
    const limited = await saveNumber(cookie, { mobileMoneyNumber: "+256772999999", currentPassword: DEFAULT_PASSWORD });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(text(await limited.text())).toContain("Too many wrong passwords. Please try again in an hour, or reset your password.");
    expect((await stored(member.id)).mobile_money_number).toBe("+256772000001");
    // Another member is not held back by this one's guesses (their own number again: proven, nothing to text).
    const other = await saveNumber(sellerCookie, { mobileMoneyNumber: "+256772555111", currentPassword: DEFAULT_PASSWORD });
    expect(other.headers.get("location")).toBe("/settings?tab=billing&saved=1");
  }, 120_000); // a dozen scrypt checks, slow on a busy machine
});

describe("payouts go only to a proven number", () => {
  it("refuses a withdrawal to a number saved before numbers were proven (409, nothing moves); saving it again proves it by code, without a new hold", async () => {
    const { seller, buyer, gigId } = await createParties(t.db, { seller: { name: "Old Number Seller", payoutNumber: null } });
    await t.db("users").where({ id: seller.id }).update({ mobile_money_number: "+256772444333" });
    await completedTestOrder(t, buyer, seller, gigId);
    await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * DAY_MS) });
    const cookie = `soko_session=${await createSession(t.db, seller.id)}`;
    const before = await journals();
    const refused = await withdraw(cookie, "30000");
    expect(refused.status).toBe(409);
    expect(text(await refused.text())).toContain("Prove your payout number ****4333 first: save it again in Settings → Billing");
    expect(await rowCount(t.db("payouts").where({ user_id: seller.id }))).toBe(0);
    expect(await journals()).toBe(before);
    expect(await page(cookie, "/settings?tab=billing")).toContain("Withdrawals need a proven number: save ****4333 again");

    expect((await saveAndConfirm(cookie, seller.id, "+256772444333")).status).toBe(302);
    expect(await stored(seller.id)).toEqual({ mobile_money_number: "+256772444333", payout_number_set_at: null });
    expect(await mailsTo(seller.email)).toEqual([]);
    expect((await withdraw(cookie, "30000")).status).toBe(303);
    expect(await t.db("payouts").where({ user_id: seller.id }).select("msisdn", "amount_ugx")).toEqual([{ msisdn: "+256772444333", amount_ugx: 30_000 }]);
  });

  it("sets a member's verified phone as their payout number at once, with no code texted", async () => {
    const member = await createUser(t.db, { role: "freelancer", verifiedPhone: "+256772888777" });
    const cookie = `soko_session=${await createSession(t.db, member.id)}`;
    const res = await saveNumber(cookie, { mobileMoneyNumber: "+256 772 888 777", currentPassword: DEFAULT_PASSWORD });
    expect(res.headers.get("location")).toBe("/settings?tab=billing&saved=1");
    expect((await stored(member.id)).mobile_money_number).toBe("+256772888777");
    expect(await t.db("sms_messages").where({ user_id: member.id })).toEqual([]);
  });
});
