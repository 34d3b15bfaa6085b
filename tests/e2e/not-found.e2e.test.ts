import { expect, it } from "vitest";
import { adminUrl, allowConsoleErrors, appUrl, describeBothModes, waitForHydration } from "../support/e2e";

it("answers unknown paths with 404", async () => {
  for (const path of ["/no-such-page", "/a/b/c", "/gigs%00"]) {
    const res = await fetch(appUrl(path));
    expect(res.status, path).toBe(404);
    expect(await res.text()).toContain("Page not found");
  }
});

describeBothModes("Not found page", (mode) => {
  it("shows Page not found inside the site layout, with a way home", async () => {
    allowConsoleErrors(/status of 404 \(Not Found\)$/, "the page asked for does not exist");
    const page = await mode.page();
    const res = await page.goto(appUrl("/no/such/page"));
    expect(res?.status()).toBe(404);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Page not found");
    expect(await page.title()).toContain("Page not found");
    await page.getByRole("navigation", { name: "Main" }).waitFor();
    expect(await page.locator("footer").innerText()).toContain("© ");
    await waitForHydration(page, mode);
    await page.getByRole("link", { name: "Go to the home page" }).click();
    await page.getByRole("heading", { name: "Browse by Category" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    await page.close();
  });

  it("leads from the 404 page to the help centre", async () => {
    allowConsoleErrors(/status of 404 \(Not Found\)$/, "the page asked for does not exist");
    const page = await mode.page();
    const res = await page.goto(appUrl("/gig-that-never-was"));
    expect(res?.status()).toBe(404);
    await waitForHydration(page, mode);
    await page.getByRole("link", { name: "Visit the help centre" }).click();
    await page.getByRole("heading", { name: "Page not found" }).waitFor({ state: "detached" });
    expect(new URL(page.url()).pathname).toBe("/help");
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("How it works: Help centre");
    await page.close();
  });

  it("answers unknown paths on the admin host with 404 and the admin header", async () => {
    allowConsoleErrors(/status of 404 \(Not Found\)$/, "the page asked for does not exist");
    const page = await mode.page();
    const res = await page.goto(adminUrl("/no-such-admin-page"));
    expect(res?.status()).toBe(404);
    await page.getByRole("heading", { name: "Page not found" }).waitFor();
    expect(await page.locator("header").innerText()).toContain("Admin");
    expect(await page.getByRole("link", { name: "Visit the help centre" }).count()).toBe(0);
    await page.close();
  });
});
