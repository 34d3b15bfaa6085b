/**
 * The API reference at /api/docs on a 360 px phone, with JavaScript on and off: every call the served OpenAPI
 * document names has its section, nothing is wider than the screen, and the contents' links lead to the calls.
 */
import { expect, it } from "vitest";
import { appUrl, describeBothModes, waitForHydration } from "../support/e2e";

describeBothModes("API reference", (mode) => {
  it("shows every call of the document, fits a phone, and its contents lead to each call", async () => {
    const spec = (await (await fetch(appUrl("/api/v1/openapi.json"))).json()) as { paths: Record<string, Record<string, { operationId: string }>> };
    const ids = Object.values(spec.paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
    expect(ids.length).toBeGreaterThan(0);

    const page = await mode.page();
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(appUrl("/help"));
    await waitForHydration(page, mode);
    await page.getByRole("link", { name: "API reference" }).click();
    await page.getByRole("heading", { level: 1, name: /reference$/ }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/api/docs");

    expect((await page.locator("section.api-call").evaluateAll((sections) => sections.map((s) => s.id))).sort()).toEqual([...ids].sort());
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);

    const last = ids.at(-1)!;
    await page.getByRole("navigation", { name: "Contents" }).locator(`a[href="#${last}"]`).click();
    await page.waitForURL((url) => url.hash === `#${last}`);
    expect(await page.locator(`[id="${last}"]`).isVisible()).toBe(true);
  });
});
