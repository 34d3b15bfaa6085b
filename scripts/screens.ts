/**
 * Screenshots of the main pages on a 360 px phone, for docs/screens/ (see its README).
 *
 *   npm run screens [-- --build] [--full-page] [--database soko_screens] [--keep-data]
 *
 * 1. (Re)creates its own Postgres and ClickHouse databases (soko_screens) with the demo data as `npm start`
 *    loads it (scripts/lib/demo-site.ts), and runs the production build against it (building it when missing or
 *    with `--build`), its payments in the sandbox, so a checkout waits on its payment page until answered.
 *    `--keep-data` uses the database an earlier run left (each run adds one order waiting for payment).
 * 2. In Debian's Chromium (playwright-core), at 360×740 with the privacy question answered ("no"), photographs
 *    the landing, browse and a gig page signed out; as the demo client checkout, then the payment page of the
 *    order that checkout places, an order page and their chat thread; the same order page as the demo
 *    freelancer; and the admin portal's analytics as the demo admin (on the admin host).
 * 3. Writes docs/screens/<name>.png: the first screen (what a phone shows before any scrolling), or the whole
 *    page with `--full-page`.
 */
import fs from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { chromium, type BrowserContext, type Page } from "playwright-core";
import { buildApp, root } from "./build";
import { DEMO_LOGINS, demoSiteEnv, findDemoPages, prepareDemoSite, type DemoPages } from "./lib/demo-site";
import { startAppServer, type AppServer } from "./lib/servers";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const VIEWPORT = { width: 360, height: 740 };
const OUT = path.join(root, "docs", "screens");

type Shot = { name: string; what: string; go: (page: Page) => Promise<void> };

function readOptions() {
  const { values } = parseArgs({
    options: {
      build: { type: "boolean", default: false },
      "full-page": { type: "boolean", default: false },
      database: { type: "string", default: "soko_screens" },
      "keep-data": { type: "boolean", default: false },
    },
  });
  return { build: values.build, fullPage: values["full-page"], database: values.database, keepData: values["keep-data"] };
}

/** A browser context signed in as `email` through the site's sign-in page (or signed out), the privacy question answered. */
async function personOn(contextOf: () => Promise<BrowserContext>, server: AppServer, host: "main" | "admin", email: string | null) {
  const context = await contextOf();
  const base = host === "admin" ? server.adminUrl : server.baseUrl;
  await context.addCookies([{ name: "soko_consent", value: "denied", url: `${base}/` }]);
  const page = await context.newPage();
  if (email) {
    await page.goto(`${base}/login`);
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill(DEMO_LOGINS.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname !== "/login");
  }
  return { page, base };
}

/** Waits until the page has hydrated and its images (covers, photos) have loaded, so the picture is the page at rest. */
async function settle(page: Page) {
  await page.waitForSelector("html[data-hydrated=true]", { state: "attached", timeout: 15_000 });
  await page.waitForLoadState("networkidle", { timeout: 15_000 }).catch(() => {});
  // The images on the first screen (lazy ones further down never load until scrolled to), 10 s at most.
  await page.evaluate(() => {
    const shown = [...document.images].filter((img) => !img.complete && img.getBoundingClientRect().top < innerHeight);
    const loaded = Promise.all(shown.map((img) => new Promise((resolve) => (img.addEventListener("load", resolve), img.addEventListener("error", resolve)))));
    return Promise.race([loaded, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  });
}

async function main() {
  const options = readOptions();
  const env: Record<string, string> = { ...demoSiteEnv(options.database, "soko-screens"), PAYMENTS_SANDBOX: "1" };
  if (options.build || !fs.existsSync(path.join(root, "build", "server", "index.js"))) {
    console.log("Building the app (production)...");
    if (buildApp() !== 0) throw new Error("the build failed");
  }
  let demo: DemoPages;
  if (options.keepData) {
    demo = await findDemoPages(env);
  } else {
    console.log(`Loading the demo data into ${options.database}...`);
    demo = await prepareDemoSite(env, options.database);
  }
  fs.mkdirSync(OUT, { recursive: true });

  const server = await startAppServer(env, { processGroup: true, name: "web server (screens)" });
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-dev-shm-usage"] });
  try {
    const newContext = () => browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, isMobile: true, hasTouch: true });
    const visitor = await personOn(newContext, server, "main", null);
    const client = await personOn(newContext, server, "main", DEMO_LOGINS.client);
    const freelancer = await personOn(newContext, server, "main", DEMO_LOGINS.freelancer);
    const admin = await personOn(newContext, server, "admin", DEMO_LOGINS.admin);

    const open = (who: { page: Page; base: string }, pathname: string) => async () => {
      const res = await who.page.goto(`${who.base}${pathname}`);
      if (res?.status() !== 200) throw new Error(`GET ${pathname} answered ${res?.status()}`);
      await settle(who.page);
    };
    const shots: (Shot & { who: { page: Page; base: string } })[] = [
      { name: "landing", what: "The landing page, signed out", who: visitor, go: open(visitor, "/") },
      { name: "browse", what: "Browse, signed out", who: visitor, go: open(visitor, "/browse") },
      { name: "gig", what: "The newest gig, signed out", who: visitor, go: open(visitor, `/gig/${demo.gigId}`) },
      {
        name: "checkout",
        what: "Checkout of that gig's Basic package, as the demo client",
        who: client,
        go: open(client, `/gig/${demo.gigId}/order?package=basic`),
      },
      {
        name: "payment",
        what: "The payment page of the order that checkout places (waiting for the phone)",
        who: client,
        go: async () => {
          // The checkout page is open: pay from an MTN number, as the client would.
          await client.page.getByLabel("Mobile-money number").fill("0772 123456");
          await client.page.getByRole("button", { name: /^Pay / }).click();
          await client.page.waitForURL((url) => /^\/orders\/\d+\/pay$/.test(url.pathname), { waitUntil: "commit" });
          await settle(client.page);
        },
      },
      { name: "order-buyer", what: "A delivered order, as the buyer (the demo client)", who: client, go: open(client, `/orders/${demo.deliveredOrderId}`) },
      {
        name: "order-seller",
        what: "An order in progress, as the seller (the demo freelancer)",
        who: freelancer,
        go: open(freelancer, `/orders/${demo.inProgressOrderId}`),
      },
      { name: "chat", what: "The demo client's chat thread with the demo freelancer", who: client, go: open(client, `/messages/${demo.conversationId}`) },
      { name: "admin-analytics", what: "The admin portal's analytics, as the demo admin", who: admin, go: open(admin, "/analytics") },
    ];
    const written: string[] = [];
    for (const shot of shots) {
      await shot.go(shot.who.page);
      const file = path.join(OUT, `${shot.name}.png`);
      await shot.who.page.screenshot({ path: file, fullPage: options.fullPage, animations: "disabled", caret: "hide" });
      written.push(`${path.relative(root, file)} (${(fs.statSync(file).size / 1024).toFixed(0)} KB): ${shot.what}`);
      console.log(written.at(-1));
    }
  } finally {
    await browser.close();
    await server.stop();
    fs.rmSync(env.UPLOAD_DIR!, { recursive: true, force: true });
  }
}

await main();
