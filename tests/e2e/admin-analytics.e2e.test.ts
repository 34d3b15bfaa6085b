/**
 * The admin portal's dashboard, analytics and CSV export, as an admin uses them on the admin host with JavaScript
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
import { getEnv } from "~/server/env.server";
import { adminUrl, allowStatus, describeBothModes, waitForHydration } from "../support/e2e";
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
    for (const label of [
      "Active users now",
      "New signups today",
      "Orders today",
      "Revenue today",
      "Total users",
      "Total orders",
      "Total revenue",
      "Published gigs",
    ]) {
      await expect.poll(() => stat(label).textContent()).toMatch(/\S/);
    }
    expect(Number((await stat("Total users").textContent())?.replace(/,/g, ""))).toBeGreaterThan(0);
    expect(await stat("Total revenue").textContent()).toMatch(/^UGX [\d,]+$/);
    await page.getByText("How these are counted").click();
    await page.getByText(/Revenue: Soko's own revenue/).waitFor();
    await page.getByRole("figure").filter({ hasText: "Top countries (last 7 days)" }).waitFor();
    await page.getByRole("heading", { level: 2, name: "Recent activity" }).waitFor();
  });

  it("reads every report of a past week with the figures worked out by hand", async () => {
    // A day of its own for each pass (the two share one ClickHouse), long before any other event:
    //   v1 mobile Uganda Chrome, from Google: pv / 10:00:00, pv /gig/1 10:01:40, click 10:01:50 → 110 s
    //   v2 desktop Kenya Firefox, direct: pv / 11:00:00 and a signup → a bounce, 0 s
    //   v3 mobile Uganda Chrome, direct: pv /gig/1 12:00:00, pv /search 12:00:30 and an order of 150,000 → 30 s
    const day = mode.js ? "2020-01-10" : "2020-02-10";
    const client = createClickHouse(clickHouseOptions(getEnv(), inject("e2eClickHouseDatabase")));
    const id = (n: number) => `00000000-0000-4000-9000-${tag}${mode.js ? "1" : "2"}${String(n).padStart(3, "0")}`;
    const who = {
      v1: { device: "mobile", country: "Uganda", browser: "Chrome" },
      v2: { device: "desktop", country: "Kenya", browser: "Firefox" },
      v3: { device: "mobile", country: "Uganda", browser: "Chrome" },
    } as const;
    const base = (n: number, v: keyof typeof who, time: string) => ({
      event_id: id(n),
      session_id: `1578650000000-${v}${tag}`,
      user_id: 0,
      event_time: `${day} ${time}`,
      received_at: `${day} ${time}`,
      platform: "web",
      ip: "",
      city: "",
      os: "Android",
      ...who[v],
    });
    const pv = (n: number, v: keyof typeof who, time: string, page: string, referrer = "") => ({ ...base(n, v, time), page, title: "", url: "", referrer });
    await client.insert({
      table: "pageviews",
      format: "JSONEachRow",
      values: [
        pv(1, "v1", "10:00:00", "/", "https://www.google.com/search?q=logo"),
        pv(2, "v1", "10:01:40", "/gig/1"),
        pv(3, "v2", "11:00:00", "/"),
        pv(4, "v3", "12:00:00", "/gig/1"),
        pv(5, "v3", "12:00:30", "/search"),
      ],
    });
    await client.insert({
      table: "actions",
      format: "JSONEachRow",
      values: [
        {
          ...base(6, "v1", "10:01:50"),
          action_type: "click",
          page: "/gig/1",
          element_id: "",
          element_class: "",
          element_tag: "a",
          element_text: "",
          x: 1,
          y: 1,
          value: 0,
        },
      ],
    });
    await client.insert({
      table: "conversions",
      format: "JSONEachRow",
      values: [
        { ...base(7, "v2", "11:00:10"), platform: "server", conversion_type: "signup", value: 0, metadata: "{}" },
        { ...base(8, "v3", "12:00:40"), platform: "server", conversion_type: "order_placed", value: 150_000, metadata: "{}" },
      ],
    });
    await client.close();

    const p = await mode.page();
    await p.goto(adminUrl(`/analytics?range=custom&from=${day}&to=${day}`));
    await waitForHydration(page, mode);
    await p.getByText(`${day} (UTC).`).waitFor();
    const figure = (list: string, label: string) =>
      p
        .getByRole("list", { name: list })
        .getByRole("listitem")
        .filter({ has: p.locator(".stat-label", { hasText: new RegExp(`^${label}`) }) })
        .locator(".stat-value")
        .textContent();
    // 5 page views by 3 visitors.
    expect(await figure("Page view figures", "Page views")).toBe("5");
    expect(await figure("Page view figures", "Unique visitors")).toBe("3");
    // "/" by v1 and v2, /gig/1 by v1 and v3, /search by v3.
    const rows = await p.getByRole("table", { name: "Top pages" }).getByRole("row").allInnerTexts();
    // Cells are apart by a tab in a table, by a line where a phone shows each row as a card.
    expect(rows.slice(1).map((r) => r.split(/[\t\n]/).map((c) => c.trim()))).toEqual([
      ["/", "2", "2"],
      ["/gig/1", "2", "2"],
      ["/search", "1", "1"],
    ]);
    // 3 sessions; (110 + 0 + 30) / 3 = 46.7 → 47 s; one bounce (v2) of 3 = 33.3%.
    expect(await figure("Session figures", "Sessions")).toBe("3");
    expect(await figure("Session figures", "Average session duration")).toBe("47s");
    expect(await figure("Session figures", "Bounce rate")).toBe("33.3%");
    // Each chart's table: mobile 2 of 3, desktop 1; Chrome 2, Firefox 1; Uganda 2, Kenya 1; Direct 2, google.com 1.
    const chart = async (caption: string) =>
      (
        await p
          .locator("table", { has: p.locator("caption", { hasText: new RegExp(`^${caption}$`) }) })
          .locator("tbody tr")
          .allTextContents()
      ).map((t) => t.trim());
    expect(await chart("Devices")).toEqual(["mobile2 (66.7%)", "desktop1 (33.3%)"]);
    expect(await chart("Browsers")).toEqual(["Chrome2 (66.7%)", "Firefox1 (33.3%)"]);
    expect(await chart("Countries")).toEqual(["Uganda2 (66.7%)", "Kenya1 (33.3%)"]);
    expect(await chart("Referrers")).toEqual(["Direct2 (66.7%)", "google.com1 (33.3%)"]);
    // v3's order and v2's signup: 2 of 3 sessions converted.
    expect(await figure("Conversion figures", "Revenue")).toBe("UGX 150,000");
    expect(await figure("Conversion figures", "Orders placed")).toBe("1");
    expect(await figure("Conversion figures", "Signups")).toBe("1");
    expect(await figure("Conversion figures", "Conversion rate")).toBe("66.7%");
    await p.close();
  });

  it("reads the analytics of a range, and a custom period the wrong way round is refused by its field", async () => {
    allowStatus(400, "a custom period the wrong way round is sent");
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

    // With JavaScript, picking a date chooses "Custom dates" by itself.
    if (!mode.js) await page.getByLabel("Period", { exact: true }).selectOption("custom");
    await page.getByLabel("From (custom)").fill("2026-03-10");
    await page.getByLabel("To (custom)").fill("2026-03-01");
    expect(await page.getByLabel("Period", { exact: true }).inputValue()).toBe("custom");
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
