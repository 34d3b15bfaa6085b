/**
 * A member verifies their phone, with JavaScript on and off (ADR 050): a number that is not Ugandan is refused
 * beside the field, a Ugandan one gets a six-digit code that the SMS sandbox keeps (read here from /dev/outbox, as
 * a developer would), a wrong code is refused beside its field, and the right one verifies the number.
 */
import { randomInt } from "node:crypto";
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createUser, DEFAULT_PASSWORD } from "../support/factories";

async function open(page: Page, mode: Mode, path: string) {
  await page.goto(appUrl(path));
  await waitForHydration(page, mode);
}

describeBothModes("Phone verification", (mode) => {
  const tag = mode.js ? "on" : "off";

  it("texts a code to a Ugandan number and verifies the phone with it", async () => {
    allowStatus(400, "a Kenyan number, then a wrong code");
    await mode.context().clearCookies();
    const member = await createUser(e2eDb(), { role: "freelancer", name: `Phone Member ${tag}`, email: `phone.member.${tag}.${Date.now()}@example.ug` });
    const local = `078${String(randomInt(0, 10_000_000)).padStart(7, "0")}`;
    const e164 = `+256${local.slice(1)}`;
    const page = await mode.page();
    await open(page, mode, "/login?redirectTo=/settings?tab=security");
    await page.getByLabel("Email").fill(member.email);
    await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("link", { name: "Your phone: verify a number for texts and payouts" }).click();
    await page.getByRole("heading", { level: 1, name: "Your phone" }).waitFor();
    await waitForHydration(page, mode);

    // A Kenyan number: refused beside the field, nothing texted.
    await page.getByLabel("Mobile number").fill("+254 712 345678");
    await page.getByRole("button", { name: "Text me a code" }).click();
    await page.getByText("Enter a Ugandan mobile number, such as 0772 123456").waitFor();
    expect(await e2eDb()("sms_messages").where({ user_id: member.id })).toEqual([]);

    // A Ugandan number in its local form: a code is texted to it.
    await page.getByLabel("Mobile number").fill(local);
    await page.getByRole("button", { name: "Text me a code" }).click();
    await page.getByText("We texted you a code. It works for 10 minutes.").waitFor();

    // The code, as the sandbox outbox shows it.
    const outbox = await mode.page();
    await outbox.goto(appUrl("/dev/outbox"));
    const text = await outbox
      .getByRole("article", { name: `Text to ${e164}` })
      .first()
      .innerText();
    await outbox.close();
    const code = /your code is (\d{6})/.exec(text)![1]!;

    const wrong = code === "000000" ? "111111" : "000000";
    await page.getByLabel(`The six-digit code texted to ${e164}`).fill(wrong);
    await page.getByRole("button", { name: "Verify my phone" }).click();
    await page.getByText("That code is not right.").waitFor();
    expect((await e2eDb()("users").where({ id: member.id }).first("phone_verified_at")).phone_verified_at).toBeNull();

    await page.getByLabel(`The six-digit code texted to ${e164}`).fill(code);
    await page.getByRole("button", { name: "Verify my phone" }).click();
    await page.getByText("Your phone is verified.").waitFor();
    await page.getByText(`Your verified phone is ${e164}.`).waitFor();
    const row = await e2eDb()("users").where({ id: member.id }).first("phone", "phone_verified_at");
    expect(row.phone).toBe(e164);
    expect(row.phone_verified_at).not.toBeNull();
    await page.close();
  });
});
