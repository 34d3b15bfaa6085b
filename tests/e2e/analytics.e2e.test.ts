/**
 * Analytics in the browser: the consent banner, the /consent page, the footer link and the settings choice
 * (with and without JavaScript), and the tracker itself. The tracker's requests are answered here with
 * `page.route` (202, or 503/400/413 where a test says so; 413 above 64 KB, as the server does), so what the
 * browser sends is seen exactly; the endpoints and the pipeline behind them have their own tests.
 */
import { randomBytes, randomUUID } from "node:crypto";
import type { BrowserContext, Page, Request } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ActionPageviewEvent, MAX_BODY_BYTES } from "~/analytics/events";
import { hashToken } from "~/models/session.server";
import { allowConsoleErrors, appUrl, describeBothModes, e2eDb, launchChromium, waitForHydration, type Mode } from "../support/e2e";

const DEMO_PASSWORD = "soko-demo-2026";
/** Headless Chromium's own user agent says "HeadlessChrome", which the server treats as a bot. */
const USER_AGENT = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/** The tracker batches for up to 2 s and backs off for seconds: wait up to 10 s for what it should send. */
const eventually = <T>(fn: () => T | Promise<T>, timeout = 10_000) => expect.poll(fn, { timeout, interval: 100 });
const YEAR_S = 365 * 24 * 60 * 60;

async function consentCookie(context: BrowserContext) {
  return (await context.cookies(appUrl("/"))).find((c) => c.name === "soko_consent");
}

function analyticsRequests(page: Page): string[] {
  const urls: string[] = [];
  page.on("request", (r: Request) => {
    if (r.url().includes("/api/v1/analytics/") || /tracker\.client-[^/]*\.js/.test(r.url())) urls.push(r.url());
  });
  return urls;
}

describeBothModes("Analytics consent", (mode: Mode) => {
  async function open(path: string) {
    const page = await mode.page();
    await page.goto(appUrl(path));
    await waitForHydration(page, mode);
    return page;
  }

  it("asks with a banner until a choice is made; allowing stores it for a year and the banner goes", async () => {
    await mode.context().clearCookies();
    const page = await open("/help");
    const banner = page.getByRole("region", { name: "Your privacy choice" });
    await banner.waitFor();
    expect(await banner.innerText()).toContain("Allow analytics?");
    await banner.getByRole("button", { name: "Allow analytics" }).click();
    await banner.waitFor({ state: "detached" });
    // Back on the same page (in place with JavaScript, by redirect without).
    expect(new URL(page.url()).pathname).toBe("/help");
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await eventually(async () => (await consentCookie(mode.context()))?.value).toBe("granted");
    const cookie = (await consentCookie(mode.context()))!;
    // The tracker reads it, so not HttpOnly; a year; Lax; the whole site.
    expect(cookie).toMatchObject({ httpOnly: false, sameSite: "Lax", path: "/" });
    expect(Math.abs(cookie.expires - Date.now() / 1000 - YEAR_S)).toBeLessThan(120);

    await page.goto(appUrl("/"));
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    expect(await page.getByRole("region", { name: "Your privacy choice" }).count()).toBe(0);
    await page.close();
  });

  it("stores 'only anonymous page views' from the banner", async () => {
    await mode.context().clearCookies();
    const page = await open("/search?q=logo");
    const banner = page.getByRole("region", { name: "Your privacy choice" });
    await banner.getByRole("button", { name: "Only anonymous page views" }).click();
    await banner.waitFor({ state: "detached" });
    const url = new URL(page.url());
    expect(url.pathname + url.search).toBe("/search?q=logo");
    await eventually(async () => (await consentCookie(mode.context()))?.value).toBe("denied");
    await page.close();
  });

  it("changes the choice on /consent, reached from the footer's Privacy choices link", async () => {
    await mode.context().clearCookies();
    await mode.context().addCookies([{ name: "soko_consent", value: "denied", url: appUrl("/") }]);
    const page = await open("/");
    expect(await page.getByRole("region", { name: "Your privacy choice" }).count()).toBe(0);
    await page.getByRole("contentinfo").getByRole("navigation", { name: "Policies" }).getByRole("link", { name: "Privacy choices" }).click();
    await page.getByRole("heading", { level: 1, name: "Privacy choices" }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/consent");
    await page.getByText("Your current choice: only anonymous page views").waitFor();
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Allow analytics" }).click();
    await page.getByText("Your choice is saved.").waitFor();
    await page.getByText("Your current choice: analytics allowed").waitFor();
    expect((await consentCookie(mode.context()))?.value).toBe("granted");

    await page.getByRole("button", { name: "Only anonymous page views" }).click();
    await page.getByText("Your current choice: only anonymous page views").waitFor();
    expect((await consentCookie(mode.context()))?.value).toBe("denied");
    await page.close();
  });

  it("changes the choice in settings, on the Preferences tab", async () => {
    await mode.context().clearCookies();
    const page = await open("/login?redirectTo=%2Fsettings%3Ftab%3Dpreferences");
    await page.getByLabel("Email").fill("client@soko.test");
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 2, name: "Preferences" }).waitFor();
    await waitForHydration(page, mode);
    expect(await page.getByLabel("Only anonymous page views", { exact: true }).isChecked()).toBe(false);
    await page.getByLabel("Only anonymous page views", { exact: true }).check();
    await page.getByRole("button", { name: "Save analytics choice" }).click();
    await page.getByText("Your preferences are saved.").waitFor();
    expect((await consentCookie(mode.context()))?.value).toBe("denied");
    expect(await page.getByLabel("Only anonymous page views", { exact: true }).isChecked()).toBe(true);
    expect(await page.getByRole("region", { name: "Your privacy choice" }).count()).toBe(0);

    await page.getByLabel(/^Allow analytics/).check();
    await page.getByRole("button", { name: "Save analytics choice" }).click();
    await eventually(async () => (await consentCookie(mode.context()))?.value).toBe("granted");
    await page.close();
  });

  it("refuses a post without a choice, and sends no tracker request without JavaScript", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    const res = await page.request.post(appUrl("/consent"), { form: { consent: "maybe" }, headers: { Origin: appUrl("/").slice(0, -1) } });
    expect(res.status()).toBe(400);
    expect(await consentCookie(mode.context())).toBeUndefined();
    if (mode.js) return;
    await mode.context().addCookies([{ name: "soko_consent", value: "granted", url: appUrl("/") }]);
    const requests = analyticsRequests(page);
    await page.goto(appUrl("/"));
    await page.getByRole("link", { name: "Browse services" }).first().click();
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await page.waitForTimeout(2500); // longer than the tracker's 2 s flush: the time a request that must not come would take (nothing to wait for)
    expect(requests).toEqual([]);
    await page.close();
  });
});

type AnalyticsEvent = Record<string, unknown> & { event_id: string };
type Sent = { endpoint: string; status: number; contentType: string; bytes: number; events: AnalyticsEvent[] };

describe("The tracker (JavaScript on)", () => {
  let browser: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  /** A fresh browser profile (cookies, localStorage) with the given choice, its analytics calls recorded. */
  async function visitor(consent: "granted" | "denied" | null, answer: (endpoint: string, events: AnalyticsEvent[], bytes: number) => number = () => 202) {
    await context?.close();
    context = await browser.newContext({
      viewport: { width: 1280, height: 800 },
      screen: { width: 1280, height: 720 },
      userAgent: USER_AGENT,
      timezoneId: "Africa/Kampala",
    });
    context.setDefaultTimeout(10_000);
    if (consent) await context.addCookies([{ name: "soko_consent", value: consent, url: appUrl("/") }]);
    const sent: Sent[] = [];
    await context.route("**/api/v1/analytics/**", async (route) => {
      const request = route.request();
      const endpoint = new URL(request.url()).pathname.split("/").pop()!;
      const body = JSON.parse(request.postData() ?? "[]") as AnalyticsEvent | AnalyticsEvent[];
      const events = Array.isArray(body) ? body : [body];
      const bytes = request.postDataBuffer()?.length ?? 0;
      // The server's cap on a body.
      const status = bytes > MAX_BODY_BYTES ? 413 : answer(endpoint, events, bytes);
      sent.push({ endpoint, status, contentType: request.headers()["content-type"] ?? "", bytes, events });
      await route.fulfill({ status, contentType: "application/json", body: status === 202 ? '{"accepted":1}' : '{"error":"x"}' });
    });
    // Chromium sends a beacon made at pagehide, but Playwright neither routes nor reports it: each beacon is
    // also written to localStorage, for the next page of the same origin to read back.
    await context.addInitScript(() => {
      const send = navigator.sendBeacon.bind(navigator);
      navigator.sendBeacon = (url, body) => {
        const seen = JSON.parse(localStorage.getItem("test_beacons") ?? "[]") as unknown[];
        localStorage.setItem("test_beacons", JSON.stringify([...seen, { url: String(url), body: String(body) }]));
        return send(url, body);
      };
    });
    const page = await context.newPage();
    return { page, sent };
  }
  const accepted = (sent: Sent[], endpoint: string) => sent.filter((s) => s.endpoint === endpoint && s.status === 202).flatMap((s) => s.events);
  const actions = (sent: Sent[], type: string) => accepted(sent, "action").filter((e) => e.action_type === type);

  async function signIn(page: Page) {
    await page.goto(appUrl("/login"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await page.getByLabel("Email").fill("client@soko.test");
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("heading", { level: 1, name: /^Welcome back, / }).waitFor();
  }

  it("starts once analytics is allowed in the banner: a session, clicks cut to 100 characters with x and y, focus without values, submits", async () => {
    const { page, sent } = await visitor(null);
    await page.goto(appUrl("/"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await page.waitForTimeout(2500); // longer than the tracker's 2 s flush: the time a request that must not come would take (nothing to wait for)
    expect(sent).toEqual([]);
    const [documentViewId] = (await page.locator('meta[name="soko-pageview"]').getAttribute("content"))!.split(" ");
    await page.getByRole("region", { name: "Your privacy choice" }).getByRole("button", { name: "Allow analytics" }).click();

    // The session, once, as soon as the choice is made (no reload).
    await eventually(() => accepted(sent, "session").length).toBe(1);
    const session = accepted(sent, "session")[0]!;
    expect(session).toMatchObject({ platform: "web", screen_resolution: "1280x720", timezone: "Africa/Kampala" });
    expect(session.user_agent).toContain("Chrome");
    expect(session.session_id).toMatch(/^\d{13}-[0-9a-z]{12}$/);
    expect(session.event_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    // Sent as text/plain (no CORS preflight). The page view the server recorded for this document is sent
    // again under its own id, now in the tab's session, through /action (/pageview needs a sign-in).
    expect(sent.every((s) => s.contentType.startsWith("text/plain"))).toBe(true);
    await eventually(() => actions(sent, "pageview").map((e) => [e.page, e.event_id, e.session_id])).toEqual([["/", documentViewId, session.session_id]]);
    expect(accepted(sent, "pageview")).toEqual([]);

    // A click on an element with 150 characters of text.
    const long = "Hire a graphic designer in Kampala ".repeat(5).trim();
    await page.evaluate((text) => {
      const button = document.createElement("button");
      button.id = "long-button";
      button.className = "button test-long";
      button.textContent = text;
      // What the page itself saw, to compare with what the tracker sent.
      button.addEventListener("click", (e) => ((window as unknown as { seen: number[] }).seen = [e.pageX, e.pageY]));
      document.querySelector("main")!.prepend(button);
    }, long);
    await page.evaluate(() => window.scrollTo(0, 40));
    await page.locator("#long-button").click({ position: { x: 30, y: 10 } });
    const seen = await page.evaluate(() => (window as unknown as { seen: number[] }).seen);
    await eventually(() => actions(sent, "click").filter((e) => e.element_id === "long-button").length).toBe(1);
    const click = actions(sent, "click").find((e) => e.element_id === "long-button")!;
    expect(click).toMatchObject({ element_tag: "button", element_class: "button test-long", element_text: long.slice(0, 100), page: "/" });
    expect((click.element_text as string).length).toBe(100);
    // Page coordinates (the page was scrolled), as the page saw them.
    expect([click.x, click.y]).toEqual(seen.map(Math.round));
    expect(click.x).toBeGreaterThanOrEqual(30);
    expect(click.y).toBeGreaterThanOrEqual(50);
    expect(click.session_id).toBe(session.session_id);

    // Focus on a form field names it and never sends what was typed; a submit is recorded.
    const search = page.getByLabel("Search for a service");
    await search.click();
    await search.fill("secret-typed-words");
    await eventually(() => actions(sent, "input_focus").length).toBeGreaterThan(0);
    expect(actions(sent, "input_focus")[0]).toMatchObject({ element_tag: "input", element_id: "hero-q", element_text: "q" });
    await search.press("Enter");
    await eventually(() => actions(sent, "form_submit").length).toBe(1);
    expect(actions(sent, "form_submit")[0]).toMatchObject({ element_tag: "form", element_class: "search-form", page: "/" });
    await page.waitForURL((url) => url.pathname === "/search");
    // Client-side: the same session, no second session event.
    await page.waitForTimeout(2500); // longer than the tracker's 2 s flush: the time a request that must not come would take (nothing to wait for)
    expect(accepted(sent, "session")).toHaveLength(1);
    // What was typed is never read from the field: no action carries it. The search's own URL does, in
    // the page view of /search (the one client-side navigation), as the server's page views of that URL do.
    expect(JSON.stringify(sent.flatMap((s) => s.events).filter((e) => e.action_type !== "pageview"))).not.toContain("secret-typed-words");
    expect(actions(sent, "pageview").map((e) => e.url)).toEqual([appUrl("/"), appUrl("/search?q=secret-typed-words")]);
    expect(new Set(accepted(sent, "action").map((e) => e.session_id))).toEqual(new Set([session.session_id]));
  });

  it("records a scroll once, a second after it stops, with its depth, and JavaScript errors", async () => {
    const { page, sent } = await visitor("granted");
    await page.goto(appUrl("/"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => accepted(sent, "session").length).toBe(1);
    const before = actions(sent, "scroll").length;
    for (const y of [200, 400, 600]) {
      await page.evaluate((top) => window.scrollTo(0, top), y);
      await page.waitForTimeout(150); // a person scrolling: the scrolls are apart in time
    }
    await eventually(() => actions(sent, "scroll").length, 6000).toBe(before + 1);
    await page.waitForTimeout(2500); // longer than the tracker's 2 s flush: the time a request that must not come would take (nothing to wait for)
    const scrolls = actions(sent, "scroll").slice(before);
    expect(scrolls).toHaveLength(1);
    const heightPx = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(scrolls[0]).toMatchObject({ y: 600, value: Math.min(100, Math.round(((600 + 800) / heightPx) * 100)) });

    // JavaScript errors, thrown and rejected (the test's own, which the tracker must record).
    allowConsoleErrors(/^uncaught Error: tracker-test (boom|rejected)$/, "thrown by the test for the tracker to record");
    await page.evaluate(() => {
      setTimeout(() => {
        throw new Error("tracker-test boom");
      });
      void Promise.reject(new Error("tracker-test rejected"));
    });
    await eventually(() =>
      actions(sent, "error")
        .map((e) => e.error_message)
        .sort(),
    ).toEqual([expect.stringContaining("tracker-test boom"), "tracker-test rejected"]);
    expect(actions(sent, "error").find((e) => e.error_message === "tracker-test rejected")!.error_stack).toContain("tracker-test rejected");
    expect(accepted(sent, "session")).toHaveLength(1);
    expect(new Set(sent.flatMap((s) => s.events.map((e) => e.event_id))).size).toBe(sent.flatMap((s) => s.events).length);
  });

  it("re-sends the server's page view of the document with its event id when signed in, then one per client-side navigation, and time on page", async () => {
    const { page, sent } = await visitor("granted");
    await signIn(page);
    // Signing in navigated client-side to the dashboard: a page view there, and the sign-in.
    await eventually(() => accepted(sent, "pageview").map((e) => e.page)).toContain("/dashboard");
    await eventually(() => accepted(sent, "user-action").map((e) => e.action)).toEqual(["signed_in"]);

    await page.goto(appUrl("/help"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    const meta = await page.locator('meta[name="soko-pageview"]').getAttribute("content");
    expect(meta).toMatch(/^[0-9a-f-]{36} \d{13}$/);
    const [eventId, time] = meta!.split(" ");
    await eventually(() => accepted(sent, "pageview").find((e) => e.page === "/help")).toBeDefined();
    const first = accepted(sent, "pageview").find((e) => e.page === "/help")!;
    expect(first).toMatchObject({ event_id: eventId, timestamp: Number(time), platform: "web", title: expect.stringContaining("Help") });
    expect(first.url).toBe(appUrl("/help"));
    // One page view for the document, not a second one of its own.
    expect(accepted(sent, "pageview").filter((e) => e.page === "/help")).toHaveLength(1);

    await page.getByRole("contentinfo").getByRole("link", { name: "Terms of service" }).click();
    await page.getByRole("heading", { level: 1, name: "Terms of Service" }).waitFor();
    await eventually(() => accepted(sent, "pageview").find((e) => e.page === "/terms")).toBeDefined();
    const next = accepted(sent, "pageview").find((e) => e.page === "/terms")!;
    expect(next.event_id).not.toBe(eventId);
    expect(next.referrer).toBe(appUrl("/help"));
    expect(next.session_id).toBe(first.session_id);
    const stay = actions(sent, "time_on_page").find((e) => e.page === "/help");
    expect(stay?.value).toBeGreaterThan(0);

    // Leaving the document: the time on /terms goes by sendBeacon (text/plain) at pagehide.
    await page.waitForTimeout(300); // time on /terms, which the beacon reports
    await page.goto(appUrl("/privacy"));
    const beacons = JSON.parse((await page.evaluate(() => localStorage.getItem("test_beacons"))) ?? "[]") as { url: string; body: string }[];
    const beaconed = beacons.filter((b) => b.url.endsWith("/api/v1/analytics/action")).flatMap((b) => JSON.parse(b.body) as AnalyticsEvent[]);
    const leave = beaconed.find((e) => e.action_type === "time_on_page" && e.page === "/terms");
    expect(leave?.value).toBeGreaterThanOrEqual(300);
    expect(leave?.session_id).toBe(first.session_id);
  });

  it("sends an anonymous visitor's page views to /action: the document's own with the server's id and time (one row, the tab's session), then one per client-side navigation", async () => {
    const { page, sent } = await visitor("granted");
    await page.goto(appUrl("/help"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    // The server recorded this document's page view itself: its id and time are in the page.
    const meta = await page.locator('meta[name="soko-pageview"]').getAttribute("content");
    expect(meta).toMatch(/^[0-9a-f-]{36} \d{13}$/);
    const [eventId, time] = meta!.split(" ");
    await eventually(() => accepted(sent, "session").length).toBe(1);
    const session = accepted(sent, "session")[0]!;
    await eventually(() => actions(sent, "pageview").map((e) => e.page)).toEqual(["/help"]);
    const help = actions(sent, "pageview")[0]!;
    expect(help).toMatchObject({ event_id: eventId, timestamp: Number(time), page: "/help", url: appUrl("/help"), session_id: session.session_id });
    expect(ActionPageviewEvent.safeParse(help).success).toBe(true);

    await page.getByRole("contentinfo").getByRole("link", { name: "Terms of service" }).click();
    await page.getByRole("heading", { level: 1, name: "Terms of Service" }).waitFor();
    await eventually(() => actions(sent, "pageview").map((e) => e.page)).toEqual(["/help", "/terms"]);
    const terms = actions(sent, "pageview")[1]!;
    expect(terms).toMatchObject({
      page: "/terms",
      url: appUrl("/terms"),
      referrer: appUrl("/help"),
      title: expect.stringContaining("Terms"),
      platform: "web",
      session_id: session.session_id,
    });
    // What the server's /action takes as a page view (the endpoint's own schema).
    expect(ActionPageviewEvent.safeParse(terms).success).toBe(true);

    // Back (client-side too): another route change, another page view.
    await page.goBack();
    await page.getByRole("heading", { level: 1, name: /Help centre/ }).waitFor();
    await eventually(() => actions(sent, "pageview").map((e) => e.page)).toEqual(["/help", "/terms", "/help"]);
    expect(actions(sent, "pageview")[2]).toMatchObject({ referrer: appUrl("/terms"), session_id: session.session_id });
    await page.waitForTimeout(2500); // longer than the tracker's 2 s flush: the time a request that must not come would take (nothing to wait for)
    // Exactly one per page shown: the document's under the server's id, a new id per navigation, none to
    // /pageview (it needs a sign-in).
    const views = actions(sent, "pageview");
    expect(views.map((e) => e.page)).toEqual(["/help", "/terms", "/help"]);
    expect(views.filter((e) => e.event_id === eventId)).toHaveLength(1);
    expect(new Set(views.map((e) => e.event_id)).size).toBe(3);
    expect(sent.filter((s) => s.endpoint === "pageview")).toEqual([]);
  });

  it("records the page losing and regaining focus, and not a form field's focus as the page's", async () => {
    const { page, sent } = await visitor("granted");
    await page.goto(appUrl("/"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => accepted(sent, "session").length).toBe(1);
    const session = accepted(sent, "session")[0]!;

    await page.getByLabel("Search for a service").click();
    await eventually(() => actions(sent, "input_focus").length).toBe(1);
    // Focus moving into a frame leaves the page's window (blur); a click back on the page returns it (focus).
    await page.evaluate(() => {
      const frame = document.createElement("iframe");
      frame.id = "focus-frame";
      frame.srcdoc = '<input id="inner" aria-label="Inner">';
      document.querySelector("main")!.prepend(frame);
    });
    await page.frameLocator("#focus-frame").locator("#inner").click();
    await eventually(() => actions(sent, "page_blur").length).toBe(1);
    expect(actions(sent, "page_focus")).toEqual([]);
    await page.getByRole("heading", { level: 1 }).first().click();
    await eventually(() => actions(sent, "page_focus").length).toBe(1);
    await page.waitForTimeout(2500); // longer than the tracker's 2 s flush: the time a request that must not come would take (nothing to wait for)
    const [blur, focus] = [actions(sent, "page_blur"), actions(sent, "page_focus")];
    expect([blur.length, focus.length]).toEqual([1, 1]);
    for (const e of [blur[0]!, focus[0]!]) {
      expect(e).toMatchObject({ page: "/", element_id: "", element_tag: "", element_text: "", session_id: session.session_id });
    }
    expect(focus[0]!.timestamp as number).toBeGreaterThanOrEqual(blur[0]!.timestamp as number);
  });

  /** Events as earlier pages left them in the outbox: JavaScript errors with long stacks, and clicks. */
  function kept(sessionId: string, { errors = 0, clicks = 0, stack = 4000 }: { errors?: number; clicks?: number; stack?: number }) {
    const common = () => ({ event_id: randomUUID(), session_id: sessionId, timestamp: Date.now(), platform: "web", page: "/help" });
    return [
      // Non-ASCII (2 bytes in UTF-8), so a body's bytes are more than its characters.
      ...Array.from({ length: errors }, (_, i) => [
        "action",
        { ...common(), action_type: "error", error_message: `Ekikolwa kyalemye ${i} `.padEnd(1000, "é"), error_stack: "é".repeat(stack) },
      ]),
      ...Array.from({ length: clicks }, (_, i) => ["action", { ...common(), action_type: "click", element_tag: "a", element_text: `Link ${i}`, x: i, y: i }]),
    ] as [string, AnalyticsEvent][];
  }

  /** Puts the events in the outbox on one page; the next document's tracker sends them first. */
  async function leaveInOutbox(page: Page, items: [string, AnalyticsEvent][]) {
    // Written from a same-origin address that runs no tracker (/healthz answers JSON): a page's tracker could
    // otherwise take the items into a send of its own just as the page is left, and the next page, not
    // knowing that send went through, would send them again (harmless for the server, which keeps one row
    // per event id, but not what these specs count).
    await page.goto(appUrl("/healthz"));
    await page.evaluate((json) => localStorage.setItem("soko_outbox", json), JSON.stringify(items));
    await page.goto(appUrl("/terms"));
  }

  const acceptedTimes = (sent: Sent[], eventId: string) =>
    sent
      .filter((s) => s.status === 202)
      .flatMap((s) => s.events)
      .filter((e) => e.event_id === eventId).length;

  it("sends a large outbox in sends of at most 100 events and 64 KB each, and every event arrives once", async () => {
    const { page, sent } = await visitor("granted");
    await page.goto(appUrl("/help"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => accepted(sent, "session").length).toBe(1);
    // 25 errors of about 10 KB each (250 KB) and 150 clicks.
    const items = kept(accepted(sent, "session")[0]!.session_id as string, { errors: 25, clicks: 150 });
    await leaveInOutbox(page, items);
    await eventually(() => items.filter(([, e]) => acceptedTimes(sent, e.event_id) === 0).length, 20_000).toBe(0);
    await eventually(() => page.evaluate(() => localStorage.getItem("soko_outbox"))).toBeNull();
    expect(items.filter(([, e]) => acceptedTimes(sent, e.event_id) !== 1)).toEqual([]);
    // Nothing refused for its size: every body was under the cap, in bytes.
    expect(sent.filter((s) => s.status === 413)).toEqual([]);
    expect(Math.max(...sent.map((s) => s.bytes))).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(Math.max(...sent.map((s) => s.events.length))).toBeLessThanOrEqual(100);
    // Full sends, not one per event.
    expect(sent.filter((s) => s.events.some((e) => e.action_type === "error")).length).toBeLessThanOrEqual(5);
  });

  it("sends again in halves what a server with a smaller cap refuses with 413, and drops only an event too large on its own", async () => {
    const CAP_BYTES = 16 * 1024;
    allowConsoleErrors(
      /status of 413 \(Payload Too Large\) \(from http:\/\/[^/]+\/api\/v1\/analytics\//,
      "the test's stand-in for the analytics service has a smaller cap",
    );
    const { page, sent } = await visitor("granted", (_endpoint, _events, bytes) => (bytes > CAP_BYTES ? 413 : 202));
    await page.goto(appUrl("/help"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => accepted(sent, "session").length).toBe(1);
    const sessionId = accepted(sent, "session")[0]!.session_id as string;
    const items = kept(sessionId, { errors: 12, clicks: 40 });
    // Larger than this server's cap even alone (about 21 KB).
    const [tooLarge] = kept(sessionId, { errors: 1, stack: 10_000 });
    items.splice(5, 0, tooLarge!);
    await leaveInOutbox(page, items);
    const fit = items.filter(([, e]) => e.event_id !== tooLarge![1].event_id);
    await eventually(() => fit.filter(([, e]) => acceptedTimes(sent, e.event_id) === 0).length, 20_000).toBe(0);
    await eventually(() => page.evaluate(() => localStorage.getItem("soko_outbox"))).toBeNull();
    expect(fit.filter(([, e]) => acceptedTimes(sent, e.event_id) !== 1)).toEqual([]);
    expect(sent.some((s) => s.status === 413 && s.events.length > 1)).toBe(true);
    // The one that can never fit was tried alone, once, then dropped.
    const alone = sent.filter((s) => s.events.length === 1 && s.events[0]!.event_id === tooLarge![1].event_id);
    expect(alone.map((s) => s.status)).toEqual([413]);
    expect(acceptedTimes(sent, tooLarge![1].event_id)).toBe(0);
  });

  it("tells the server its session (the soko_sid cookie), so the signup the server records is filed with the tab's page views", async () => {
    const { page, sent } = await visitor("granted");
    await page.goto(appUrl("/register"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => accepted(sent, "session").length).toBe(1);
    const session = accepted(sent, "session")[0]!.session_id;
    // Set before the form is posted, so the join request carries it.
    // (With JavaScript, Remix posts the form to /register.data.)
    const posted = page.waitForRequest((r) => r.method() === "POST" && new URL(r.url()).pathname.startsWith("/register"));
    await page.getByLabel("Full name").fill("Tracked Joiner");
    await page.getByLabel("Email").fill(`tracked.${Date.now()}@example.ug`);
    await page.getByLabel("Password", { exact: true }).fill("tracked-pass");
    await page.getByLabel("Confirm password").fill("tracked-pass");
    await page.getByRole("button", { name: "Create account" }).click();
    expect(await (await posted).headerValue("cookie")).toContain(`soko_sid=${session}`);
    await page.waitForURL((url) => url.pathname === "/dashboard");
    const cookie = (await context.cookies(appUrl("/"))).find((c) => c.name === "soko_sid");
    // For this browser session only, readable by the tracker, the whole site.
    expect(cookie).toMatchObject({ value: session, expires: -1, httpOnly: false, sameSite: "Lax", path: "/" });
  });

  it("keeps no reset token: not in its outbox in localStorage, not in what it sends, not as the next page's referrer", async () => {
    const token = `SECRET${randomBytes(16).toString("hex")}`;
    const { id: userId } = await e2eDb()("users").where({ email: "client@soko.test" }).first("id");
    await e2eDb()("password_resets").insert({ id: hashToken(token), user_id: userId, expires_at: new Date(Date.now() + 60 * 60 * 1000) });
    const link = appUrl(`/reset-password?token=${token}`);
    let down = true;
    allowConsoleErrors(
      /status of 503 \(Service Unavailable\) \(from http:\/\/[^/]+\/api\/v1\/analytics\//,
      "the test's stand-in for the analytics service answers 503",
    );
    const { page, sent } = await visitor("granted", () => (down ? 503 : 202));
    // Opened from a webmail whose own address holds the token too.
    await page.goto(link, { referer: `https://mail.example.ug/inbox/${token}?t=${token}` });
    await page.getByRole("heading", { level: 1 }).first().waitFor();
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    // The server is away: the page view waits in the outbox, without the token.
    await eventually(() => sent.some((s) => s.events.some((e) => e.action_type === "pageview"))).toBe(true);
    const outbox = (await page.evaluate(() => localStorage.getItem("soko_outbox"))) ?? "";
    expect(outbox).toContain('"page":"/reset-password"');
    expect(outbox).not.toContain(token);

    // Back; on to another page in the same document, then to a new document by a real navigation (whose
    // document.referrer is the reset link itself).
    down = false;
    await page.getByRole("contentinfo").getByRole("link", { name: "Terms of service" }).click();
    await page.getByRole("heading", { level: 1, name: "Terms of Service" }).waitFor();
    // (Each sent before the page is left: a beacon at pagehide is not seen here.)
    await eventually(() => actions(sent, "pageview").map((e) => e.page), 20_000).toEqual(["/reset-password", "/terms"]);
    await page.goto(link);
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => actions(sent, "pageview").length).toBe(3);
    await page.evaluate(() => location.assign("/help"));
    await page.getByRole("heading", { level: 1, name: /Help centre/ }).waitFor();
    await eventually(() => actions(sent, "pageview").map((e) => e.page)).toEqual(["/reset-password", "/terms", "/reset-password", "/help"]);
    await eventually(() => page.evaluate(() => localStorage.getItem("soko_outbox"))).toBeNull();

    const [reset, terms, , help] = actions(sent, "pageview");
    expect(reset).toMatchObject({ url: appUrl("/reset-password"), referrer: "https://mail.example.ug" });
    expect(terms).toMatchObject({ url: appUrl("/terms"), referrer: appUrl("/reset-password") });
    expect(help).toMatchObject({ url: appUrl("/help"), referrer: appUrl("/reset-password") });
    // Nothing the tracker sent or kept holds it: not the 503'd sends, not a beacon.
    expect(JSON.stringify(sent)).not.toContain(token);
    expect((await page.evaluate(() => JSON.stringify({ ...localStorage }))) ?? "").not.toContain(token);
  });

  it("sends nothing, and loads no tracker, when the visitor chose only anonymous page views", async () => {
    const { page, sent } = await visitor("denied");
    const requests = analyticsRequests(page);
    await page.goto(appUrl("/"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await page.getByRole("main").getByRole("link").first().click();
    await page.evaluate(() => window.scrollTo(0, 300));
    await page.waitForTimeout(3500); // longer than the tracker's 2 s flush: the time a request that must not come would take
    expect(requests).toEqual([]);
    expect(sent).toEqual([]);
    expect(await page.evaluate(() => "sokoTrack" in window)).toBe(false);
  });

  it("keeps events the server could not take (503) and sends them again, later and from the next page", async () => {
    let down = true;
    allowConsoleErrors(
      /status of 503 \(Service Unavailable\) \(from http:\/\/[^/]+\/api\/v1\/analytics\//,
      "the test's stand-in for the analytics service answers 503",
    );
    const { page, sent } = await visitor("granted", () => (down ? 503 : 202));
    await page.goto(appUrl("/help"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => sent.filter((s) => s.endpoint === "session").length).toBeGreaterThan(0);
    const sessionEventId = sent.find((s) => s.endpoint === "session")!.events[0]!.event_id;
    // Retried with backoff: the same event id arrives again.
    await eventually(() => sent.filter((s) => s.events.some((e) => e.event_id === sessionEventId)).length).toBeGreaterThanOrEqual(2);
    const outbox = await page.evaluate(() => localStorage.getItem("soko_outbox") ?? "");
    expect(outbox).toContain(sessionEventId);

    // The service is back, and the visitor has moved on to a new document: the kept events go first.
    down = false;
    await page.goto(appUrl("/terms"));
    await eventually(() => accepted(sent, "session").map((e) => e.event_id)).toContain(sessionEventId);
    await eventually(() => page.evaluate(() => localStorage.getItem("soko_outbox"))).toBeNull();
    expect(accepted(sent, "session")).toHaveLength(1);
  });

  it("drops a batch the server refuses with 400 instead of retrying it", async () => {
    allowConsoleErrors(
      /status of 400 \(Bad Request\) \(from http:\/\/[^/]+\/api\/v1\/analytics\/session\)$/,
      "the test's stand-in for the analytics service refuses the session",
    );
    const { page, sent } = await visitor("granted", (endpoint) => (endpoint === "session" ? 400 : 202));
    await page.goto(appUrl("/help"));
    await page.waitForSelector("html[data-hydrated=true]", { state: "attached" });
    await eventually(() => sent.filter((s) => s.endpoint === "session").length).toBe(1);
    await page.waitForTimeout(4000); // past the tracker's flush and its retry: a retry that must not come
    expect(sent.filter((s) => s.endpoint === "session")).toHaveLength(1);
    expect(await page.evaluate(() => localStorage.getItem("soko_outbox"))).toBeNull();
  });
});
