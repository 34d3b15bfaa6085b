/**
 * End-to-end helpers: Debian's Chromium driven by playwright-core, every spec run twice — with
 * JavaScript enabled and disabled — against the server that e2e-global-setup started.
 */
import type { Knex } from "knex";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, describe, inject } from "vitest";
import { createDb } from "~/server/db.server";

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * A Chromium for a spec. Every context made from it (`newContext`, `newPage`) is watched: a console error or an
 * uncaught exception on any of its pages fails the test that was running (see `allowConsoleErrors`).
 */
export async function launchChromium(): Promise<Browser> {
  const browser = await chromium.launch({
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
  // browser.newPage makes its context through this too.
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (options) => watchConsole(await newContext(options), options?.javaScriptEnabled !== false);
  return browser;
}

// Console errors and uncaught exceptions, gathered from every watched page while a test runs, and checked after it.
type ConsoleProblem = { url: string; text: string };
const problems: ConsoleProblem[] = [];
let allowed: { pattern: RegExp; reason: string }[] = [];
const watched = new Map<BrowserContext, { js: boolean }>();
// Pages a test opened with `mode.page()`: closed once it has been checked, so a page left open (and polling, say
// /notifications/counts) cannot log into a later test that signs out or clears the cookies. Undefined outside a
// test, so pages a `beforeAll` opens stay open for the tests that share them.
let pagesOfThisTest: Page[] | undefined;
beforeEach(() => {
  pagesOfThisTest = [];
});

function watchConsole(context: BrowserContext, js: boolean): BrowserContext {
  const watchPage = (page: Page) => {
    page.on("console", (message) => {
      if (message.type() !== "error") return;
      const source = message.location().url;
      problems.push({ url: page.url(), text: `console error: ${message.text()}${source && source !== page.url() ? ` (from ${source})` : ""}` });
    });
    page.on("pageerror", (error) => problems.push({ url: page.url(), text: `uncaught ${error.name}: ${error.message}` }));
  };
  context.pages().forEach(watchPage);
  context.on("page", watchPage);
  watched.set(context, { js });
  context.on("close", () => watched.delete(context));
  return context;
}

/**
 * Lets this test's pages log console errors matching `pattern` (only this test: the list is emptied after each),
 * for what the test brings about on purpose, e.g. a refused WebSocket or the 404 of a page it asks for. Say why.
 */
export function allowConsoleErrors(pattern: RegExp, reason: string) {
  allowed.push({ pattern, reason });
}

/**
 * Lets this test's pages answer `status` (Chromium logs every 4xx/5xx as "Failed to load resource"): for a test
 * that posts a refused form or asks for a page it may not see, on purpose. Only that status, only this test.
 */
export function allowStatus(status: number, reason: string) {
  allowConsoleErrors(new RegExp(`^console error: Failed to load resource: the server responded with a status of ${status} `), reason);
}

afterEach(async () => {
  // What a page logs reaches us over the browser's connection: let each open page that runs scripts finish
  // hydrating (errors come during it) and answer a round trip, so its messages so far have all arrived.
  for (const [context, { js }] of watched) {
    for (const page of context.pages()) {
      if (page.isClosed()) continue;
      if (js) await page.waitForSelector("html[data-hydrated=true]", { state: "attached", timeout: 2_000 }).catch(() => {});
      await Promise.race([page.evaluate(() => 0).catch(() => {}), new Promise((resolve) => setTimeout(resolve, 2_000))]);
    }
  }
  const opened = pagesOfThisTest ?? [];
  pagesOfThisTest = undefined;
  await Promise.all(opened.map((page) => page.close().catch(() => {})));
  const unexpected = new Map<string, number>();
  for (const p of problems) {
    if (allowed.some((a) => a.pattern.test(p.text))) continue;
    const line = `${p.url}: ${p.text}`;
    unexpected.set(line, (unexpected.get(line) ?? 0) + 1);
  }
  problems.length = 0;
  allowed = [];
  if (unexpected.size) {
    const lines = [...unexpected].map(([line, n]) => (n > 1 ? `${line} (${n} times)` : line));
    throw new Error(`Console errors or uncaught exceptions on this test's pages:\n${lines.join("\n")}`);
  }
});

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

/** The six-digit code in the latest text to `to` (+2567XXXXXXXX), which the SMS sandbox keeps. */
export async function textedCode(to: string): Promise<string> {
  const sms = await e2eDb()("sms_messages").where({ to_number: to, purpose: "verification" }).orderBy("id", "desc").first("body");
  const code = /code is (\d{6})/.exec(sms?.body ?? "")?.[1];
  if (!code) throw new Error(`no code was texted to ${to}`);
  return code;
}

/** Settings › Billing after "Save number" for a new number: the code texted to it, typed back as the member would (ADR 055). */
export async function confirmPayoutNumber(page: Page, number: string) {
  await page.getByText("We texted a code to your new number.").waitFor();
  await page.getByLabel(`The six-digit code texted to ${number}`).fill(await textedCode(number));
  await page.getByRole("button", { name: "Save this number" }).click();
  await page.getByText("Your mobile-money number is saved.").waitFor();
}

export type Mode = {
  /** Whether JavaScript runs in this pass. */
  js: boolean;
  /**
   * A new page in this pass's browser context (cookies are shared within the describe block). Opened in a test,
   * it is closed when the test ends; opened in `beforeAll`, it stays for the block.
   */
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
      const page = async () => {
        const opened = await context.newPage();
        pagesOfThisTest?.push(opened);
        return opened;
      };
      body({ js, page, context: () => context });
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
