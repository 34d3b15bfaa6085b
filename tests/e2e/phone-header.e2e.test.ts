/**
 * The marketplace's header, privacy banner and small controls on a 360×740 phone and a 1366×900 screen, with
 * JavaScript on and off: the header is one row (signed in and out) with Search, Messages and the bell with
 * their counts, and a <details> menu whose links work; the privacy banner is one line whose two answers are
 * stored, and it stays off checkout, the payment page and a chat thread; every page's h1 begins within 120 px;
 * the controls made bigger measure at least 44 px; the focus ring has its two tones.
 */
import { randomBytes } from "node:crypto";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { findOrCreateConversation } from "~/models/conversation.server";
import { insertNotification } from "~/models/notification.server";
import { allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { paidTestOrder, placeTestOrder, testProviders } from "../support/orders";

const PHONE = { width: 360, height: 740 };
const DESKTOP = { width: 1366, height: 900 };

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

type Box = { x: number; y: number; width: number; height: number };
const boxOf = async (page: Page, selector: string): Promise<Box> => {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not shown`);
  return found;
};
/** A box's size as the page lays it out (getBoundingClientRect). */
const rectOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => {
      const r = el.getBoundingClientRect();
      return { top: r.top + scrollY, width: r.width, height: r.height };
    });

describeBothModes("Phone header, privacy banner and touch targets", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let buyer: TestUser;
  let gigId: number;
  let paidOrderId: number;
  let unpaidOrderId: number;
  let conversationId: string;

  beforeAll(async () => {
    const db = e2eDb();
    const seller = await createUser(db, { role: "freelancer", name: `Akello Header ${tag}`, username: `akello_${tag}` });
    buyer = await createUser(db, { role: "client", name: `Okello Header ${tag}`, username: `okello_${tag}` });
    const gig = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Shop sign ${tag}`,
      packages: { basic: { priceUgx: 50_000, deliveryDays: 3, revisions: 1 } },
    });
    gigId = gig.id;
    const context = { db, providers: providers.providers, sandbox: providers.sandbox };
    ({ orderId: paidOrderId } = await paidTestOrder(context, buyer, gigId));
    ({ orderId: unpaidOrderId } = await placeTestOrder(context, buyer, gigId));
    conversationId = (await findOrCreateConversation(db, { a: buyer.id, b: seller.id, createdBy: buyer.id })).id;
    // More notifications than a page holds (30), so /notifications has its pager.
    for (let n = 1; n <= 32; n++) await insertNotification(db, { userId: buyer.id, kind: "test", body: `Note ${n} for ${tag}` });
  });

  /** A browser context of this pass at `viewport`: signed in as the buyer or not, with the privacy question answered or not. */
  async function contextOf(viewport: typeof PHONE, { signedIn, consent }: { signedIn: boolean; consent: boolean }) {
    const browser = mode.context().browser() as Browser;
    const context = await browser.newContext({ javaScriptEnabled: mode.js, viewport });
    context.setDefaultTimeout(20_000);
    const cookies = [];
    // A session of its own: a test that signs out ends only its own.
    if (signedIn) cookies.push({ name: "soko_session", value: await createSession(e2eDb(), buyer.id), url: appUrl("/") });
    if (consent) cookies.push({ name: "soko_consent", value: "denied", url: appUrl("/") });
    await context.addCookies(cookies);
    return context;
  }

  async function visit(page: Page, path: string) {
    const res = await page.goto(appUrl(path));
    expect(res?.status(), path).toBe(200);
    await waitForHydration(page, mode);
  }

  for (const viewport of [PHONE, DESKTOP]) {
    describe(`at ${viewport.width}×${viewport.height}`, () => {
      let contexts: BrowserContext[] = [];
      const open = async (options: { signedIn: boolean; consent: boolean }) => {
        const context = await contextOf(viewport, options);
        contexts.push(context);
        return context.newPage();
      };
      afterAll(async () => {
        await Promise.all(contexts.map((c) => c.close()));
        contexts = [];
      });

      /** The header is one row: as tall as its tallest control (44 px) and a little padding, nothing wider than the screen. */
      async function expectOneRow(page: Page) {
        const header = await rectOf(page, ".site-header");
        expect(header.height).toBeLessThanOrEqual(60);
        const row = await page
          .locator(".site-header .header-row > *:not(.visually-hidden), .site-nav > *")
          .evaluateAll((els) => els.filter((el) => (el as HTMLElement).offsetParent !== null).map((el) => el.getBoundingClientRect().right));
        for (const right of row) expect(right).toBeLessThanOrEqual(viewport.width);
        expect(await page.evaluate(() => document.scrollingElement!.scrollWidth)).toBeLessThanOrEqual(viewport.width);
      }

      it("shows a member's header on one row, with Search, Messages and the bell counting, and a menu whose links work", async () => {
        // Signing out drops the live connection; as it goes it may still ask for the counts, now refused.
        if (mode.js) allowStatus(401, "the header's count request racing the sign-out");
        const page = await open({ signedIn: true, consent: true });
        await visit(page, "/dashboard");
        await expectOneRow(page);
        const nav = page.getByRole("navigation", { name: "Main" });
        expect(await nav.getByRole("link", { name: "Search", exact: true }).getAttribute("href")).toBe("/search");
        expect(await nav.getByRole("link", { name: "Messages", exact: true }).getAttribute("href")).toBe("/messages");
        // 32 notes and the payment's "held in escrow": 33 unread.
        const bell = nav.getByRole("link", { name: "Notifications, 33 unread", exact: true });
        expect(await bell.locator(".count-badge").innerText()).toBe("33");
        for (const name of ["Search", "Messages", "Notifications, 33 unread"]) {
          const b = (await nav.getByRole("link", { name, exact: true }).boundingBox())!;
          expect(b.width, name).toBeGreaterThanOrEqual(44);
          expect(b.height, name).toBeGreaterThanOrEqual(44);
        }

        // The menu: closed, then open (a <details>, no script needed), its links 44 px rows.
        const settings = nav.getByRole("link", { name: "Settings" });
        expect(await settings.isVisible()).toBe(false);
        const summary = page.locator(".header-menu summary");
        const s = (await summary.boundingBox())!;
        expect(s.width).toBeGreaterThanOrEqual(44);
        expect(s.height).toBeGreaterThanOrEqual(44);
        await summary.click();
        expect((await settings.boundingBox())!.height).toBeGreaterThanOrEqual(44);
        expect(await nav.getByText(`Signed in as ${buyer.name}`).count()).toBe(1);
        // On a phone Dashboard and Orders are in the menu; on a wide screen they are in the row, not in the menu too.
        expect(await nav.getByRole("link", { name: "Orders", exact: true }).count()).toBe(1);
        expect(await nav.getByRole("link", { name: "Dashboard", exact: true }).getAttribute("aria-current")).toBe("page");
        await settings.click();
        await page.waitForURL((url) => url.pathname === "/settings");
        await page.getByRole("heading", { level: 1 }).waitFor();
        // The menu is closed on the new page, JavaScript (a client navigation) or not.
        await expect.poll(() => page.locator(".header-menu").getAttribute("open")).toBeNull();
        await expectOneRow(page);

        // Orders, from the menu on a phone or the row on a wide screen.
        if (viewport === PHONE) await summary.click();
        await nav.getByRole("link", { name: "Orders", exact: true }).click();
        await page.waitForURL((url) => url.pathname === "/orders");
        await page.getByRole("heading", { level: 1 }).waitFor();

        // Sign out is in the menu too.
        await summary.click();
        await nav.getByRole("button", { name: "Sign out" }).click();
        await nav.getByRole("link", { name: "Sign in", exact: true }).waitFor();
      }, 120_000);

      it("shows a visitor's header on one row, with Sign in beside the menu", async () => {
        const page = await open({ signedIn: false, consent: true });
        await visit(page, "/");
        await expectOneRow(page);
        const nav = page.getByRole("navigation", { name: "Main" });
        const signIn = nav.getByRole("link", { name: "Sign in", exact: true });
        expect((await signIn.boundingBox())!.height).toBeGreaterThanOrEqual(44);
        await page.locator(".header-menu summary").click();
        await nav.getByRole("link", { name: "Join", exact: true }).click();
        await page.waitForURL((url) => url.pathname === "/register");
      }, 120_000);

      it("asks the privacy question in one line, and stores either answer", async () => {
        for (const [answer, stored] of [
          ["Yes, allow analytics", "granted"],
          ["No, only anonymous page views", "denied"],
        ] as const) {
          const page = await open({ signedIn: false, consent: false });
          await visit(page, "/browse");
          const banner = page.getByRole("region", { name: "Your privacy choice" });
          // One line: as tall as its 44 px buttons and a little padding; at the foot of the screen.
          const bar = (await banner.boundingBox())!;
          expect(bar.height).toBeLessThanOrEqual(56);
          // On the first screen: held at its foot, or (a short page) resting above the footer.
          expect(bar.y + bar.height).toBeLessThanOrEqual(viewport.height + 0.5);
          const text = await rectOf(page, ".consent-text");
          expect(text.height).toBeLessThanOrEqual(48);
          expect(await banner.getByRole("link", { name: "Privacy policy" }).getAttribute("href")).toBe("/privacy");
          for (const button of await banner.getByRole("button").all()) expect((await button.boundingBox())!.height).toBeGreaterThanOrEqual(44);
          await banner.getByRole("button", { name: answer }).click();
          await expect.poll(async () => (await page.context().cookies()).find((c) => c.name === "soko_consent")?.value).toBe(stored);
          await page.waitForURL((url) => url.pathname === "/browse");
          expect(await page.getByRole("region", { name: "Your privacy choice" }).count()).toBe(0);
        }
      }, 120_000);

      it("leaves the privacy question off checkout, the payment page and a chat thread", async () => {
        const page = await open({ signedIn: true, consent: false });
        // Asked on the order page (so its absence below means something)...
        await visit(page, `/orders/${paidOrderId}`);
        await page.getByRole("region", { name: "Your privacy choice" }).waitFor();
        // ...and not where the page has one task.
        for (const path of [`/gig/${gigId}/order`, `/orders/${unpaidOrderId}/pay`, `/messages/${conversationId}`]) {
          await visit(page, path);
          await page.getByRole("heading", { level: 1 }).first().waitFor();
          expect(new URL(page.url()).pathname).toBe(path);
          expect(await page.getByRole("region", { name: "Your privacy choice" }).count(), path).toBe(0);
        }
      }, 120_000);

      it("begins every page's content within 120 px of the top", async () => {
        const member = await open({ signedIn: true, consent: false });
        const visitor = await open({ signedIn: false, consent: false });
        const pages: [Page, string][] = [
          [visitor, "/"],
          [visitor, "/browse"],
          [visitor, "/help"],
          [visitor, "/login"],
          [visitor, `/gig/${gigId}`],
          [member, "/dashboard"],
          [member, "/orders"],
          [member, "/notifications"],
          [member, "/messages"],
          [member, "/settings"],
          [member, `/orders/${paidOrderId}`],
        ];
        for (const [page, path] of pages) {
          await visit(page, path);
          const h1 = await rectOf(page, "main h1");
          expect(h1.top, path).toBeLessThanOrEqual(120);
        }
      }, 120_000);

      it("makes the small controls 44 px targets", async () => {
        const page = await open({ signedIn: true, consent: true });
        const atLeast44 = async (selector: string, { width = true } = {}) => {
          const b = await boxOf(page, selector);
          expect(b.height, selector).toBeGreaterThanOrEqual(44);
          if (width) expect(b.width, selector).toBeGreaterThanOrEqual(44);
        };
        await visit(page, "/notifications");
        await atLeast44(".notification-feed button.link-button");
        await atLeast44(".notifications-head button");
        await atLeast44('nav.pager a[href^="/notifications?before="]');
        // The footer: the currency switch and its links.
        await atLeast44("#footer-currency");
        await atLeast44(".currency-switch button");
        await atLeast44('.site-footer a[href="/browse"]', { width: false });
        await atLeast44('.footer-bottom a[href="/terms"]', { width: false });
        // An order card's links and its Contact button.
        await visit(page, "/orders");
        const card = `.order-card:has(a[href="/orders/${paidOrderId}"])`;
        await atLeast44(`${card} .order-title a`, { width: false });
        await atLeast44(`${card} .order-actions a[href="/gig/${gigId}"]`);
        await atLeast44(`${card} .order-actions button.link-button`);
        // A file input is a button with the file's name beside it.
        await visit(page, "/settings");
        await atLeast44('input[type="file"]', { width: false });
        // A checkbox's label is its 44 px target.
        const visitor = await open({ signedIn: false, consent: true });
        await visit(visitor, "/login");
        const label = (await visitor.locator(".checkbox label").boundingBox())!;
        expect(label.height).toBeGreaterThanOrEqual(44);
        await visitor.locator(".checkbox label").click();
        expect(await visitor.locator('.checkbox input[type="checkbox"]').isChecked()).toBe(true);
      }, 120_000);

      it("draws a two-tone focus ring: dark on the control's edge, white around it", async () => {
        const page = await open({ signedIn: false, consent: true });
        await visit(page, "/");
        // The hero's first link, reached from the keyboard.
        const link = page.locator(".hero a").first();
        await link.focus();
        await page.keyboard.press("Shift+Tab");
        await page.keyboard.press("Tab");
        const ring = await link.evaluate((el) => {
          const s = getComputedStyle(el);
          return { focused: el.matches(":focus-visible"), style: s.outlineStyle, color: s.outlineColor, width: s.outlineWidth, shadow: s.boxShadow };
        });
        expect(ring).toEqual({ focused: true, style: "solid", color: "rgb(17, 17, 17)", width: "3px", shadow: "rgb(255, 255, 255) 0px 0px 0px 6px" });
      }, 120_000);
    });
  }
});
