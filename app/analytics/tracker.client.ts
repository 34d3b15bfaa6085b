/**
 * The browser tracker (docs/architecture.md, "A tracking event"). It is a separate chunk that the root imports only once the
 * visitor has chosen "Allow analytics" (`soko_consent=granted`): a visitor who has not consented never
 * downloads it, and it checks the cookie again before every event and every send, so withdrawing consent
 * stops it at once. tests/unit/tracker-size.test.ts keeps it at or under 3 KB gzipped.
 *
 * What it records: the session (once per browser tab session), page views (the root calls `pageview` on
 * every route change; see there for anonymous visitors), clicks, form submits, input focus (never the
 * value), page focus and blur, scroll (debounced 1 s, with depth in percent), time on page (at route
 * change and at pagehide, by sendBeacon) and JavaScript errors. Every event gets a UUID and the browser's
 * time, so a re-sent event is the same row. Page addresses and referrers are cleaned (urls.ts) before
 * an event is queued: no query key a page does not need (a reset link's token), no fragment, and of
 * another site only its origin.
 *
 * Delivery: events are batched (every 2 s or 20 events) and written to an outbox in localStorage before
 * they are sent, and removed only when the server has answered: 2xx, or a 4xx other than 408/413/429 (an
 * event the server refuses will never be accepted, so it is dropped). Network errors, 408, 429 and 5xx keep
 * them, and they are retried with jittered exponential backoff, also by the next page this browser opens.
 * A send holds at most 100 events and 64 KB (the server's caps); a 413 all the same splits the send in
 * two and tries again, so only an event too large on its own is ever refused for its size.
 */
import { backoffDelay } from "../utils/backoff";
import type { ActionType, Endpoint } from "./events";
import { cleanUrl } from "./urls";

type Fields = Record<string, unknown>;
type Queued = [Endpoint, Fields];
type DocumentPageview = { eventId: string; time: number };

const API = "/api/v1/analytics/";
const OUTBOX = "soko_outbox";
const SESSION = "soko_sid";
/** At most this many events wait in localStorage; the oldest go first. */
const KEEP = 500;
/** The server's caps per request (MAX_EVENTS_PER_REQUEST, MAX_BODY_BYTES in events.ts, not imported: zod). */
const MAX_EVENTS = 100;
const MAX_BYTES = 64 * 1024;

let buffer: Queued[] = [];
let flushTimer: ReturnType<typeof setTimeout> | 0 = 0;
let retryTimer: ReturnType<typeof setTimeout> | 0 = 0;
let attempt = 0;
let sending = false;
let started = false;
let page = "";
let pageUrl = "";
let pageStart = 0;
let errors = 0;
let sessionId = "";

const granted = () => /(^|;\s*)soko_consent=granted(;|$)/.test(document.cookie);

/** crypto.randomUUID exists only in secure contexts (https, localhost): otherwise a v4 UUID by hand. */
function uuid(): string {
  const c = window.crypto;
  if (c && c.randomUUID) return c.randomUUID();
  const b = new Uint8Array(16);
  if (c && c.getRandomValues) c.getRandomValues(b);
  else for (let i = 0; i < 16; i++) b[i] = (Math.random() * 256) | 0;
  b[6] = (b[6]! & 15) | 64;
  b[8] = (b[8]! & 63) | 128;
  const h = Array.from(b, (x) => (x + 256).toString(16).slice(1)).join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/** Storage can be missing or full (private modes, quotas): the tracker then keeps going without it. */
function load(): Queued[] {
  try {
    return JSON.parse(localStorage.getItem(OUTBOX) || "[]") as Queued[];
  } catch {
    return [];
  }
}
function save(items: Queued[]) {
  try {
    if (items.length) localStorage.setItem(OUTBOX, JSON.stringify(items.slice(-KEEP)));
    else localStorage.removeItem(OUTBOX);
  } catch {
    /* storage unavailable */
  }
}

/** The tab's session id (time plus random); a new one sends the `session` event first. */
function session(): string {
  if (!sessionId) {
    try {
      sessionId = sessionStorage.getItem(SESSION) || "";
    } catch {
      /* storage unavailable */
    }
  }
  if (!sessionId) {
    // The first 12 hex digits of a UUID are random (and valid base 36).
    sessionId = `${Date.now()}-${uuid().slice(0, 8)}${uuid().slice(9, 13)}`;
    try {
      sessionStorage.setItem(SESSION, sessionId);
    } catch {
      /* storage unavailable */
    }
    track("session", {
      user_agent: navigator.userAgent,
      screen_resolution: `${screen.width}x${screen.height}`,
      timezone: Intl.DateTimeFormat().resolvedOptions().timeZone || "",
    });
  }
  return sessionId;
}

function track(endpoint: Endpoint, fields: Fields) {
  if (!granted()) return;
  buffer.push([endpoint, { event_id: uuid(), session_id: session(), timestamp: Date.now(), platform: "web", page: location.pathname, ...fields }]);
  if (buffer.length >= 20) flush();
  else if (!flushTimer) flushTimer = setTimeout(flush, 2000);
}

/** The items as sends: by endpoint, each a JSON array of at most MAX_EVENTS events and MAX_BYTES of UTF-8. */
function groups(items: Queued[]) {
  // [endpoint, events, bytes of the array so far]
  const out: [Endpoint, Fields[], number][] = [];
  for (const [endpoint, event] of items) {
    // The event's bytes in the array, with its comma.
    const size = new Blob([JSON.stringify(event)]).size + 1;
    const g = out.find((g) => g[0] === endpoint && g[1].length < MAX_EVENTS && g[2] + size <= MAX_BYTES);
    if (g) {
      g[1].push(event);
      g[2] += size;
    } else out.push([endpoint, [event], size + 1]);
  }
  return out;
}

/** Moves the buffer into the outbox and sends it; at pagehide by sendBeacon, which outlives the page. */
function flush(beacon?: unknown) {
  clearTimeout(flushTimer);
  flushTimer = 0;
  const items = buffer;
  buffer = [];
  if (!granted()) return save([]);
  if (beacon === true) {
    // A beacon's answer cannot be read: events the browser accepted to send are trusted to it, the
    // others wait in the outbox for the next page.
    const kept: Queued[] = [];
    for (const [endpoint, events] of groups(items)) {
      if (!navigator.sendBeacon || !navigator.sendBeacon(API + endpoint, JSON.stringify(events))) {
        for (const e of events) kept.push([endpoint, e]);
      }
    }
    return save(load().concat(kept));
  }
  save(load().concat(items));
  void send();
}

async function send(): Promise<void> {
  if (sending || retryTimer) return;
  if (!granted()) return save([]);
  const items = load();
  if (!items.length) return;
  sending = true;
  let failed = false;
  const work = groups(items);
  for (let group = work.shift(); group; group = work.shift()) {
    const [endpoint, events] = group;
    let status = 0;
    try {
      // A string body goes as text/plain: no CORS preflight, and the same format as a beacon.
      status = (await fetch(API + endpoint, { method: "POST", body: JSON.stringify(events), credentials: "same-origin" })).status;
    } catch {
      /* network error: keep */
    }
    if (status === 413 && events.length > 1) {
      // Larger than this server takes after all: the same events in two halves, now. (One event alone
      // that is too large can never be taken, and is dropped below like any refused event.)
      const half = events.length >> 1;
      work.unshift([endpoint, events.slice(0, half), 0], [endpoint, events.slice(half), 0]);
    } else if (status && status < 500 && status !== 408 && status !== 429) {
      const sent = new Set(events.map((e) => e.event_id));
      save(load().filter((q) => !sent.has(q[1].event_id)));
    } else failed = true;
  }
  sending = false;
  if (failed) {
    // 1 s, 2 s, 4 s ... at most a minute, each between half and one and a half times that.
    const delay = backoffDelay(attempt++, { initialMs: 1000, maxMs: 60_000, jitter: 0.5 });
    retryTimer = setTimeout(() => {
      retryTimer = 0;
      void send();
    }, delay);
  } else {
    attempt = 0;
    // Events that arrived while this round was sending.
    if (load().some((q) => !items.some((i) => i[1].event_id === q[1].event_id))) void send();
  }
}

function act(action_type: ActionType, el?: Element | null, fields?: Fields) {
  const field = el && /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName);
  track("action", {
    action_type,
    element_id: (el && el.id) || "",
    element_class: ((el && el.getAttribute("class")) || "").slice(0, 200),
    element_tag: el ? el.tagName.toLowerCase() : "",
    // A form field is named, never read: its value is the visitor's own.
    element_text: ((field ? el.getAttribute("name") : el && el.textContent) || "").replace(/\s+/g, " ").trim().slice(0, 100),
    ...fields,
  });
}

function timeOnPage() {
  if (page) act("time_on_page", null, { page, value: Date.now() - pageStart });
}

function error(message: unknown, stack: unknown) {
  if (errors++ < 20) act("error", null, { error_message: String(message).slice(0, 1000), error_stack: String(stack || "").slice(0, 4000) });
}

function start() {
  if (started) return;
  started = true;
  const on = (target: EventTarget, type: string, listener: (e: never) => void, capture = true) =>
    target.addEventListener(type, listener as EventListener, { capture, passive: true });
  on(document, "click", (e: MouseEvent) => {
    const target = e.target as Element;
    const el = (target.closest && target.closest("a,button,input,select,textarea,label,summary,[role=button]")) || target;
    act("click", el, { x: Math.max(0, Math.round(e.pageX)), y: Math.max(0, Math.round(e.pageY)) });
  });
  on(document, "submit", (e: Event) => act("form_submit", e.target as Element));
  on(document, "focusin", (e: FocusEvent) => {
    const el = e.target as Element;
    if (/^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName)) act("input_focus", el);
  });
  // Not captured: only the window's own focus and blur, not every element's.
  on(window, "focus", (e: Event) => e.target === window && act("page_focus"), false);
  on(window, "blur", (e: Event) => e.target === window && act("page_blur"), false);
  let scrollTimer: ReturnType<typeof setTimeout>;
  on(window, "scroll", () => {
    clearTimeout(scrollTimer);
    scrollTimer = setTimeout(() => {
      const height = document.documentElement.scrollHeight;
      act("scroll", null, {
        y: Math.round(scrollY),
        value: Math.min(100, Math.round(((scrollY + innerHeight) / height) * 100)),
      });
    }, 1000);
  });
  on(window, "error", (e: ErrorEvent) => error(e.message, e.error && e.error.stack), false);
  on(window, "unhandledrejection", (e: PromiseRejectionEvent) => {
    const r = e.reason;
    error((r && r.message) || r, r && r.stack);
  });
  on(window, "pagehide", () => {
    timeOnPage();
    flush(true);
  });
  // Back from the back/forward cache: the page is shown again, so its time starts again.
  on(window, "pageshow", (e: PageTransitionEvent) => {
    if (e.persisted) pageStart = Date.now();
  });
  // Phones often drop a page without pagehide once it is hidden: send what is buffered now.
  on(document, "visibilitychange", () => document.visibilityState === "hidden" && flush(true));
  (window as unknown as { sokoTrack: unknown }).sokoTrack = { conversion, userAction };
  session();
  // What earlier pages could not send.
  void send();
}

/**
 * A route change (the root calls this from a `useLocation` effect). `doc` is the server's page view for
 * this HTML document (the `soko-pageview` meta), given on the document's first page only.
 *
 * A signed-in visitor's page views go to /pageview (which answers 401 without a sign-in); the document's
 * first one is the server's, re-sent with the same event_id and time, so the anonymous row the server
 * wrote is replaced by this one, under the visitor's user and session.
 *
 * An anonymous visitor's go to /action as `action_type: "pageview"`, which the server stores as a page
 * view of user 0 (ADR 007). The document's first one is re-sent the same way, with the server's event_id
 * and time: still one row (the tables keep the last one received per event id), now in this tab's
 * session, where the server could only file it under a session of its own, which then looked like a
 * one-page visit (a bounce) beside the tab's real one.
 */
export function pageview(signedIn: boolean, doc?: DocumentPageview | null) {
  if (!granted()) return;
  start();
  timeOnPage();
  // Cleaned by the rule the server applies too (urls.ts: no reset token, no other site's path), before
  // anything is queued or kept in the outbox; cut as the server cuts them, so no page view is too large.
  const url = cleanUrl(location.href, location.host).slice(0, 2000);
  const fields = {
    title: document.title.slice(0, 300),
    url,
    referrer: (pageUrl || cleanUrl(document.referrer, location.host)).slice(0, 2000),
  };
  page = location.pathname;
  pageUrl = url;
  pageStart = Date.now();
  // The server records signups and other business facts itself, from the action; this cookie (for the
  // browser session, read by the server only while consent is given) files them in the session of the tab
  // the visitor last moved in, with its page views.
  document.cookie = `${SESSION}=${session()}; path=/; samesite=lax`;
  const same = doc ? { event_id: doc.eventId, timestamp: doc.time } : null;
  if (signedIn) track("pageview", { ...fields, ...same });
  else track("action", { action_type: "pageview", ...fields, ...same });
}

/**
 * A step toward a sale the browser sees (needs a signed-in visitor): one of BROWSER_CONVERSION_TYPES in
 * events.ts, e.g. `package_selected`. Signups, gigs published and orders are recorded by the server from
 * the action itself (the endpoint refuses them from a browser).
 */
export function conversion(conversion_type: string, value = 0, metadata: Fields = {}) {
  track("conversion", { conversion_type, value, metadata });
}

/** A user action (needs a signed-in visitor), e.g. `signed_in`. */
export function userAction(action: string, details: string | Fields = "") {
  track("user-action", { action, details });
}
