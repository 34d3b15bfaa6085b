/**
 * Nobody can lock a named account out (ADR 030): while another browser at the same address has failed ten
 * times for the admin's email, and is refused even the right password, the admin's own browser, which signed in
 * there before, still signs in and reaches the admin screens.
 */
import type { BrowserContext, Page } from "playwright-core";
import { expect, it } from "vitest";
import { allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { DEFAULT_PASSWORD, createUser } from "../support/factories";

async function submitLogin(mode: Mode, context: BrowserContext, email: string, password: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(appUrl("/login"));
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  return page;
}

describeBothModes("Sign-in lock-out", (mode) => {
  it("the admin's known browser signs in while another browser at the same address is locked out", async () => {
    allowStatus(400, "another browser tries ten wrong passwords");
    allowStatus(429, "that browser is then locked out");
    const tag = mode.js ? "on" : "off";
    const email = `lockout.admin.${tag}@example.ug`;
    await createUser(e2eDb(), { role: "admin", name: `Lockout Admin ${tag}`, username: `lockout_admin_${tag}`, email });
    const adminBrowser = mode.context();
    await adminBrowser.clearCookies();

    // The admin signed in from this browser before, then their session ended (the browser was closed).
    const first = await submitLogin(mode, adminBrowser, email, DEFAULT_PASSWORD);
    await first.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
    await first.close();
    await adminBrowser.clearCookies({ name: "soko_session" });

    // Someone else, at the same address, guesses ten times and is then refused, even with the right password.
    const other = await adminBrowser.browser()!.newContext({ javaScriptEnabled: mode.js, viewport: { width: 360, height: 800 } });
    other.setDefaultTimeout(15_000);
    try {
      const guesser = await other.newPage();
      await guesser.goto(appUrl("/login"));
      await waitForHydration(guesser, mode);
      await guesser.getByLabel("Email").fill(email);
      /** One sign-in with this password: the status of the form's POST (the page's own, or Remix's fetch). */
      const attempt = async (password: string) => {
        await guesser.getByLabel("Password", { exact: true }).fill(password);
        const [answer] = await Promise.all([
          guesser.waitForResponse((r) => new URL(r.url()).pathname.startsWith("/login") && r.request().method() === "POST"),
          guesser.getByRole("button", { name: "Sign in" }).click(),
        ]);
        await guesser.waitForLoadState();
        return answer.status();
      };
      for (let i = 1; i <= 10; i++) expect(await attempt(`wrong-guess-${i}`), `guess ${i}`).toBe(400);
      await guesser.getByText("Incorrect email or password.").waitFor();
      expect(await attempt(DEFAULT_PASSWORD)).toBe(429);
      await guesser.getByText(/^Too many sign-in attempts/).waitFor();
      expect(new URL(guesser.url()).pathname).toBe("/login");
      expect((await other.cookies()).some((c) => c.name === "soko_session")).toBe(false);
    } finally {
      await other.close();
    }

    // The admin's browser signs in, and the admin screens open.
    const again = await submitLogin(mode, adminBrowser, email, DEFAULT_PASSWORD);
    await again.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
    await again.goto(appUrl("/admin/users"));
    expect(new URL(again.url()).pathname).toBe("/admin/users");
    // What let it through: the device cookie its first sign-in left (beside the session, and the language the
    // sign-in keeps for the browser: ADR 047).
    expect((await adminBrowser.cookies()).map((c) => c.name).sort()).toEqual(["soko_device", "soko_lang", "soko_session"]);
    await again.close();
  }, 120_000);
});
