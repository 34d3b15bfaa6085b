import { randomInt } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { beforeAll, expect, it } from "vitest";
import { adminUrl, allowConsoleErrors, allowStatus, appUrl, confirmPayoutNumber, describeBothModes, e2eDb, type Mode, waitForHydration } from "../support/e2e";
import { createUser } from "../support/factories";
import { words } from "../support/words";

const DEMO_PASSWORD = "soko-demo-2026";
let avatarFile: string;

beforeAll(async () => {
  avatarFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "soko-avatar-")), "me.png");
  await sharp({ create: { width: 300, height: 200, channels: 3, background: "#0f5132" } })
    .png()
    .toFile(avatarFile);
});

async function open(mode: Mode, url: string): Promise<Page> {
  const page = await mode.page();
  await page.goto(url);
  await waitForHydration(page, mode);
  return page;
}

async function signIn(mode: Mode, email: string, password: string, { remember = false } = {}) {
  const page = await open(mode, appUrl("/login"));
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  if (remember) await page.getByLabel("Remember me for 30 days").check();
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
  return page;
}

describeBothModes("Accounts", (mode) => {
  const tag = mode.js ? "on" : "off";

  it("joins as a client, lands on the dashboard signed in, and signs out", async () => {
    allowStatus(400, "the join form is sent with passwords that do not match");

    allowConsoleErrors(
      /status of 401 \(Unauthorized\) \(from http:\/\/[^/]+\/notifications\/counts\)$/,
      "signed out, the page asks whether its session is still on and is told no",
    );
    await mode.context().clearCookies();
    const page = await open(mode, appUrl("/register"));
    // The show/hide toggle exists only where JavaScript can run it.
    const toggle = page.getByRole("button", { name: "Show password" }).first();
    if (mode.js) {
      await page.getByLabel("Password", { exact: true }).fill("peek");
      await toggle.click();
      expect(await page.getByLabel("Password", { exact: true }).getAttribute("type")).toBe("text");
      await page.getByRole("button", { name: "Hide password" }).first().click();
      expect(await page.getByLabel("Password", { exact: true }).getAttribute("type")).toBe("password");
    } else {
      expect(await toggle.count()).toBe(0);
    }
    await page.getByLabel("Full name").fill("Ruth Achieng");
    await page.getByLabel("Email").fill(`ruth.${tag}@example.ug`);
    await page.getByLabel("Password", { exact: true }).fill("ruths-password");
    await page.getByLabel("Confirm password").fill("not-the-same");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Passwords do not match").waitFor();
    expect(await page.getByLabel("Email").inputValue()).toBe(`ruth.${tag}@example.ug`);
    expect(
      await e2eDb()("users")
        .where({ email: `ruth.${tag}@example.ug` })
        .first(),
    ).toBeUndefined();

    await page.getByLabel("Password", { exact: true }).fill("ruths-password");
    await page.getByLabel("Confirm password").fill("ruths-password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { level: 1, name: "Welcome back, Ruth!" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    await page.getByText("Find skilled Ugandan freelancers").waitFor();
    const stats = await page.getByRole("list", { name: "Your numbers" }).innerText();
    expect(stats).toContain("Active orders");
    expect(stats).toContain("Total spent");
    expect(await page.getByRole("list", { name: "Recent activity" }).innerText()).toContain("You joined Soko");
    expect(
      await e2eDb()("users")
        .where({ email: `ruth.${tag}@example.ug` })
        .first(),
    ).toMatchObject({ role: "client" });

    // The header marks where the member is (written by the server as plain anchors, ADR 024), and follows them.
    const nav = page.getByRole("navigation", { name: "Main" });
    // On a phone they are in the header's menu (it closes again on the next page).
    const menu = nav.locator(".header-menu summary");
    await menu.click();
    expect(await nav.getByRole("link", { name: "Dashboard" }).getAttribute("aria-current")).toBe("page");
    expect(await nav.getByRole("link", { name: "Orders" }).getAttribute("aria-current")).toBeNull();
    await nav.getByRole("link", { name: "Orders" }).click();
    await page.waitForURL((url) => url.pathname === "/orders");
    await nav.locator(".header-menu:not([open])").waitFor();
    await menu.click();
    await expect.poll(() => nav.getByRole("link", { name: "Orders" }).getAttribute("aria-current")).toBe("page");
    expect(await nav.getByRole("link", { name: "Dashboard" }).getAttribute("aria-current")).toBeNull();

    await page.getByRole("banner").getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("banner").getByRole("link", { name: "Sign in" }).waitFor();
    await page.goto(appUrl("/dashboard"));
    expect(new URL(page.url()).pathname).toBe("/login");
  });

  it("joins as a freelancer with skills and sees the seller's dashboard, then their own public profile", async () => {
    await mode.context().clearCookies();
    const page = await open(mode, appUrl("/freelancer/register"));
    await page.getByLabel("Full name").fill("Moses Kato");
    await page.getByLabel("Email").fill(`moses.${tag}@example.ug`);
    await page.getByLabel("Password", { exact: true }).fill("moses-password");
    await page.getByLabel("Confirm password").fill("moses-password");
    await page.getByLabel("Skills").fill("Video editing, Motion graphics");
    await page.getByLabel("Years of experience").fill("3");
    await page.getByLabel("Portfolio URL (optional)").fill("https://moses.example.ug");
    await page.getByLabel("Professional description").fill("Video editor for weddings and brands.");
    await page.getByRole("button", { name: "Join as a seller" }).click();
    // The box is required: with JavaScript the form says so beside it; without, the browser does not send the form.
    if (mode.js) await page.getByText("Accept the terms to continue").waitFor();
    else expect(await page.getByLabel(/I agree to the/).evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
    expect(new URL(page.url()).pathname).toBe("/freelancer/register");
    await page.getByLabel(/I agree to the/).check();
    await page.getByLabel("Password", { exact: true }).fill("moses-password");
    await page.getByLabel("Confirm password").fill("moses-password");
    await page.getByRole("button", { name: "Join as a seller" }).click();
    await page.getByText("Manage your gigs, orders and earnings").waitFor();
    expect(new URL(page.url()).pathname).toBe("/dashboard");
    expect(await page.getByRole("list", { name: "Your numbers" }).innerText()).toContain("Published gigs");
    await page.getByRole("link", { name: "Create your first gig" }).waitFor();
    const user = await e2eDb()("users")
      .where({ email: `moses.${tag}@example.ug` })
      .first();
    expect(user).toMatchObject({ role: "freelancer", skills: ["Video editing", "Motion graphics"], years_experience: 3 });

    // From the dashboard to the profile buyers see: their name, their skills, no gigs yet.
    await waitForHydration(page, mode);
    await page.getByRole("link", { name: "View your public profile" }).click();
    await page.waitForURL((url) => url.pathname === `/user/${user.username}`);
    // With JavaScript the address changes just before the new page renders: wait for it, then read it.
    await page.getByRole("heading", { level: 1, name: "Moses Kato" }).waitFor();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Moses Kato");
    await page.getByText(`@${user.username}`).first().waitFor();
    expect(await page.getByRole("list", { name: "Skills" }).innerText()).toContain("Motion graphics");
  });

  it("a signed-in client following 'Become a seller' reaches the offer to sell, and becomes a seller there", async () => {
    await mode.context().clearCookies();
    const email = `would.be.seller.${tag}@example.ug`;
    const page = await open(mode, appUrl("/register"));
    await page.getByLabel("Full name").fill("Grace Nakato");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("graces-password");
    await page.getByLabel("Confirm password").fill("graces-password");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByRole("heading", { level: 1, name: "Welcome back, Grace!" }).waitFor();
    // The footer's link is on every page; it used to bounce a signed-in client back to the dashboard.
    await page.getByRole("contentinfo").getByRole("link", { name: "Become a seller" }).click();
    await page.getByRole("heading", { level: 1, name: "Start selling on Soko" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/gig/create");
    await page.getByRole("button", { name: "Become a seller" }).click();
    await page.getByRole("heading", { level: 1, name: "Create a gig" }).waitFor();
    expect(await e2eDb()("users").where({ email }).first()).toMatchObject({ role: "freelancer" });
  });

  it("signs in with remember me (a 30-day cookie) and comes back to where it was going", async () => {
    allowStatus(400, "a wrong password is tried first");
    await mode.context().clearCookies();
    const page = await open(mode, appUrl("/settings?tab=billing"));
    expect(new URL(page.url()).pathname).toBe("/login");
    await waitForHydration(page, mode);
    await page.getByLabel("Email").fill("client@soko.test");
    await page.getByLabel("Password", { exact: true }).fill("wrong-password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("Incorrect email or password.").waitFor();
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByLabel("Remember me for 30 days").check();
    if (mode.js) {
      // Hold the submission briefly, to see the pending state the user sees on a slow network.
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      await page.route("**/login.data*", async (route) => {
        await held;
        await route.continue();
      });
      await page.getByRole("button", { name: "Sign in" }).click();
      const pending = page.getByRole("button", { name: "Signing in..." });
      await pending.waitFor();
      expect(await pending.isDisabled()).toBe(true);
      release();
    } else {
      await page.getByRole("button", { name: "Sign in" }).click();
    }
    await page.waitForURL((url) => url.pathname === "/settings" && url.searchParams.get("tab") === "billing");
    const cookie = (await mode.context().cookies()).find((c) => c.name === "soko_session");
    expect(cookie?.httpOnly).toBe(true);
    expect(cookie?.sameSite).toBe("Lax");
    expect((cookie!.expires * 1000 - Date.now()) / 86_400_000).toBeGreaterThan(29);
  });

  it("resets a forgotten password through the emailed link", async () => {
    await mode.context().clearCookies();
    const email = `reset.${tag}@example.ug`;
    // A password they have forgotten: a hash of nothing they could type.
    await createUser(e2eDb(), { name: "Reset Person", username: `reset_person_${tag}`, email, passwordHash: "scrypt$1$1$1$AA==$AA==" });
    const page = await open(mode, appUrl("/login"));
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.getByRole("heading", { level: 1, name: "Reset your password" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Email").fill(email);
    await page.getByRole("button", { name: "Send reset link" }).click();
    await page.getByText("If an account uses that email").waitFor();

    await page.goto(appUrl("/dev/outbox"));
    const mail = page
      .getByRole("article")
      .filter({ hasText: `To: ${email}` })
      .first();
    await mail.getByRole("link").click();
    await page.getByRole("heading", { level: 1, name: "Choose a new password" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("New password", { exact: true }).fill("my-new-password");
    await page.getByLabel("Confirm new password").fill("my-new-password");
    await page.getByRole("button", { name: "Save new password" }).click();
    await page.getByRole("heading", { level: 1, name: "Welcome back" }).waitFor();
    expect(new URL(page.url()).search).toBe("?reset=1");
    await page.getByText("Your password is changed. Sign in with your new password.").waitFor();
    await signIn(mode, email, "my-new-password");
  });

  it("keeps the admin host to administrators: Access Denied for a client, the portal for an admin", async () => {
    allowStatus(403, "a client signs in to the admin host");
    await mode.context().clearCookies();
    const page = await open(mode, adminUrl("/users"));
    expect(new URL(page.url()).pathname).toBe("/login");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Admin Login");
    await page.getByText("Administrator access only. Unauthorized access is prohibited.").waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Email").fill("client@soko.test");
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("You don't have administrator privileges.").waitFor();
    await page.getByText("You don't have permission to access this area.").waitFor();
    expect(await page.getByRole("link", { name: "Back to the main site" }).getAttribute("href")).toBe(appUrl("/").replace(/\/$/, ""));

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.getByRole("heading", { level: 1, name: "Admin Login" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Email").fill("admin@soko.test");
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Admin dashboard" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    // On this phone-sized page the header's links are behind its Menu.
    await page.getByRole("banner").getByText("Menu", { exact: true }).click();
    await page.getByRole("banner").getByRole("link", { name: "Users" }).click();
    await page.getByRole("heading", { level: 1, name: "User management" }).waitFor();
  });

  it("saves every settings tab and shows the stored values back", async () => {
    allowStatus(400, "settings are sent with a wrong current password and a refused value");
    await mode.context().clearCookies();
    const email = `settings.${tag}@example.ug`;
    const page = await open(mode, appUrl("/register"));
    await page.getByLabel("Full name").fill("Settings Person");
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("settings-pass");
    await page.getByLabel("Confirm password").fill("settings-pass");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.getByText("Still missing:").waitFor();

    // Profile, with a photo.
    await page.goto(appUrl("/settings"));
    await waitForHydration(page, mode);
    await page.getByLabel("Full name").fill("Settings Person Updated");
    await page.getByLabel("Bio").fill("I hire designers for my shop in Jinja.");
    await page.getByLabel("Location").fill("Jinja, Uganda");
    await page.getByLabel("Languages").fill("English, Luganda");
    await page.getByLabel("Profile photo").setInputFiles(avatarFile);
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your profile is saved.").waitFor();
    expect(await page.getByLabel("Bio").inputValue()).toBe("I hire designers for my shop in Jinja.");
    expect(await page.getByLabel("Languages").inputValue()).toBe("English, Luganda");
    const avatar = page.getByRole("img", { name: "Your profile photo" });
    const src = await avatar.getAttribute("src");
    const image = await page.request.get(appUrl(src!));
    expect(image.headers()["content-type"]).toBe("image/webp");

    // Notifications: the defaults (docs/product.md), then marketing on and push messages off.
    // The settings tab (the header's bell is a link named Notifications too).
    await page.getByRole("main").getByRole("link", { name: "Notifications" }).click();
    await page.getByLabel("Email me when a seller I saved publishes a new gig").waitFor();
    expect(await page.getByLabel("Email me about my orders").isChecked()).toBe(true);
    expect(await page.getByLabel("Email me when a seller I saved publishes a new gig").isChecked()).toBe(false);
    await page.getByLabel("Email me when a seller I saved publishes a new gig").check();
    await page.getByLabel("Notify me on this device about new messages").uncheck();
    await page.getByRole("button", { name: "Save notifications" }).click();
    await page.getByText("Your notification settings are saved.").waitFor();
    expect(await page.getByLabel("Email me when a seller I saved publishes a new gig").isChecked()).toBe(true);
    expect(await page.getByLabel("Notify me on this device about new messages").isChecked()).toBe(false);

    // Billing: a bad number is refused beside the field, then a good one is kept once the code texted to it comes back.
    await page.getByRole("link", { name: "Billing" }).click();
    await page.getByLabel("Mobile-money number").fill("0772 123456");
    await page.getByLabel("Current password").fill("settings-pass");
    await page.getByRole("button", { name: "Save number" }).click();
    await page.getByText("Enter a Ugandan mobile number in the format +256 7XX XXXXXX").waitFor();
    const number = `+2567720${String(randomInt(0, 100_000)).padStart(5, "0")}`;
    await page.getByLabel("Mobile-money number").fill(`${number.slice(0, 4)} ${number.slice(4, 7)} ${number.slice(7)}`);
    await page.getByLabel("Current password").fill("settings-pass");
    await page.getByRole("button", { name: "Save number" }).click();
    await confirmPayoutNumber(page, number);
    expect(await page.getByLabel("Mobile-money number").inputValue()).toBe(number);

    // Preferences: USD and UTC take effect in how money and times are shown.
    await page.getByRole("link", { name: "Preferences" }).click();
    await page.getByLabel("Currency").selectOption("USD");
    await page.getByLabel("Time zone").selectOption("UTC");
    await page.getByLabel("Language").selectOption("sw");
    await page.getByRole("button", { name: "Save preferences" }).click();
    // The page comes back in the language just chosen.
    await page.getByText(words("account.settings.saved.preferences", "sw")).waitFor();
    expect(await page.locator("html").getAttribute("lang")).toBe("sw");
    expect(await page.locator('#main select[name="preferredCurrency"]').inputValue()).toBe("USD");
    expect(await page.locator('#main select[name="language"]').inputValue()).toBe("sw");
    // Back to English with the footer's switch (which stores the choice too), for the checks below.
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "English", exact: true }).click();
    await page.waitForFunction(() => document.documentElement.lang === "en");
    expect((await e2eDb()("users").where({ email }).first("language")).language).toBe("en");
    await page.goto(appUrl("/dashboard"));
    expect(await page.getByRole("list", { name: "Your numbers" }).innerText()).toContain("USD 0.00");
    expect(await page.getByRole("list", { name: "Recent activity" }).innerText()).toMatch(/\d{2}:\d{2} UTC/);
    await page.goto(appUrl("/"));
    expect(await page.locator(".gig-card").first().innerText()).toMatch(/USD \d+\.\d{2}/);

    // Security: change the password (the current one is checked).
    await page.goto(appUrl("/settings?tab=security"));
    await waitForHydration(page, mode);
    // The password form's own field (Security also has the email change, which asks for the current password too).
    const passwordForm = page.locator("form").filter({ has: page.getByLabel("New password", { exact: true }) });
    await passwordForm.getByLabel("Current password").fill("wrong-current");
    await page.getByLabel("New password", { exact: true }).fill("settings-pass-2");
    await page.getByLabel("Confirm new password").fill("settings-pass-2");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your current password is not right").waitFor();
    await passwordForm.getByLabel("Current password").fill("settings-pass");
    await page.getByLabel("New password", { exact: true }).fill("settings-pass-2");
    await page.getByLabel("Confirm new password").fill("settings-pass-2");
    await page.getByRole("button", { name: "Change password" }).click();
    await page.getByText("Your password is changed.").waitFor();

    const stored = await e2eDb()("users").where({ email }).first();
    expect(stored).toMatchObject({
      name: "Settings Person Updated",
      location: "Jinja, Uganda",
      languages: ["English", "Luganda"],
      notify_email_marketing: true,
      notify_push_messages: false,
      mobile_money_number: number,
      preferred_currency: "USD",
      time_zone: "UTC",
      language: "en",
    });
    expect(stored.avatar_key).toBeTruthy();
  }, 60_000); // every tab, two of them checking a password (scrypt)

  it("shows a seller's public profile with gigs and paged reviews", async () => {
    allowStatus(404, "a profile that does not exist is asked for");
    const page = await open(mode, appUrl("/user/james_okello"));
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("James Okello");
    expect(await page.getByRole("list", { name: "Skills" }).innerText()).toContain("Graphic design");
    expect(await page.locator(".gig-card").count()).toBeGreaterThan(0);
    const first = await page.getByRole("list", { name: "Reviews" }).locator("li").first().getAttribute("id");
    await page.getByRole("link", { name: "Older reviews" }).click();
    await page.getByRole("link", { name: "Newer reviews" }).waitFor();
    expect(await page.getByRole("list", { name: "Reviews" }).locator("li").first().getAttribute("id")).not.toBe(first);
    expect((await page.goto(appUrl("/user/nobody_at_all")))?.status()).toBe(404);
  });
});
