/**
 * The admin portal's screens, each one module, on both hosts (app/utils/site-routes.ts): moving between
 * them by links, with JavaScript (client-side navigation, which must match routes as the server does)
 * and without.
 */
import type { Page } from "playwright-core";
import { expect, it } from "vitest";
import { adminUrl, appUrl, describeBothModes, waitForHydration, type Mode } from "../support/e2e";

const DEMO_PASSWORD = "soko-demo-2026";

/** Signs in as the demo admin on the sign-in page the page is on, and waits for `heading`. */
async function signInAsAdmin(page: Page, mode: Mode, heading: string) {
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill("admin@soko.test");
  await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

/** Follows a link and waits for the screen's heading; with JavaScript, the document must stay the same one. */
async function follow(page: Page, mode: Mode, link: ReturnType<Page["getByRole"]>, heading: string, pathname: string) {
  if (mode.js) await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
  await link.click();
  await page.getByRole("heading", { level: 1, name: heading, exact: true }).waitFor();
  expect(new URL(page.url()).pathname).toBe(pathname);
  if (mode.js) expect(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument)).toBe(true);
}

describeBothModes("Admin screens on both hosts", (mode) => {
  it("moves between the admin host's screens by links: / → /users → /analytics → /messages → /", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.goto(adminUrl("/"));
    await signInAsAdmin(page, mode, "Admin dashboard");
    expect(new URL(page.url()).pathname).toBe("/");
    await waitForHydration(page, mode);
    const main = page.getByRole("main");
    const header = page.getByRole("banner");
    await follow(page, mode, main.getByRole("link", { name: "users", exact: true }), "User management", "/users");
    // On this phone-sized page the header's links are behind its Menu.
    await header.getByText("Menu", { exact: true }).click();
    await follow(page, mode, header.getByRole("link", { name: "Analytics" }), "Analytics", "/analytics");
    await header.getByText("Menu", { exact: true }).click();
    await follow(page, mode, header.getByRole("link", { name: "Messages" }), "Message monitoring", "/messages");
    await follow(page, mode, header.getByRole("link", { name: "Soko Admin home" }), "Admin dashboard", "/");
    await follow(page, mode, main.getByRole("link", { name: "analytics", exact: true }), "Analytics", "/analytics");
    await page.close();
  });

  it("serves the same screens under /admin on the main host, whose links stay there", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.goto(appUrl("/admin"));
    expect(new URL(page.url()).pathname).toBe("/login");
    await signInAsAdmin(page, mode, "Admin dashboard");
    expect(new URL(page.url()).pathname).toBe("/admin");
    await waitForHydration(page, mode);
    const main = page.getByRole("main");
    await follow(page, mode, main.getByRole("link", { name: "users", exact: true }), "User management", "/admin/users");
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: "Admin dashboard" }).waitFor();
    await follow(page, mode, main.getByRole("link", { name: "messages", exact: true }), "Message monitoring", "/admin/messages");
    await page.close();
  });
});
