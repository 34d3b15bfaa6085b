/**
 * End-to-end helpers: Debian's Chromium driven by playwright-core, every spec run twice — with
 * JavaScript enabled and disabled — against the server that e2e-global-setup started.
 */
import type { Knex } from "knex";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, inject } from "vitest";
import { createDb } from "~/utils/db.server";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

export function appUrl(path = "/") {
  return new URL(path, inject("e2eBaseUrl")).toString();
}

export function adminUrl(path = "/") {
  return new URL(path, inject("e2eAdminUrl")).toString();
}

let db: Knex | undefined;
/** The e2e server's database (demo data loaded), to arrange or check what is stored. */
export function e2eDb(): Knex {
  db ??= createDb(inject("e2eDatabaseUrl"), { min: 0, max: 2 });
  return db;
}
afterAll(async () => {
  await db?.destroy();
  db = undefined;
});

export type Mode = {
  /** Whether JavaScript runs in this pass. */
  js: boolean;
  /** A new page in this pass's browser context (cookies are shared within the describe block). */
  page: () => Promise<Page>;
  /** The pass's context, e.g. to clear cookies. */
  context: () => BrowserContext;
};

/** Declares the same specs twice: "(JavaScript on)" and "(JavaScript off)". */
export function describeBothModes(title: string, body: (mode: Mode) => void) {
  for (const js of [true, false]) {
    describe(`${title} (JavaScript ${js ? "on" : "off"})`, () => {
      let browser: Browser;
      let context: BrowserContext;
      beforeAll(async () => {
        browser = await launchChromium();
        context = await browser.newContext({ javaScriptEnabled: js, viewport: { width: 412, height: 900 } });
        context.setDefaultTimeout(10_000);
      });
      afterAll(async () => {
        await context?.close();
        await browser?.close();
      });
      body({ js, page: () => context.newPage(), context: () => context });
    });
  }
}

/**
 * With JavaScript on, waits until React has hydrated the page, so a click is handled by Remix rather
 * than by the browser's default navigation. A no-op with JavaScript off.
 */
export async function waitForHydration(page: Page, mode: Pick<Mode, "js">) {
  if (!mode.js) return;
  await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
}
