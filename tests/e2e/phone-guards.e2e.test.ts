/**
 * Phone-first guards over every page of the marketplace and of the admin portal, as each page's own people see
 * it (signed out, a client, a freelancer, an admin), at 360×740 and 1366×900, with JavaScript on and off:
 *
 * - nothing is wider than the screen (the document scrolls only downwards);
 * - no visible control is under 24×24 px (WCAG 2.2 target size, minimum), unless a 24 px circle centred on it
 *   touches no other target (its spacing exception); a link inside a sentence is exempt, as WCAG says;
 * - the main action of checkout, the payment page, the order page (each party) and a chat thread starts on the
 *   first screen of a 360×740 phone;
 * - axe finds no violation on the phone (without JavaScript, in the document as that browser parsed it, shown
 *   again with its scripts taken out, since axe is a script itself).
 *
 * Each page loads once a mode, on the phone; it is then widened to the desktop's window and checked again.
 *
 * The pages are a table (path, who, main action): a failure names the page, the check and the elements. The
 * privacy question is left unanswered, as a new visitor sees the pages, banner and all.
 */
import { randomBytes } from "node:crypto";
import type { BrowserContext, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, expect, inject, it } from "vitest";
import { findOrCreateConversation } from "~/models/conversation.server";
import { insertMessage } from "~/models/message.server";
import { hashToken } from "~/models/session.server";
import { deliverOrder } from "~/operations/orders.server";
import { ADMIN_SCREENS } from "~/utils/site-routes";
import { adminUrl, allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { DEMO_ADMIN } from "../support/e2e-orders";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { axeViolations, checkLayout, mainActionPlacement, PHONE } from "../support/phone-checks";
import { memberActor, paidTestOrder, placeTestOrder, testProviders } from "../support/orders";

const DESKTOP = { width: 1366, height: 900 };

type Who = "visitor" | "client" | "freelancer" | "admin";
type Fixture = {
  gigId: number;
  sellerUsername: string;
  buyerId: number;
  deliveredOrderId: number;
  inProgressOrderId: number;
  pendingOrderId: number;
  conversationId: string;
  resetToken: string;
};
type GuardedPage = {
  /** What a failure calls the page. */
  name: string;
  who: Who;
  host?: "main" | "admin";
  path: (f: Fixture) => string;
  /** The page's main action, which must start on a phone's first screen. */
  mainAction?: (page: Page) => Locator;
  /** A status the page answers on purpose (the 404 page, a dead reset link). */
  status?: number;
  /** The test's time, when the page is long (axe reads every element). */
  timeoutMs?: number;
};

const button = (name: string | RegExp) => (page: Page) => page.getByRole("button", { name }).first();
/** The banner's link to a step, or the step's own button: whichever comes first on the page. */
const linkOrButton = (link: string | RegExp, name: string | RegExp) => (page: Page) =>
  page.getByRole("link", { name: link }).or(page.getByRole("button", { name })).first();
const ADMIN_PATH: Record<string, (f: Fixture) => string> = {
  journey: (f) => `/analytics/user-journey/${f.buyerId}`,
  "member-analytics": (f) => `/users/${f.buyerId}/analytics`,
};

const PAGES: GuardedPage[] = [
  // Signed out.
  { name: "landing", who: "visitor", path: () => "/" },
  { name: "browse", who: "visitor", path: () => "/browse" },
  { name: "search", who: "visitor", path: () => "/search?q=logo" },
  { name: "gig page", who: "visitor", path: (f) => `/gig/${f.gigId}` },
  { name: "profile", who: "visitor", path: (f) => `/user/${f.sellerUsername}` },
  { name: "sign in", who: "visitor", path: () => "/login" },
  { name: "join", who: "visitor", path: () => "/register" },
  { name: "join as a seller", who: "visitor", path: () => "/freelancer/register" },
  { name: "forgot password", who: "visitor", path: () => "/forgot-password" },
  { name: "reset password", who: "visitor", path: (f) => `/reset-password?token=${f.resetToken}` },
  { name: "reset password (dead link)", who: "visitor", path: () => "/reset-password?token=gone", status: 410 },
  { name: "help", who: "visitor", path: () => "/help" },
  { name: "terms", who: "visitor", path: () => "/terms" },
  { name: "privacy", who: "visitor", path: () => "/privacy" },
  { name: "privacy choices", who: "visitor", path: () => "/consent" },
  { name: "API docs", who: "visitor", path: () => "/api/docs", timeoutMs: 150_000 },
  { name: "not found", who: "visitor", path: () => "/no-such-page", status: 404 },
  // The buyer.
  { name: "dashboard (client)", who: "client", path: () => "/dashboard" },
  { name: "checkout", who: "client", path: (f) => `/gig/${f.gigId}/order?package=basic`, mainAction: button(/^Pay UGX/) },
  { name: "payment page", who: "client", path: (f) => `/orders/${f.pendingOrderId}/pay`, mainAction: button("Send the prompt again") },
  { name: "orders (client)", who: "client", path: () => "/orders" },
  {
    name: "order page (buyer)",
    who: "client",
    path: (f) => `/orders/${f.deliveredOrderId}`,
    mainAction: linkOrButton("Approve delivery…", /^Approve/),
  },
  { name: "messages (client)", who: "client", path: () => "/messages" },
  { name: "chat thread (client)", who: "client", path: (f) => `/messages/${f.conversationId}`, mainAction: button(/^Send$/) },
  { name: "notifications (client)", who: "client", path: () => "/notifications" },
  { name: "settings (client)", who: "client", path: () => "/settings" },
  // The seller.
  { name: "dashboard (freelancer)", who: "freelancer", path: () => "/dashboard" },
  {
    name: "order page (seller)",
    who: "freelancer",
    path: (f) => `/orders/${f.inProgressOrderId}`,
    // The status banner's "Deliver your work", which leads to the delivery form.
    mainAction: linkOrButton(/^Deliver/, /^Deliver/),
  },
  { name: "orders (freelancer)", who: "freelancer", path: () => "/orders" },
  { name: "chat thread (freelancer)", who: "freelancer", path: (f) => `/messages/${f.conversationId}`, mainAction: button(/^Send$/) },
  { name: "gig create", who: "freelancer", path: () => "/gig/create" },
  { name: "gig edit", who: "freelancer", path: (f) => `/gig/${f.gigId}/edit` },
  { name: "notifications (freelancer)", who: "freelancer", path: () => "/notifications" },
  { name: "settings (freelancer)", who: "freelancer", path: () => "/settings" },
  // The admin portal, every screen on its own host, and its sign-in page.
  { name: "admin sign in", who: "visitor", host: "admin", path: () => "/login" },
  // Every admin screen but the CSV export, which is a download rather than a page.
  ...ADMIN_SCREENS.filter((screen) => screen.name !== "analytics-export").map((screen): GuardedPage => ({
    name: `admin ${screen.name}`,
    who: "admin",
    host: "admin",
    path: ADMIN_PATH[screen.name] ?? (() => `/${screen.path}`),
  })),
];

// ---------------------------------------------------------------------------------------------------------

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  // The server's own sandbox prefix: the payment page asks the server's sandbox about the waiting payment, which
  // must find it pending (under another prefix it would find nothing, and the order would fail).
  providers = testProviders(inject("e2eQueuePrefix"));
});
afterAll(async () => {
  await providers?.close();
});

/** A buyer and a seller of one's own (with a gig, a delivered order, an order in progress, a payment waiting and a conversation). */
async function arrange(): Promise<Fixture & { buyer: TestUser; seller: TestUser }> {
  const db = e2eDb();
  const tag = randomBytes(4).toString("hex");
  const seller = await createUser(db, { role: "freelancer", name: `Grace Guard ${tag}` });
  const buyer = await createUser(db, { role: "client", name: `Moses Guard ${tag}` });
  await db("users").where({ id: buyer.id }).update({ mobile_money_number: "+256772123456" });
  const gig = await createGig(db, {
    sellerId: seller.id,
    category: "graphics-design",
    title: `A shop sign that people read from the road ${tag}`,
    description: "A sign for a shop front: lettering, colours and a layout that reads from across the road.",
    packages: {
      basic: { priceUgx: 80_000, deliveryDays: 3, revisions: 1 },
      standard: { priceUgx: 150_000, deliveryDays: 7, revisions: 2 },
      premium: { priceUgx: 250_000, deliveryDays: 14, revisions: 3 },
    },
  });
  const c = { db, providers: providers.providers, sandbox: providers.sandbox };
  const delivered = await paidTestOrder(c, buyer, gig.id);
  expect((await deliverOrder(memberActor(seller), { orderId: delivered.orderId, message: "The first version of the sign." }, c)).ok).toBe(true);
  const inProgress = await paidTestOrder(c, buyer, gig.id);
  const pending = await placeTestOrder(c, buyer, gig.id);
  const conversationId = (await findOrCreateConversation(db, { a: buyer.id, b: seller.id, createdBy: buyer.id })).id;
  for (let n = 1; n <= 12; n++) {
    const from = n % 2 ? buyer : seller;
    await insertMessage(db, {
      conversationId,
      senderId: from.id,
      recipientId: from === buyer ? seller.id : buyer.id,
      body: `Message ${n}: the letters should be green on white, large enough to read from a boda boda ${tag}`,
      offPlatform: false,
      attachments: [],
    });
  }
  const resetToken = `guard${randomBytes(16).toString("hex")}`;
  await db("password_resets").insert({ id: hashToken(resetToken), user_id: buyer.id, expires_at: new Date(Date.now() + 60 * 60 * 1000) });
  return {
    buyer,
    seller,
    gigId: gig.id,
    sellerUsername: seller.username,
    buyerId: buyer.id,
    deliveredOrderId: delivered.orderId,
    inProgressOrderId: inProgress.orderId,
    pendingOrderId: pending.orderId,
    conversationId: String(conversationId),
    resetToken,
  };
}

describeBothModes("Phone-first guards", (mode: Mode) => {
  let fixture: Fixture;
  const contexts = new Map<Who, BrowserContext>();
  /** Without JavaScript: the same people in a browser that runs scripts for axe, but none of the page's (see staticPages). */
  const staticContexts = new Map<Who, BrowserContext>();

  beforeAll(async () => {
    const db = e2eDb();
    const { buyer, seller, ...rest } = await arrange();
    fixture = rest;
    const admin = await db("users").where({ email: DEMO_ADMIN.email }).first<{ id: number }>("id");
    const browser = mode.context().browser()!;
    const sessions: Record<Who, number | null> = { visitor: null, client: buyer.id, freelancer: seller.id, admin: Number(admin.id) };
    for (const [who, userId] of Object.entries(sessions) as [Who, number | null][]) {
      const token = userId === null ? null : await createSession(db, userId);
      const signIn = async (context: BrowserContext) => {
        context.setDefaultTimeout(15_000);
        if (token)
          await context.addCookies([
            { name: "soko_session", value: token, url: appUrl("/") },
            { name: "soko_session", value: token, url: adminUrl("/") },
          ]);
        return context;
      };
      contexts.set(who, await signIn(await browser.newContext({ javaScriptEnabled: mode.js, viewport: PHONE })));
      if (!mode.js) staticContexts.set(who, await signIn(await browser.newContext({ viewport: PHONE })));
    }
  });
  afterAll(async () => {
    for (const context of [...contexts.values(), ...staticContexts.values()]) await context.close();
  });

  for (const guarded of PAGES) {
    it(
      `${guarded.name} (${guarded.who}) fits a phone and a desktop, with targets of 24 px and no axe violation`,
      { timeout: guarded.timeoutMs ?? 60_000 },
      async () => {
        if (guarded.status) allowStatus(guarded.status, `the ${guarded.name} page answers ${guarded.status} on purpose`);
        const url = (guarded.host === "admin" ? adminUrl : appUrl)(guarded.path(fixture));
        const problems: string[] = [];
        const report = (at: string, check: string, found: string[]) => found.forEach((line) => problems.push(`${guarded.name} at ${at}, ${check}: ${line}`));
        const page = await contexts.get(guarded.who)!.newPage();
        const response = await page.goto(url);
        expect(response?.status(), `${guarded.name}: GET ${url}`).toBe(guarded.status ?? 200);
        let html = "";
        try {
          await waitForHydration(page, mode);
          // The phone first, then the same page widened to a desktop's window (the layout reflows; no new load).
          for (const viewport of [PHONE, DESKTOP]) {
            const at = `${viewport.width}×${viewport.height}`;
            await page.setViewportSize(viewport);
            const layout = await checkLayout(page);
            report(at, "horizontal overflow", layout.overflow);
            report(at, "target under 24×24 px", layout.small);
            if (guarded.mainAction && viewport === PHONE) report(at, "main action", await mainActionPlacement(page, guarded.mainAction));
          }
          await page.setViewportSize(PHONE);
          if (mode.js) report("360×740", "axe", await axeViolations(page));
          else html = await page.content();
        } finally {
          await page.close();
        }
        if (!mode.js) {
          // axe runs as a script of its own, which a page without JavaScript cannot run: it reads the same document,
          // as the browser without JavaScript parsed it, in a page that runs none of the document's scripts.
          const bare = await withoutScripts(staticContexts.get(guarded.who)!, url, html);
          try {
            report("360×740", "axe", await axeViolations(bare));
          } finally {
            await bare.close();
          }
        }
        expect(problems, problems.join("\n")).toEqual([]);
      },
    );
  }
});

/**
 * A page showing `html` at `url` with none of its scripts: every `<script>` and module preload is taken out, so it
 * is what a browser without JavaScript shows (the app's one `<noscript>` holds a meta refresh only), while axe,
 * run by Playwright, still can run. Its styles and images load from the server as usual.
 */
async function withoutScripts(context: BrowserContext, url: string, html: string) {
  const body = html.replace(/<script\b[\s\S]*?<\/script>/gi, "").replace(/<link\b[^>]*rel="modulepreload"[^>]*>/gi, "");
  const page = await context.newPage();
  await page.route("**/*", (route) =>
    route.request().isNavigationRequest() ? route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body }) : route.continue(),
  );
  await page.goto(url);
  return page;
}
