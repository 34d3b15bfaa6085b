/**
 * Issue 13's dashboard, analytics and CSV export, as an admin uses them on the admin host with JavaScript
 * on and off: the dashboard's figures (refreshed every 30 s with JavaScript); the analytics of a chosen
 * range, and a custom period refused with the message by its field; real time (refreshed alone every 10 s
 * with JavaScript; the page's clock is Playwright's, so nobody waits); a CSV downloaded and opened, with a
 * page path that is a formula escaped. The figures themselves are checked against hand-made fixtures in
 * tests/integration (analytics-reports, admin-dashboard, analytics-export); here a visitor's hostile page
 * view is put in the server's ClickHouse.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/utils/env.server";
import { adminUrl, describeBothModes, waitForHydration } from "../support/e2e";
import { DEMO_ADMIN, signIn } from "../support/e2e-orders";

describeBothModes("Admin dashboard, analytics and export", (mode) => {
  const tag = randomBytes(4).toString("hex");
  const hostile = `=HYPERLINK("http://evil.example/${tag}","x")`;
  let page: Page;

  /** A visitor's page view `secondsAgo`, straight into the server's ClickHouse. */
  async function visit(n: number, path: string, secondsAgo: number, session = `1764000000000-e2e${tag}`) {
    const client = createClickHouse(clickHouseOptions(getEnv(), inject("e2eClickHouseDatabase")));
    const at = new Date(Date.now() - secondsAgo * 1000).toISOString().slice(0, 19).replace("T", " ");
    await client.insert({
      table: "pageviews",
      format: "JSONEachRow",
      values: [
        {
          event_id: `00000000-0000-4000-8000-${tag}${mode.js ? "1" : "2"}00${n}`,
          session_id: session,
          user_id: 0,
          event_time: at,
          received_at: at,
          platform: "web",
          ip: "41.210.145.0",
          country: "Uganda",
          city: "Kampala",
          device: "mobile",
          browser: "Chrome",
          os: "Android",
          page: path,
          title: "Hostile",
          url: "https://soko.example/",
          referrer: "",
        },
      ],
    });
    await client.close();
  }

  beforeAll(async () => {
    await visit(1, hostile, 30 * 60);
    await mode.context().clearCookies();
    page = await mode.page();
    await page.goto(adminUrl("/"));
    await waitForHydration(page, mode);
    await signIn(page, mode, DEMO_ADMIN, "Admin dashboard");
  });
  afterAll(async () => {
    await page?.close();
  });

  const stat = (label: string) => page.getByRole("list", { name: "Figures" }).getByRole("listitem").filter({ hasText: label }).locator(".stat-value");

  it("reads the dashboard: today's and total figures, how they are counted, countries, devices and recent activity", async () => {
    for (const label of ["Active users now", "New signups today", "Orders today", "Revenue today", "Total users", "Total orders", "Total revenue", "Published gigs"]) {
      await expect.poll(() => stat(label).textContent()).toMatch(/\S/);
    }
    expect(Number((await stat("Total users").textContent())?.replace(/,/g, ""))).toBeGreaterThan(0);
    expect(await stat("Total revenue").textContent()).toMatch(/^UGX [\d,]+$/);
    await page.getByText("How these are counted").click();
    await page.getByText(/Revenue: Soko's own revenue/).waitFor();
    await page.getByRole("figure").filter({ hasText: "Top countries (last 7 days)" }).waitFor();
    await page.getByRole("heading", { level: 2, name: "Recent activity" }).waitFor();
  });

  it("reads the analytics of a range, and a custom period the wrong way round is refused by its field", async () => {
    await page.getByRole("main").getByRole("link", { name: "analytics", exact: true }).click();
    await page.getByRole("heading", { level: 1, name: "Analytics" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByText("Last 7 days.").waitFor();
    await page.getByLabel("Period", { exact: true }).selectOption("30d");
    await page.getByRole("button", { name: "Show" }).click();
    await page.waitForURL((url) => url.searchParams.get("range") === "30d");
    await page.getByText("Last 30 days.").waitFor();
    // The hostile page is one of the top pages, shown as text.
    await page.getByRole("table", { name: "Top pages" }).getByRole("cell", { name: hostile, exact: true }).waitFor();
    for (const title of ["Page views", "Sessions", "Conversions", "Real time", "Export"]) await page.getByRole("heading", { level: 2, name: title }).waitFor();
    expect(await page.getByRole("listitem").filter({ hasText: "Page views" }).first().locator(".stat-value").textContent()).toMatch(/^[1-9][\d,]*$/);

    await page.getByLabel("Period", { exact: true }).selectOption("custom");
    await page.getByLabel("From (custom)").fill("2026-03-10");
    await page.getByLabel("To (custom)").fill("2026-03-01");
    await page.getByRole("button", { name: "Show" }).click();
    await page.getByText("The last day must be on or after the first day.").waitFor();
    await page.getByText("Fix the period above to see the reports.").waitFor();
  });

  it("shows real time, which with JavaScript refreshes by itself every 10 seconds", async () => {
    const rt = await mode.page();
    // With JavaScript the page's clock is Playwright's, run forward by hand.
    if (mode.js) await rt.clock.install();
    await rt.goto(adminUrl("/analytics?range=1d"));
    await waitForHydration(rt, mode);
    await rt.getByRole("heading", { level: 2, name: "Real time" }).waitFor();
    const live = `/live-${tag}`;
    const current = rt.getByRole("table", { name: "Current pages" }).getByRole("rowheader", { name: live, exact: true });
    expect(await current.count()).toBe(0);
    await visit(3, live, 5);
    if (mode.js) {
      // No reload: 10 s on, the section asks again and the new page is there.
      await rt.clock.runFor(10_500);
      await current.waitFor({ state: "attached" });
      expect(new URL(rt.url()).searchParams.get("range")).toBe("1d");
    } else {
      await rt.reload();
      await current.waitFor({ state: "attached" });
    }
    await rt.close();
  });

  if (mode.js) {
    it("refreshes the dashboard every 30 seconds by itself, but not while its tab is hidden", async () => {
      const dashboard = await mode.page();
      await dashboard.clock.install();
      await dashboard.goto(adminUrl("/"));
      await waitForHydration(dashboard, mode);
      const active = dashboard.getByRole("list", { name: "Figures" }).getByRole("listitem").filter({ hasText: "Active users now" }).locator(".stat-value");
      const before = Number(await active.textContent());
      // A new visitor arrives; 30 s later the dashboard shows them without a reload.
      await visit(4, `/dash-${tag}`, 1, `1764000000000-dash${tag}`);
      await dashboard.clock.runFor(31_000);
      await expect.poll(async () => Number(await active.textContent()), { timeout: 10_000 }).toBeGreaterThan(before);

      // A hidden tab is not polled; shown again, it refreshes at once.
      let reloads = 0;
      dashboard.on("request", (r) => {
        if (new URL(r.url()).pathname.endsWith(".data")) reloads++;
      });
      const setHidden = (hidden: boolean) =>
        dashboard.evaluate((value) => {
          Object.defineProperty(document, "hidden", { configurable: true, get: () => value });
          document.dispatchEvent(new Event("visibilitychange"));
        }, hidden);
      await setHidden(true);
      await dashboard.clock.runFor(95_000);
      expect(reloads).toBe(0);
      await setHidden(false);
      await expect.poll(() => reloads, { timeout: 5_000 }).toBe(1);
      await dashboard.close();
    });
  }

  it("downloads the page views as a CSV whose formula cells are escaped", async () => {
    await page.goto(adminUrl("/analytics?range=1d"));
    await waitForHydration(page, mode);
    await page.getByLabel("Report").selectOption("pageviews");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Download CSV" }).click()]);
    expect(download.suggestedFilename()).toBe(`analytics-1d-${new Date().toISOString().slice(0, 10)}.csv`);
    const file = await download.path();
    const csv = fs.readFileSync(file!, "utf8");
    expect(csv.split("\n")[0]).toBe('"time_utc","session_id","user_id","page","title","url","referrer","country","city","device","browser","os"');
    // Opened in a spreadsheet, the cell is the text '=HYPERLINK(…), not a link.
    expect(csv).toContain(`"'=HYPERLINK(""http://evil.example/${tag}"",""x"")"`);
    expect(csv).not.toMatch(/(^|,)"?=HYPERLINK/m);
    // The page is still the analytics page.
    await page.getByRole("heading", { level: 1, name: "Analytics" }).waitFor();
  });
});
