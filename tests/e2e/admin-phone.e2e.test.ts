/**
 * Every admin screen on the admin host, at 360×740 (a phone) and 1366×900 (a laptop), with JavaScript on and
 * off: nothing wider than the screen, the header on the screen (its links behind a "Menu" on the phone), tables
 * as cards on the phone and tables on the laptop, chart text at least 12 px as drawn, touch-sized controls, and
 * a stored analytics time shown in EAT to an admin who kept the default time zone.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, expect, inject, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { ADMIN_SCREENS } from "~/utils/site-routes";
import { adminUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { DEMO_ADMIN, signIn } from "../support/e2e-orders";
import { createUser, type TestUser } from "../support/factories";

const PHONE = { width: 360, height: 740 };
const LAPTOP = { width: 1366, height: 900 };

/** Elements that reach past the right edge of the screen, for the failure message. */
function overflowing(page: Page) {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    return {
      scrollWidth: document.documentElement.scrollWidth,
      innerWidth: window.innerWidth,
      culprits: [...document.body.querySelectorAll("*")]
        .filter((e) => e.getBoundingClientRect().right > width + 0.5)
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${Math.round(e.getBoundingClientRect().right)}`),
      /** Tables that scroll sideways in their frame: wider than the screen all the same. */
      scrollingTables: [...document.querySelectorAll(".admin-table-wrap")].filter((e) => e.scrollWidth > e.clientWidth + 1).length,
    };
  });
}

/** The drawn size of every visible SVG text: its font size times the scale its SVG is drawn at. */
function chartTextSizes(page: Page) {
  return page.evaluate(() =>
    [...document.querySelectorAll<SVGTextElement>("main svg text")]
      .filter((t) => t.getBoundingClientRect().width > 0)
      .map((t) => ({ text: t.textContent, px: parseFloat(getComputedStyle(t).fontSize) * (t.getScreenCTM()?.a ?? 1) })),
  );
}

/** The first visible stacked table's first row: its cells' display, boxes and the label shown before each. */
function firstStackedRow(page: Page) {
  return page.evaluate(() => {
    const table = [...document.querySelectorAll<HTMLTableElement>("main table.stack-table")].find((t) => t.getBoundingClientRect().height > 1);
    const row = table?.tBodies[0]?.rows[0];
    if (!table || !row) return null;
    return {
      table: getComputedStyle(table).display,
      cells: [...row.cells].map((c) => ({
        display: getComputedStyle(c).display,
        top: c.getBoundingClientRect().top,
        bottom: c.getBoundingClientRect().bottom,
        label: getComputedStyle(c, "::before").content,
        dataLabel: c.dataset.label ?? "",
      })),
    };
  });
}

/** Height and width of the visible elements matching a selector. */
function boxes(page: Page, selector: string) {
  return page.evaluate(
    (s) =>
      [...document.querySelectorAll(s)]
        .map((e) => e.getBoundingClientRect())
        .filter((r) => r.width > 0)
        .map((r) => ({ width: Math.round(r.width), height: Math.round(r.height) })),
    selector,
  );
}

describeBothModes("Admin screens on a phone and a laptop", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let page: Page;
  let member: TestUser;
  /** A conversion stored for the member an hour ago, to the second. */
  const storedAt = new Date(Math.floor(Date.now() / 1000 - 3600) * 1000);

  beforeAll(async () => {
    member = await createUser(e2eDb(), { name: `Phone Member ${tag}`, username: `phone_${tag}`, role: "client" });
    const client = createClickHouse(clickHouseOptions(getEnv(), inject("e2eClickHouseDatabase")));
    const at = storedAt.toISOString().slice(0, 19).replace("T", " ");
    await client.insert({
      table: "conversions",
      format: "JSONEachRow",
      values: [
        {
          event_id: `00000000-0000-4000-9000-${tag}${mode.js ? "1" : "2"}001`,
          session_id: `1764000000000-phone${tag}`,
          user_id: member.id,
          event_time: at,
          received_at: at,
          platform: "server",
          ip: "",
          city: "",
          os: "Android",
          device: "mobile",
          country: "Uganda",
          browser: "Chrome",
          conversion_type: "signup",
          value: 0,
          metadata: "{}",
        },
      ],
    });
    await client.close();
    await mode.context().clearCookies();
    page = await mode.page();
    // Thirteen screens at two sizes on a shared machine: room for a slow answer.
    page.setDefaultTimeout(30_000);
    await page.goto(adminUrl("/"));
    await waitForHydration(page, mode);
    await signIn(page, mode, DEMO_ADMIN, "Admin dashboard");
  });

  /** Every admin screen but the CSV download, its id parameters given the member's id. */
  const screens = () =>
    ADMIN_SCREENS.filter((s) => s.name !== "analytics-export").map((s) => {
      const path = `/${s.path.replace(/:id\??/, String(member.id))}`;
      return s.name === "heatmap" ? `${path}?page=%2F&range=30d` : path;
    });

  it("lists every admin screen it visits", () => {
    expect(screens()).toHaveLength(ADMIN_SCREENS.length - 1);
    expect(screens()).toContain(`/analytics/user-journey/${member.id}`);
  });

  for (const [name, viewport] of [
    ["phone", PHONE],
    ["laptop", LAPTOP],
  ] as const) {
    it(`fits every screen on a ${name}: no overflow, the header on screen, tables ${name === "phone" ? "as cards" : "as tables"}, chart text ≥ 12 px`, async () => {
      await page.setViewportSize(viewport);
      let stacked = 0;
      let charts = 0;
      for (const path of screens()) {
        await page.goto(adminUrl(path));
        await page.getByRole("heading", { level: 1 }).waitFor();
        const size = await overflowing(page);
        expect(size.scrollWidth, `${path} at ${viewport.width}: ${size.culprits.join(", ")}`).toBeLessThanOrEqual(size.innerWidth);
        expect(size.scrollingTables, `${path} at ${viewport.width}: a table scrolls sideways`).toBe(0);

        const header = await page.getByRole("banner").boundingBox();
        expect(header!.width, path).toBeLessThanOrEqual(viewport.width);
        // One row: brand and Menu on the phone; brand and links (at most two rows) on the laptop.
        expect(header!.height, path).toBeLessThanOrEqual(name === "phone" ? 80 : 130);

        for (const t of await chartTextSizes(page)) {
          charts++;
          expect(t.px, `${path}: "${t.text}"`).toBeGreaterThanOrEqual(12);
        }

        const row = await firstStackedRow(page);
        if (!row) continue;
        stacked++;
        if (name === "phone") {
          expect(row.table, path).toBe("block");
          for (const [i, cell] of row.cells.entries()) {
            expect(cell.display, path).toBe("block");
            // The column's name, shown for the eye only (its alt text is empty: a screen reader has the headers).
            expect(cell.label, path).toBe(`${JSON.stringify(cell.dataLabel)} / ""`);
            expect(cell.dataLabel, path).not.toBe("");
            if (i > 0) expect(cell.top, path).toBeGreaterThanOrEqual(row.cells[i - 1]!.bottom - 1);
          }
        } else {
          expect(row.table, path).toBe("table");
          expect(row.cells.map((c) => c.display)).toEqual(row.cells.map(() => "table-cell"));
        }
      }
      // The dashboard's, analytics' and pipeline's tables and charts, the users' table at the least.
      expect(stacked).toBeGreaterThanOrEqual(4);
      expect(charts).toBeGreaterThan(0);
    }, 180_000);
  }

  it("opens the header's Menu on a phone, its links 44 px tall, and follows one", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(adminUrl("/"));
    await waitForHydration(page, mode);
    const header = page.getByRole("banner");
    // On the phone the links wait behind the Menu.
    expect(await header.getByRole("link", { name: "Users" }).count()).toBe(0);
    const menu = header.getByText("Menu", { exact: true });
    expect((await menu.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await menu.click();
    const links = await boxes(page, ".admin-menu-links a, .admin-menu-links button");
    // Nine screens, the main site, the three languages and Sign out.
    expect(links.length).toBe(14);
    for (const b of links) expect(b.height).toBeGreaterThanOrEqual(44);
    await header.getByRole("link", { name: "Audit" }).click();
    await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/audit");
    // The menu is closed on the new screen.
    expect(await header.getByRole("link", { name: "Users" }).count()).toBe(0);
  });

  it("makes the users' checkboxes, row actions, filters and pager at least 44 px", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(adminUrl("/users"));
    await waitForHydration(page, mode);
    await page
      .getByRole("checkbox", { name: /^Select / })
      .first()
      .waitFor();
    const checks = await boxes(page, "main tbody .admin-check");
    expect(checks.length).toBeGreaterThan(0);
    for (const b of checks) expect(Math.min(b.width, b.height)).toBeGreaterThanOrEqual(44);
    // The box itself is at least 24 px (WCAG 2.2 target size), ticked by a tap anywhere on its 44 px label.
    for (const b of await boxes(page, "main tbody .admin-check input")) expect(Math.min(b.width, b.height)).toBeGreaterThanOrEqual(24);
    const controls = await boxes(
      page,
      "main .admin-actions .button, main .admin-bulk .button, main .admin-filters select, main .admin-filters input, main .admin-filters .button, main .admin-pager a",
    );
    expect(controls.length).toBeGreaterThan(5);
    for (const b of controls) expect(b.height).toBeGreaterThanOrEqual(44);
    await page.locator("main tbody .admin-check").first().click();
    expect(await page.locator("main tbody .admin-check input").first().isChecked()).toBe(true);
  });

  it("shows a stored analytics time in EAT, three hours ahead of UTC, to an admin with the default zone", async () => {
    await page.setViewportSize(PHONE);
    await page.goto(adminUrl(`/analytics/user-journey/${member.id}?range=1d`));
    const eat = new Date(storedAt.getTime() + 3 * 3600_000).toISOString();
    const clock = eat.slice(11, 19);
    const cell = page.locator(`main time[datetime="${storedAt.toISOString()}"]`);
    expect(await cell.innerText()).toBe(clock);
    await page.getByText("Times are EAT").waitFor();
    // The session's start, with its date, says its zone.
    await page.getByRole("table", { name: new RegExp(`${eat.slice(11, 16)} EAT`) }).waitFor();

    await page.goto(adminUrl("/pipeline"));
    await page.getByText(/As of .* EAT;/).waitFor();
  });
});
