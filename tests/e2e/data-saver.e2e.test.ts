/**
 * Data-saver mode (ADR 054) on a 360 px phone, with JavaScript on and off: the footer's switch turns it on (in place
 * with JavaScript), after which browse carries no image; "Show image" shows one (the image alone without JavaScript,
 * in its place with it, on the page switched in place and on a data-saver document alike); switching off brings the
 * images back; a member's choice is theirs on a new sign-in in another browser; and in data-saver mode the
 * directory shows initials for photos, and a member's own photo and gig images in their forms wait behind "Show image".
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { beforeAll, expect, it } from "vitest";
import { allowConsoleErrors, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createSession, createUser, DEFAULT_PASSWORD } from "../support/factories";

const PHONE = { width: 360, height: 740 };
let photoFile: string;

beforeAll(async () => {
  photoFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "soko-saver-photo-")), "me.png");
  await sharp({ create: { width: 300, height: 300, channels: 3, background: "#0f5132" } })
    .png()
    .toFile(photoFile);
});

/** A page of this pass at the phone's size, patient with a loaded machine. */
async function phonePage(mode: Mode): Promise<Page> {
  const page = await mode.page();
  page.setDefaultTimeout(30_000);
  await page.setViewportSize(PHONE);
  return page;
}

async function open(page: Page, mode: Mode, path: string) {
  await page.goto(appUrl(path));
  await waitForHydration(page, mode);
}

const images = (page: Page) => page.locator("img").count();
const footer = (page: Page) => page.getByRole("contentinfo");
/** Nothing wider than the phone. */
const overflows = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

describeBothModes("Data saver", (mode) => {
  const tag = mode.js ? "on" : "off";

  it("switches on at 360 px: browse has no image until one is asked for, and switching off brings them back", async () => {
    await mode.context().clearCookies();
    const page = await phonePage(mode);
    await open(page, mode, "/browse");
    expect(await images(page)).toBeGreaterThan(0);

    const turnOn = footer(page).getByRole("button", { name: "Turn data saver on" });
    expect((await turnOn.boundingBox())!.height).toBeGreaterThanOrEqual(44);
    await turnOn.click();
    await footer(page).getByRole("button", { name: "Turn data saver off" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/browse");
    expect(await images(page)).toBe(0);
    expect(await overflows(page)).toBe(false);
    const show = page.getByRole("link", { name: "Show image" });
    expect(await show.count()).toBeGreaterThan(0);
    expect((await show.first().boundingBox())!.height).toBeGreaterThanOrEqual(44);
    const href = (await show.first().getAttribute("href"))!;
    expect(href).toMatch(/^\/media\/[0-9a-f-]{36}-small\.webp$/);

    if (mode.js) {
      // The page switched in place: the image takes the link's place, and the page stays where it is.
      await show.first().click();
      await page.locator(`img[src="${href}"]`).waitFor();
      expect(await images(page)).toBe(1);
      expect(new URL(page.url()).pathname).toBe("/browse");
      // A data-saver document (no app scripts): its inline script does the same.
      await page.reload();
      expect(await page.locator("script[src], script[type=module]").count()).toBe(0);
      expect(await images(page)).toBe(0);
      await page.getByRole("link", { name: "Show image" }).first().click();
      await page.locator(`img[src="${href}"]`).waitFor();
      expect(await images(page)).toBe(1);
      expect(new URL(page.url()).pathname).toBe("/browse");
    } else {
      // Without JavaScript the link opens that one image, at its smallest size.
      allowConsoleErrors(
        /^console error: Applying inline style violates the following Content Security Policy directive 'style-src 'self''/,
        "Chromium's own viewer of an image opened alone styles itself inline, which the site's CSP refuses; the image shows all the same",
      );
      const [response] = await Promise.all([page.waitForResponse((r) => r.url().endsWith(href)), show.first().click()]);
      expect(response.status()).toBe(200);
      expect(response.headers()["content-type"]).toBe("image/webp");
      expect(new URL(page.url()).pathname).toBe(href);
      await page.goBack();
    }

    await footer(page).getByRole("button", { name: "Turn data saver off" }).click();
    await footer(page).getByRole("button", { name: "Turn data saver on" }).waitFor();
    expect(await page.getByRole("link", { name: "Show image" }).count()).toBe(0);
    expect(await images(page)).toBeGreaterThan(0);
  }, 120_000);

  it("keeps a member's choice for their next sign-in, in another browser", async () => {
    await mode.context().clearCookies();
    const member = await createUser(e2eDb(), { role: "client", name: `Saver Member ${tag}`, email: `saver.${tag}.${Date.now()}@example.ug` });
    const signIn = async (page: Page) => {
      await open(page, mode, "/login?redirectTo=/settings?tab=preferences");
      await page.getByLabel("Email").fill(member.email);
      await page.getByLabel("Password", { exact: true }).fill(DEFAULT_PASSWORD);
      await page.getByRole("button", { name: "Sign in" }).click();
      await page.getByRole("group", { name: "Data saver" }).waitFor();
      await waitForHydration(page, mode);
    };
    const page = await phonePage(mode);
    await signIn(page);
    // Settings › Preferences: turned on and saved.
    await page.getByLabel("On: save data").check();
    await page.getByRole("button", { name: "Save data saver choice" }).click();
    await page.getByText("Your preferences are saved.").first().waitFor();
    expect(await page.getByLabel("On: save data").isChecked()).toBe(true);
    expect((await e2eDb()("users").where({ id: member.id }).first("data_saver")).data_saver).toBe(true);

    // Another browser, nothing of this one's: signed in again, the member's pages are in data-saver mode.
    await mode.context().clearCookies();
    const again = await phonePage(mode);
    await signIn(again);
    // A data-saver document has no scripts, so nothing to wait for.
    await again.goto(appUrl("/browse"));
    expect(await images(again)).toBe(0);
    expect(await again.getByRole("link", { name: "Show image" }).count()).toBeGreaterThan(0);
    await footer(again).getByRole("button", { name: "Turn data saver off" }).waitFor();
  }, 120_000);

  it("shows initials in the directory and keeps a member's own photo and gig images behind Show image", async () => {
    const db = e2eDb();
    const stamp = `${tag}${Date.now()}`;
    const seller = await createUser(db, { role: "freelancer", name: `Photo Seller ${tag}`, email: `photo.seller.${stamp}@example.ug` });
    await db("users")
      .where({ id: seller.id })
      .update({ skills: [`saverskill${stamp}`] });
    // A paused gig (in no list but its seller's), whose image is never fetched in data-saver mode.
    const { id: gigId } = await createGig(db, { sellerId: seller.id, status: "paused", images: [`saver-gig-${stamp}`] });
    await mode.context().clearCookies();
    await mode.context().addCookies([{ name: "soko_session", value: await createSession(db, seller.id), url: appUrl("/") }]);
    const page = await phonePage(mode);

    // A real photo first, through Settings › Profile, so that its picture exists wherever others see it.
    await open(page, mode, "/settings?tab=profile");
    await page.getByLabel("Profile photo").setInputFiles(photoFile);
    await page.getByRole("button", { name: "Save profile" }).click();
    await page.getByText("Your profile is saved.").waitFor();
    const { avatar_key: avatarKey } = await db("users").where({ id: seller.id }).first("avatar_key");
    expect(avatarKey).toBeTruthy();
    await db("users").where({ id: seller.id }).update({ data_saver: true });

    // The directory: the seller's card has their initials, no photo.
    await page.goto(appUrl(`/freelancers?skill=saverskill${stamp}`));
    const card = page.getByRole("article").filter({ hasText: `Photo Seller ${tag}` });
    await card.waitFor();
    expect(await card.locator("img").count()).toBe(0);
    expect(await card.innerText()).toContain("PS");

    // Settings › Profile: their own photo waits behind "Show image", a link to it.
    await page.goto(appUrl("/settings?tab=profile"));
    expect(await page.getByRole("link", { name: "Show image" }).getAttribute("href")).toBe(`/media/${avatarKey}-avatar.webp`);
    expect(await images(page)).toBe(0);

    // The gig's form: its image too, at its smallest rendition.
    await page.goto(appUrl(`/gig/${gigId}/edit`));
    const gallery = page.getByRole("list", { name: "Gallery images" });
    expect(await gallery.getByRole("link", { name: "Show image" }).getAttribute("href")).toBe(`/media/saver-gig-${stamp}-small.webp`);
    expect(await images(page)).toBe(0);
    expect(await overflows(page)).toBe(false);
  }, 120_000);
});
