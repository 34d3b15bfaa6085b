/**
 * A new deployment, as docker-compose makes one: a database migrated without the demo seed, an admin made
 * with `admin:create`, and the built server on it (its own, not the shared e2e server with its demo data).
 * A freelancer registers through the pages, verifies their email and publishes a gig, which needs a category: the migration's
 * (ADR 026). The admin manages the categories on their screen: adds one with its Luganda and Swahili names (which
 * readers in those languages browse it by), renames it, moves it up and hides it, at /admin/categories on the main
 * host, and the admin host serves the same screen at /categories.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { allowStatus, describeBothModes, waitForHydration, type Mode } from "../support/e2e";
import { createEmptyDatabase, createTestClickHouseDatabase, type TestDatabase } from "../support/databases";
import { startTestServer, type TestServer } from "../support/test-server";

const SIX = ["Graphics & Design", "Web Development", "Writing & Translation", "Video & Animation", "Digital Marketing", "Local Services"];
const ADMIN = { name: "Grace Admin", email: "grace@deploy.example", password: "deploy-admin-2026" };

let database: TestDatabase;
let server: TestServer;
let uploadDir: string;

beforeAll(async () => {
  database = await createEmptyDatabase("soko_deploy");
  uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-deploy-uploads-"));
  const env = {
    DATABASE_URL: database.url,
    CLICKHOUSE_DATABASE: await createTestClickHouseDatabase("soko_deploy"),
    QUEUE_PREFIX: `deploy_${process.pid}_${randomBytes(3).toString("hex")}`,
    UPLOAD_DIR: uploadDir,
  };
  const tsx = path.resolve("node_modules/.bin/tsx");
  // docker-compose's `migrate` service: scripts/migrate.ts without --seed. Then the first admin, as README says.
  await promisify(execFile)(tsx, ["scripts/migrate.ts"], { env: { ...process.env, ...env } });
  await promisify(execFile)(tsx, ["scripts/admin-create.ts", "--name", ADMIN.name, "--email", ADMIN.email], {
    env: { ...process.env, ...env, ADMIN_PASSWORD: ADMIN.password },
  });
  expect(await database.db("gigs").first("id")).toBeUndefined();
  // The outbox page shows the mail a new seller verifies their address from, as on a demo machine.
  server = await startTestServer({ ...env, DEV_OUTBOX: "1" });
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await database?.drop();
  fs.rmSync(uploadDir, { recursive: true, force: true });
});

async function open(page: Page, mode: Mode, url: string) {
  await page.goto(url);
  await waitForHydration(page, mode);
}

describeBothModes("A deployment migrated without the demo seed", (mode) => {
  const tag = randomBytes(3).toString("hex");

  it("lets a freelancer register and publish a gig in one of the migration's categories", async () => {
    const page = await mode.page();
    const seller = { name: `Amina Deploy ${tag}`, email: `amina_${tag}@deploy.example`, password: "amina-password-2026" };
    await open(page, mode, `${server.baseUrl}/freelancer/register`);
    await page.getByLabel("Full name").fill(seller.name);
    await page.getByLabel("Email").fill(seller.email);
    await page.getByLabel("Password", { exact: true }).fill(seller.password);
    await page.getByLabel("Confirm password").fill(seller.password);
    await page.getByLabel("Skills").fill("Photography, Events");
    await page.getByLabel("Years of experience").fill("3");
    await page.getByLabel("Professional description").fill("Event and portrait photographer based in Kampala.");
    await page.getByLabel(/I agree to the/).check();
    await page.getByRole("button", { name: "Join as a seller" }).click();
    await page.getByText("Manage your gigs, orders and earnings").waitFor();
    // A seller publishes once their email is verified (ADR 051): the link mailed at joining, from the outbox.
    await page.goto(`${server.baseUrl}/dev/outbox`);
    await page
      .getByRole("article")
      .filter({ hasText: `To: ${seller.email}` })
      .first()
      .getByRole("link")
      .click();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Verify my email" }).click();
    await page.getByRole("heading", { level: 1, name: "Your email is verified" }).waitFor();

    await open(page, mode, `${server.baseUrl}/gig/create`);
    const choices = await page.getByLabel("Category", { exact: true }).locator("option").allTextContents();
    expect(choices.filter((c) => SIX.includes(c))).toEqual(SIX);
    const title = `I will photograph your event in Kampala ${tag}`;
    await page.getByLabel("Title", { exact: true }).fill(title);
    await page.getByLabel("Category", { exact: true }).selectOption("local-services");
    await page.getByLabel("Description", { exact: true }).fill("A day of event photography, edited and delivered online.");
    await page.getByLabel("Basic price (UGX)", { exact: true }).fill("150000");
    await page.getByLabel("Basic delivery", { exact: true }).selectOption("3");
    await page.getByRole("button", { name: "Publish Gig" }).click();
    await page.getByText("Your gig is published: buyers can find it now.").waitFor();

    const gig = await database.db("gigs as g").join("categories as c", "c.id", "g.category_id").where("g.title", title).first("g.id", "g.status", "c.slug");
    expect(gig).toMatchObject({ status: "published", slug: "local-services" });
    // A visitor finds it at its page and under its category.
    const visitor = await mode.context().browser()!.newContext({ javaScriptEnabled: mode.js });
    const other = await visitor.newPage();
    await other.goto(`${server.baseUrl}/gig/${gig.id}`);
    await other.getByRole("heading", { level: 1, name: title }).waitFor();
    await other.goto(`${server.baseUrl}/browse?category=local-services`);
    await other.getByRole("link", { name: title }).first().waitFor();
    await visitor.close();
    await page.close();
  });

  it("lets the admin add, rename, move up and hide a category on /admin/categories", async () => {
    await mode.context().clearCookies(); // the freelancer of the test before signs out
    const page = await mode.page();
    // No console or hydration error (the 400 of the refused name is the browser's own resource line, expected).
    const consoleErrors: string[] = [];
    page.on("console", (m) => void (m.type() === "error" && !m.text().startsWith("Failed to load resource") && consoleErrors.push(m.text())));
    page.on("pageerror", (e) => void consoleErrors.push(e.message));
    await open(page, mode, `${server.baseUrl}/admin/categories`);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Categories" }).waitFor();
    await waitForHydration(page, mode);
    const names = () => page.locator(".category-admin-title").allTextContents();
    // The migration's six, in order (another pass's category may sit among them).
    expect((await names()).filter((n) => SIX.includes(n))).toEqual(SIX);

    // On a 360 px phone: nothing wider than the screen, and the buttons big enough to touch.
    await page.setViewportSize({ width: 360, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    for (const button of await page.getByRole("button", { name: /^(Up|Down|Hide) / }).all()) {
      const box = (await button.boundingBox())!;
      expect(Math.min(box.width, box.height)).toBeGreaterThanOrEqual(44);
    }

    // Add: a clear message beside the field for a name taken, then the new one at the end.
    allowStatus(400, "a category is added under a name already taken");
    const add = page.getByRole("form", { name: "Add a category" });
    await add.getByLabel("Name", { exact: true }).fill("local services");
    await add.getByRole("button", { name: "Add category" }).click();
    await add.getByText("Another category already has this name").waitFor();
    const name = `Tutoring ${tag}`;
    // With its name and description in Luganda and Swahili, which readers of those languages get.
    const nameLg = `Okusomesa ${tag}`;
    const nameSw = `Masomo ya ziada ${tag}`;
    await add.getByLabel("Name", { exact: true }).fill(name);
    await add.getByLabel("Description (optional)", { exact: true }).fill("Lessons at home or online.");
    await add.getByLabel("Name in Luganda", { exact: true }).fill(nameLg);
    await add.getByLabel("Description in Luganda", { exact: true }).fill("Okusomesebwa awaka oba ku yintaneeti.");
    await add.getByLabel("Name in Swahili", { exact: true }).fill(nameSw);
    await add.getByLabel("Description in Swahili", { exact: true }).fill("Masomo nyumbani au mtandaoni.");
    await add.getByRole("button", { name: "Add category" }).click();
    await page.getByText(`Added “${name}”.`).waitFor();
    expect((await names()).at(-1)).toBe(name);
    const slug = `tutoring-${tag}`;
    expect(await database.db("categories").where({ slug }).first("translations")).toEqual({
      translations: {
        lg: { name: nameLg, description: "Okusomesebwa awaka oba ku yintaneeti." },
        sw: { name: nameSw, description: "Masomo nyumbani au mtandaoni." },
      },
    });
    // A visitor reading in Luganda (the switcher's cookie) browses it under its Luganda name; one whose browser asks
    // for Swahili, under its Swahili name; in English, its English name.
    const visitor = await mode.context().browser()!.newContext({ javaScriptEnabled: mode.js });
    const reader = await visitor.newPage();
    const heading = async () => (await reader.locator("#main h1").first().innerText()).trim();
    await visitor.addCookies([{ name: "soko_lang", value: "lg", url: server.baseUrl }]);
    await open(reader, mode, `${server.baseUrl}/browse?category=${slug}`);
    expect(await reader.locator("html").getAttribute("lang")).toBe("lg");
    expect(await heading()).toBe(nameLg);
    expect(await reader.locator(`#filter-category option[value="${slug}"]`).textContent()).toBe(nameLg);
    await visitor.clearCookies();
    await reader.setExtraHTTPHeaders({ "Accept-Language": "sw-KE,sw;q=0.9" });
    await open(reader, mode, `${server.baseUrl}/browse?category=${slug}`);
    expect(await heading()).toBe(nameSw);
    await reader.setExtraHTTPHeaders({ "Accept-Language": "en-GB" });
    await open(reader, mode, `${server.baseUrl}/browse?category=${slug}`);
    expect(await heading()).toBe(name);
    await visitor.close();

    // Rename: the slug stays, and so do the Luganda and Swahili names.
    await page.getByRole("link", { name: `Rename ${name}` }).click();
    const rename = page.getByRole("form", { name: `Rename “${name}”` });
    await waitForHydration(page, mode);
    const renamed = `Tutoring & Lessons ${tag}`;
    await rename.getByLabel("Name", { exact: true }).fill(renamed);
    await rename.getByRole("button", { name: "Save" }).click();
    await page.getByText(`Saved “${renamed}”.`).waitFor();
    expect(await database.db("categories").where({ slug }).first("name", "translations")).toMatchObject({
      name: renamed,
      translations: { lg: { name: nameLg }, sw: { name: nameSw } },
    });

    // Move it up one place: before the one that was above it.
    const before = await names();
    const at = before.indexOf(renamed);
    await page.getByRole("button", { name: `Up ${renamed}` }).click();
    await page.getByText(`Moved “${renamed}”.`).waitFor();
    expect((await names()).slice(at - 1, at + 1)).toEqual([renamed, before[at - 1]]);

    // Hide it: gone from the gig form and the home page, still listed here as hidden.
    await page.getByRole("button", { name: `Hide ${renamed}` }).click();
    await page.getByText(`“${renamed}” is hidden`).waitFor();
    await page.getByRole("button", { name: `Show ${renamed}` }).waitFor();
    expect(await database.db("categories").where({ slug }).first("hidden")).toEqual({ hidden: true });
    const home = await (await fetch(server.baseUrl)).text();
    expect(home).toContain("/browse?category=local-services");
    expect(home).not.toContain(`/browse?category=${slug}`);

    // The admin host serves the same screen at /categories.
    // The admin host serves the same screen at /categories (a host of its own: signed in there on its own).
    await open(page, mode, `${server.adminUrl}/categories`);
    await page.getByLabel("Email").fill(ADMIN.email);
    await page.getByLabel("Password", { exact: true }).fill(ADMIN.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: "Categories" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/categories");
    expect(consoleErrors).toEqual([]);
    await page.getByRole("button", { name: `Show ${renamed}` }).waitFor();
    await page.close();
  });
});
