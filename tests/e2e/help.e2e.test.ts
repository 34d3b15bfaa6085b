import { expect, it } from "vitest";
import { adminUrl, allowConsoleErrors, appUrl, describeBothModes, waitForHydration } from "../support/e2e";

const groups = ["Getting started", "For clients: payments and fees", "For freelancers", "Orders and disputes"];

it("never fails on odd queries: very long, repeated or bracketed q", async () => {
  for (const query of [`q=${"a".repeat(10_000)}`, "q=a&q=b", "q[]=x", "q=%FF%00", "q=%25%2A.*"]) {
    const res = await fetch(appUrl(`/help?${query}`));
    expect(res.status, query).toBe(200);
    expect(await res.text()).toContain("Frequently asked questions");
  }
  const repeated = await (await fetch(appUrl("/help?q=escrow&q=zzzz"))).text();
  expect(repeated).toContain('value="escrow"');
});

describeBothModes("Help centre", (mode) => {
  it("shows the FAQ in four groups with the fee, escrow, payout and support-hours facts", async () => {
    const page = await mode.page();
    const res = await page.goto(appUrl("/help"));
    expect(res?.status()).toBe(200);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toMatch(/How it works.*Help centre/);
    for (const group of groups) {
      await page.locator("main").getByRole("heading", { name: group, exact: true }).waitFor();
    }
    // Answers are in <details>: opening one works without JavaScript.
    const fee = page.locator("details", { hasText: "What is the freelancer service fee?" });
    expect(await fee.getByText("service fee of 20%").isVisible()).toBe(false);
    await fee.locator("summary").click();
    await fee.getByText("service fee of 20%").waitFor();

    const faq = (await page.locator(".faq").textContent()) ?? "";
    expect(faq).toContain("processing fee of 5% of the order price, with a minimum of UGX 1,000");
    expect(faq).toContain("held in escrow until the work is approved");
    expect(faq).toContain("about 14 days after completion");
    expect(faq).toContain("Monday to Friday, 9 AM to 6 PM East Africa Time");

    const support = await page.locator(".support-panel").innerText();
    expect(support).toContain("support@soko.ug");
    expect(support).toMatch(/\+256/);
    await page.close();
  });

  it("filters the questions on the server and keeps the query in the box", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/help"));
    await waitForHydration(page, mode);
    const box = page.getByRole("searchbox", { name: "Search the help centre" });
    await box.fill("service fee");
    await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((url) => url.searchParams.get("q") === "service fee");
    await page.getByText("question matches").or(page.getByText("questions match")).waitFor();

    const questions = await page.locator(".faq-item summary").allInnerTexts();
    expect(questions).toContain("What is the freelancer service fee?");
    expect(questions).not.toContain("How do I create an account?");
    expect(await page.locator(".search-summary").innerText()).toContain(`${questions.length} question`);
    expect(await page.getByRole("heading", { name: "Getting started" }).count()).toBe(0);
    // Matching answers are shown open.
    await page.getByText("service fee of 20%").waitFor();
    expect(await box.inputValue()).toBe("service fee");
    await page.close();
  });

  it("says No results found for a query that matches nothing", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/help"));
    await waitForHydration(page, mode);
    await page.getByRole("searchbox", { name: "Search the help centre" }).fill("xylophone zebra");
    await page.getByRole("button", { name: "Search" }).click();
    await page.getByText("No results found").waitFor();
    expect(await page.locator(".faq-item").count()).toBe(0);
    expect(await page.getByRole("searchbox", { name: "Search the help centre" }).inputValue()).toBe("xylophone zebra");
    await page.getByRole("link", { name: "show all questions" }).click();
    await page.getByRole("heading", { name: "Getting started" }).waitFor();
    expect(await page.locator(".faq-item").count()).toBeGreaterThan(10);
    await page.close();
  });

  it("answers a 10,000-character query with 200, cut to 200 characters", async () => {
    const page = await mode.page();
    const res = await page.goto(appUrl(`/help?q=${"b".repeat(10_000)}`));
    expect(res?.status()).toBe(200);
    await page.getByText("No results found").waitFor();
    expect(await page.getByRole("searchbox", { name: "Search the help centre" }).inputValue()).toBe("b".repeat(200));
    await page.close();
  });

  it("does not exist on the admin host", async () => {
    allowConsoleErrors(/status of 404 \(Not Found\)$/, "the admin host has no help centre");
    const page = await mode.page();
    const res = await page.goto(adminUrl("/help"));
    expect(res?.status()).toBe(404);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    await page.close();
  });
});
