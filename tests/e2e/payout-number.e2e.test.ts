/**
 * A seller sets where their earnings go, with JavaScript on and off (ADR 032, 055): Settings → Billing asks for
 * the current password and says so beside the field when it is missing or wrong; the right one texts a code to
 * the number, a wrong code is refused beside its field, the right one saves the number, the member finds the
 * masked notice in /notifications, and the dashboard's balance says until when withdrawals to it wait.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { formatDateTime } from "~/utils/dates";
import { PAYOUT_NUMBER_HOLD_MS } from "~/domain/mobile-money";
import { allowStatus, appUrl, describeBothModes, e2eDb, textedCode, waitForHydration, type Mode } from "../support/e2e";
import { createUser, DEFAULT_PASSWORD } from "../support/factories";

async function open(page: Page, mode: Mode, path: string) {
  await page.goto(appUrl(path));
  await waitForHydration(page, mode);
}

describeBothModes("Payout number", (mode) => {
  const tag = mode.js ? "on" : "off";

  it("takes the current password and a texted code to set the number, tells the member, and the dashboard says when withdrawals open", async () => {
    allowStatus(400, "the number is sent without the password, then with a wrong one, then a wrong code");
    // Its own number in each mode (the same last four digits), so the two never share a code's resend limit.
    const number = mode.js ? "+256702234567" : "+256703234567";
    const typed = `${number.slice(0, 4)} ${number.slice(4, 7)} ${number.slice(7, 10)} ${number.slice(10)}`;
    await mode.context().clearCookies();
    const seller = await createUser(e2eDb(), { role: "freelancer", name: `Payout Seller ${tag}`, email: `payout.seller.${tag}.${Date.now()}@example.ug` });
    const page = await mode.page();
    await open(page, mode, "/login?redirectTo=/settings?tab=billing");
    await page.getByLabel("Email").fill(seller.email);
    await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 2, name: "Billing" }).waitFor();
    await waitForHydration(page, mode);
    const stored = () => e2eDb()("users").where({ id: seller.id }).first("mobile_money_number", "payout_number_set_at");

    // No password: nothing is sent (the browser's own check without JavaScript, Conform's with it).
    await page.getByLabel("Mobile-money number").fill(typed);
    await page.getByRole("button", { name: "Save number" }).click();
    if (mode.js) {
      await page.getByText("Enter your current password").waitFor();
    } else {
      await page.waitForTimeout(300); // a POST that must not be sent is a non-event: the time it would take
      expect(await page.getByLabel("Current password").evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
    }
    expect(await stored()).toEqual({ mobile_money_number: null, payout_number_set_at: null });

    // A wrong password: the message beside the field, the number kept in the form, nothing stored.
    await page.getByLabel("Current password").fill("not-my-password");
    await page.getByRole("button", { name: "Save number" }).click();
    await page.getByText("Your current password is not right").waitFor();
    expect(await page.getByLabel("Mobile-money number").inputValue()).toBe(typed);
    expect(await page.getByLabel("Current password").inputValue()).toBe("");
    expect(await stored()).toEqual({ mobile_money_number: null, payout_number_set_at: null });

    // The right one: a code is texted to the number, which is not stored until it comes back; a wrong code is
    // refused beside its field.
    await page.getByLabel("Current password").fill(DEFAULT_PASSWORD);
    await page.getByRole("button", { name: "Save number" }).click();
    await page.getByText("We texted a code to your new number.").waitFor();
    expect(await stored()).toEqual({ mobile_money_number: null, payout_number_set_at: null });
    const code = await textedCode(number);
    await page.getByLabel(`The six-digit code texted to ${number}`).fill(code === "000000" ? "111111" : "000000");
    await page.getByRole("button", { name: "Save this number" }).click();
    await page.getByText("That code is not right. Check the text and try again.").waitFor();
    expect(await stored()).toEqual({ mobile_money_number: null, payout_number_set_at: null });

    // The right code: saved, with the hold's end shown in the member's time zone.
    await page.getByLabel(`The six-digit code texted to ${number}`).fill(code);
    await page.getByRole("button", { name: "Save this number" }).click();
    await page.getByText("Your mobile-money number is saved.").waitFor();
    const row = await stored();
    expect(row.mobile_money_number).toBe(number);
    const opens = formatDateTime(new Date(row.payout_number_set_at.getTime() + PAYOUT_NUMBER_HOLD_MS), "EAT");
    await page.getByRole("note").getByText(`Withdrawals to ****4567 open on ${opens}.`).waitFor();
    expect(await page.getByLabel("Current password").inputValue()).toBe("");
    expect(await e2eDb()("outbox").where({ to_address: seller.email }).pluck("subject")).toEqual(["Soko: your payout number was set"]);

    // The notice in /notifications leads back to Billing.
    await open(page, mode, "/notifications");
    const notice = page.getByRole("list", { name: "Your notifications" }).getByRole("link", { name: /^Your payout number was set to \*\*\*\*4567 on / });
    expect(await notice.getAttribute("href")).toBe("/settings?tab=billing");

    // The dashboard's balance says until when, and offers no withdrawal before then.
    await open(page, mode, "/dashboard");
    const balance = page.getByRole("region", { name: "Balance" });
    const line = await balance.getByRole("note").innerText();
    expect(line).toContain(`Withdrawals to ****4567 open on ${opens}.`);
    expect(await balance.getByLabel("Amount (UGX)").count()).toBe(0);
    await page.close();
  });
});
