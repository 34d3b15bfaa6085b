/**
 * Settings › Security's list of where the member is signed in, on a 360 px phone, with JavaScript on and off:
 * this browser marked, an app named by its platform and device, each "Sign out" a 44 px target that ends
 * that session (in place with JavaScript, showing that it is working; by a plain post and redirect without),
 * "sign out of all other sessions" still working beside it, and the last "Sign out" signing this browser out.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { createAppSession, createSession } from "~/models/session.server";
import { allowConsoleErrors, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createUser, DEFAULT_PASSWORD } from "../support/factories";

const PHONE = { width: 360, height: 780 };

async function signIn(mode: Mode, email: string): Promise<Page> {
  const page = await mode.page();
  await page.setViewportSize(PHONE);
  await page.goto(appUrl("/login"));
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
  return page;
}

/** Every "Sign out" of the list is at least 44 px each way, and the page is no wider than the phone. */
async function expectPhoneFit(page: Page) {
  const list = page.getByRole("list", { name: "Where you are signed in" });
  for (const button of await list.getByRole("button").all()) {
    const box = (await button.boundingBox())!;
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(box.width).toBeGreaterThanOrEqual(44);
    expect(box.x + box.width).toBeLessThanOrEqual(PHONE.width);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

const sessionCount = async (where: Record<string, unknown>) => Number((await e2eDb()("sessions").where(where).count({ n: "*" }).first())?.n);

describeBothModes("Signed-in sessions", (mode) => {
  const tag = mode.js ? "on" : "off";

  it("lists this browser and an app, ends the app's session, the others, then this one", async () => {
    allowConsoleErrors(
      /status of 401 \(Unauthorized\) \(from http:\/\/[^/]+\/notifications\/counts\)$/,
      "signed out, the page asks whether its session is still on and is told no",
    );
    await mode.context().clearCookies();
    const db = e2eDb();
    const member = await createUser(db, { name: `Session Keeper ${tag}`, email: `sessions.${tag}@example.ug` });
    await createAppSession(db, { userId: member.id, admin: false, platform: "android", deviceName: "Tecno Spark 10" });
    const page = await signIn(mode, `sessions.${tag}@example.ug`);

    await page.goto(appUrl("/settings?tab=security"));
    await waitForHydration(page, mode);
    const list = page.getByRole("list", { name: "Where you are signed in" });
    const rows = list.getByRole("listitem");
    expect(await rows.count()).toBe(2);
    // This browser first, marked; the app by its platform and device.
    expect(await rows.first().innerText()).toContain("This device");
    const app = rows.filter({ hasText: "Tecno Spark 10" });
    expect(await app.innerText()).toContain("Android app");
    expect(await app.innerText()).toMatch(/Signed in/);
    await expectPhoneFit(page);

    if (mode.js) {
      // Hold the post briefly, to see the row's pending state the member sees on a slow network.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route("**/settings.data*", async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      });
      await app.getByRole("button", { name: /^Sign out/ }).click();
      const pending = app.getByRole("button", { name: /^Signing out/ });
      await pending.waitFor();
      expect(await pending.isDisabled()).toBe(true);
      release();
    } else {
      await app.getByRole("button", { name: /^Sign out/ }).click();
    }
    await page.getByText("That session is signed out.").waitFor();
    await page.waitForURL((url) => url.pathname === "/settings" && url.searchParams.get("saved") === "ended");
    expect(await rows.count()).toBe(1);
    expect(await sessionCount({ user_id: member.id, kind: "app" })).toBe(0);

    // "Sign out of all other sessions" still ends the rest and keeps this one.
    await createSession(db, {
      userId: member.id,
      persistent: false,
      userAgent: "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:121.0) Gecko/20100101 Firefox/121.0",
    });
    await page.goto(appUrl("/settings?tab=security"));
    await waitForHydration(page, mode);
    expect(await rows.count()).toBe(2);
    expect(await rows.filter({ hasText: "Firefox on Windows" }).count()).toBe(1);
    await page.getByRole("button", { name: "Sign out of all other sessions" }).click();
    await page.getByText("You are signed out of every other session.").waitFor();
    expect(await rows.count()).toBe(1);

    // This device's own "Sign out" signs this browser out.
    await rows
      .first()
      .getByRole("button", { name: /^Sign out/ })
      .click();
    await page.waitForURL((url) => url.pathname === "/login");
    await page.getByRole("banner").getByRole("link", { name: "Sign in" }).waitFor();
    expect(await sessionCount({ user_id: member.id })).toBe(0);
    expect((await mode.context().cookies()).find((c) => c.name === "soko_session")).toBeUndefined();
  }, 60_000);
});
