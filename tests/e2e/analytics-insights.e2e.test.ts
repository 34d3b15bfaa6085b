/**
 * The admin portal's insight screens and pipeline health, as an admin uses them on the admin host with JavaScript on
 * and off: the pipeline's figures and queue, then the heatmap, funnel and journey reached by the screens'
 * own links, each chosen with its GET form. Three clicks on a page of this run's own are put straight into
 * the server's ClickHouse; the figures themselves are checked against fixtures in
 * tests/integration/analytics-insights.test.ts and pipeline-health.test.ts (the e2e server runs no worker).
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, expect, inject, it } from "vitest";
import { clickHouseOptions, createClickHouse } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { adminUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { DEMO_ADMIN, signIn } from "../support/e2e-orders";
import { createUser, type TestUser } from "../support/factories";

describeBothModes("Admin analytics insights", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let page: Page;
  let member: TestUser;
  const gigPage = `/gig/${parseInt(tag, 16)}${mode.js ? 1 : 2}`;

  beforeAll(async () => {
    const client = createClickHouse(clickHouseOptions(getEnv(), inject("e2eClickHouseDatabase")));
    const at = new Date(Date.now() - 60_000).toISOString().slice(0, 19).replace("T", " ");
    const click = (x: number, y: number) => ({
      event_id: randomUUID(),
      session_id: `1764000000000-e2e${tag}`,
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
      action_type: "click",
      page: gigPage,
      element_id: "",
      element_class: "",
      element_tag: "button",
      element_text: "Continue",
      x,
      y,
      value: 0,
    });
    await client.insert({ table: "actions", format: "JSONEachRow", values: [click(10, 10), click(50, 60), click(200, 90)] });
    await client.close();
    member = await createUser(e2eDb(), { name: `Journey Member ${tag}`, username: `journey_${tag}`, role: "client" });
    await mode.context().clearCookies();
    page = await mode.page();
    await page.goto(adminUrl("/pipeline"));
    await waitForHydration(page, mode);
    await signIn(page, mode, DEMO_ADMIN, "Pipeline health");
  });

  it("shows the pipeline's health: the last day's figures and the queue", async () => {
    await page.getByRole("heading", { level: 2, name: "Last 24 hours" }).waitFor();
    await page.getByRole("heading", { level: 2, name: "Queue" }).waitFor();
    await page.getByText("Lag (oldest waiting events)").waitFor();
    await page.getByRole("heading", { level: 2, name: "Failed events" }).waitFor();
  });

  it("draws a page's heatmap, the funnel and a member's journey, each chosen with its form", async () => {
    await page.getByRole("navigation", { name: "Analytics insights" }).getByRole("link", { name: "Click heatmap" }).click();
    await page.getByRole("heading", { level: 1, name: "Click heatmap" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Page", { exact: true }).fill(gigPage);
    await page.getByLabel("Range").selectOption("30d");
    await page.getByLabel("Device").selectOption({ label: "Phones" });
    await page.getByRole("button", { name: "Show heatmap" }).click();
    await page.getByRole("heading", { level: 2, name: gigPage }).waitFor();
    expect(new URL(page.url()).search).toBe(`?page=${encodeURIComponent(gigPage)}&range=30d&device=mobile`);
    await page.getByText("Clicks on phones only.").waitFor();
    await page.getByText("3 clicks with a position").waitFor();
    // The hottest cell first: two clicks in the top left 80 px square, then one further right.
    const cells = page.getByRole("table", { name: `Hottest cells of ${gigPage}` }).getByRole("row");
    // Read cell by cell: on this phone-sized page the rows are stacked as cards.
    const texts = await cells.evaluateAll((rows) => rows.map((r) => [...(r as HTMLTableRowElement).cells].map((c) => c.textContent).join("\t")));
    expect(texts).toEqual(["Across (px)\tDown (px)\tClicks", "0–79\t0–79\t2", "160–239\t80–159\t1"]);

    await page.getByRole("link", { name: "Conversion funnel" }).click();
    await page.getByRole("heading", { level: 1, name: "Conversion funnel" }).waitFor();
    await page.getByRole("rowheader", { name: "Visit" }).waitFor();
    await page.getByRole("rowheader", { name: "Paid" }).waitFor();

    await page.getByRole("link", { name: "User journey" }).click();
    await page.getByRole("heading", { level: 1, name: "User journey" }).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("Member id").fill(String(member.id));
    await page.getByRole("button", { name: "Show journey" }).click();
    await page.getByRole("heading", { level: 1, name: `Journey of ${member.name}` }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/analytics/user-journey/${member.id}`);
    await page.getByText("No sessions in the range.").waitFor();
    await page.getByRole("link", { name: "Their analytics" }).click();
    await page.getByRole("heading", { level: 1, name: `Analytics of ${member.name}` }).waitFor();
  });
});
