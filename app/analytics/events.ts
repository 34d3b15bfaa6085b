/**
 * The analytics events: what the browser tracker sends (docs/product.md, Analytics), checked by zod on
 * the server, enriched there (receive time, place, device, truncated IP) and queued for the worker, which
 * writes one ClickHouse table per kind. This module is the contract between the tracker, the endpoints,
 * the worker and the reports; it has no server-only imports so the tracker's types can come from it too.
 */
// The tracking events' validation messages stay in English on purpose: they answer the site's own tracker script
// and developers, never a person using Soko (app/analytics/ingest.server.ts says so too), so this file is exempt
// from the soko/no-literal-words rule (ADR 047).
import { z } from "zod";

export const EVENT_KINDS = ["session", "action", "pageview", "conversion", "user_action", "error"] as const;
export type EventKind = (typeof EVENT_KINDS)[number];

/** Element text in tracking is cut to 100 characters (cut, never refused). */
export const ELEMENT_TEXT_MAX = 100;
export const MAX_EVENTS_PER_REQUEST = 100;
export const MAX_BODY_BYTES = 64 * 1024;
/** Client clocks are trusted within this window around the receive time; outside it the event is refused. */
export const MAX_EVENT_AGE_MS = 24 * 60 * 60 * 1000;
export const MAX_EVENT_FUTURE_MS = 5 * 60 * 1000;

/**
 * What the tracker reports as `action_type` on /action. Two of them are not actions and go to other tables:
 * `error` (a JavaScript error) to the errors table, and `pageview` (an anonymous visitor's client-side route
 * change, which /pageview would refuse without a sign-in) to the pageviews table; see ADR 007.
 */
export const ACTION_TYPES = ["click", "form_submit", "input_focus", "page_focus", "page_blur", "scroll", "time_on_page", "error", "pageview"] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

const cut = (max: number) => z.string().transform((s) => s.slice(0, max));
const optionalCut = (max: number) => cut(max).optional().default("");

/** A tracking session id: time plus random, e.g. `1764000000000-k3j9x2` (docs/product.md). */
export const sessionId = z
  .string({ required_error: "session_id is required" })
  .regex(/^[0-9]{10,16}-[0-9a-z]{4,24}$/i, "session_id must be time plus random, such as 1764000000000-k3j9x2");

const common = {
  event_id: z.string({ required_error: "event_id is required" }).uuid("event_id must be a UUID"),
  session_id: sessionId,
  /** Milliseconds since 1970 or an ISO date, as the browser saw it. */
  timestamp: z.union([z.number().int().nonnegative(), z.string().datetime({ offset: true })], {
    errorMap: () => ({ message: "timestamp must be milliseconds since 1970 or an ISO 8601 date" }),
  }),
  platform: optionalCut(32),
};

const page = cut(500);

export const SessionEvent = z.object({
  ...common,
  user_agent: optionalCut(500),
  screen_resolution: z
    .string()
    .regex(/^(\d{2,5}x\d{2,5})?$/, "screen_resolution must look like 1280x720")
    .optional()
    .default(""),
  timezone: optionalCut(64),
});

export const ActionEvent = z.object({
  ...common,
  action_type: z.enum(ACTION_TYPES, { errorMap: () => ({ message: `action_type must be one of ${ACTION_TYPES.join(", ")}` }) }),
  page,
  element_id: optionalCut(200),
  element_class: optionalCut(200),
  element_tag: optionalCut(32),
  element_text: optionalCut(ELEMENT_TEXT_MAX),
  /** Position on the page in CSS pixels; never negative, at most 100,000. */
  x: z.number().int("x must be a whole number").min(0, "x cannot be negative").max(100_000, "x is outside the page").optional().default(0),
  y: z.number().int("y must be a whole number").min(0, "y cannot be negative").max(1_000_000, "y is outside the page").optional().default(0),
  /** Scroll depth in percent, time on page in milliseconds; 0 otherwise. */
  value: z.number().min(0).max(1e9).optional().default(0),
  /** For action_type "error": the message and stack of a JavaScript error. */
  error_message: optionalCut(1000),
  error_stack: optionalCut(4000),
});

export const PageviewEvent = z.object({
  ...common,
  page,
  title: optionalCut(300),
  url: optionalCut(2000),
  referrer: optionalCut(2000),
});

/**
 * An /action event with `action_type: "pageview"`: checked as a page view (page, title, url, referrer) and
 * queued as one, with the user of the request (0 for an anonymous visitor).
 */
export const ActionPageviewEvent = PageviewEvent.extend({ action_type: z.literal("pageview") });

/**
 * Conversions that are business facts: recorded by the server from the action that made them
 * (an effect of the operation that made them: conversions.server.ts), never taken from a browser, which could send any
 * value. The reports' signups, orders and revenue read only these, and only as the server recorded them.
 */
export const BUSINESS_CONVERSION_TYPES = ["signup", "gig_published", "order_placed", "order_paid", "order_completed"] as const;
export type BusinessConversionType = (typeof BUSINESS_CONVERSION_TYPES)[number];
/** Steps toward a sale that only the browser sees, and that carry no money the reports sum. */
export const BROWSER_CONVERSION_TYPES = ["search", "package_selected", "contact_seller"] as const;
export type BrowserConversionType = (typeof BROWSER_CONVERSION_TYPES)[number];
export type ConversionType = BusinessConversionType | BrowserConversionType;
/**
 * The `platform` of the conversions the server records. The reports count a business conversion only with
 * it, so the ones browsers could send before they were refused (platform "web") never count.
 */
export const SERVER_PLATFORM = "server";

const browserTypes = BROWSER_CONVERSION_TYPES.join(", ");

export const ConversionEvent = z.object({
  ...common,
  conversion_type: z.enum(BROWSER_CONVERSION_TYPES, {
    errorMap: (issue, _ctx) => {
      const business = issue.code === "invalid_enum_value" && (BUSINESS_CONVERSION_TYPES as readonly unknown[]).includes(issue.received);
      return {
        message: business
          ? `conversion_type ${String(issue.received)} is recorded by the server, not sent from a browser: send one of ${browserTypes}`
          : issue.code === "invalid_type" && issue.received === "undefined"
            ? `conversion_type is required: one of ${browserTypes}`
            : `conversion_type must be one of ${browserTypes}`,
      };
    },
  }),
  /** Whole UGX; kept as sent, never summed by a report. */
  value: z.number().int().min(0).max(1e12).optional().default(0),
  metadata: z
    .record(z.union([z.string().max(500), z.number(), z.boolean()]))
    .optional()
    .default({})
    .transform((m) => JSON.stringify(m).slice(0, 2000)),
});

export const UserActionEvent = z.object({
  ...common,
  action: cut(100),
  details: z
    .union([z.string(), z.record(z.union([z.string().max(500), z.number(), z.boolean()]))])
    .optional()
    .default("")
    .transform((d) => (typeof d === "string" ? d : JSON.stringify(d)).slice(0, 2000)),
  page: optionalCut(500),
});

// ---------------------------------------------------------------------------------------------------------
// The hot path's check (ADR 021). zod's safeParse was a tenth of a tracking request's own cost; the events a
// tracker sends most (actions and page views) are first checked by plain functions compiled from the same
// rules. They accept a subset of what the schema accepts and give the same output for it (a test compares
// them on thousands of events); anything they do not accept (a wrong field, an ISO timestamp, a value out of
// range) goes to the schema, which accepts it or says exactly what is wrong.

/** A field's check: its value as the schema would output it, or NOT_FAST when the schema must decide. */
type FastField = (value: unknown) => unknown;
const NOT_FAST = Symbol("not fast");

const UUID = /^[0-9a-fA-F]{8}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{4}\b-[0-9a-fA-F]{12}$/i; // zod 3's uuid()
const SESSION_ID = /^[0-9]{10,16}-[0-9a-z]{4,24}$/i; // sessionId above

const fast = {
  matches:
    (re: RegExp): FastField =>
    (v) =>
      typeof v === "string" && re.test(v) ? v : NOT_FAST,
  cut:
    (max: number): FastField =>
    (v) =>
      typeof v === "string" ? v.slice(0, max) : NOT_FAST,
  optionalCut:
    (max: number): FastField =>
    (v) =>
      v === undefined ? "" : typeof v === "string" ? v.slice(0, max) : NOT_FAST,
  oneOf: (values: readonly string[]): FastField => {
    const set = new Set<unknown>(values);
    return (v) => (set.has(v) ? v : NOT_FAST);
  },
  /** An optional number, 0 when absent (finite and within bounds, and whole with `int`). */
  number:
    (min: number, max: number, int: boolean): FastField =>
    (v) =>
      v === undefined ? 0 : typeof v === "number" && Number.isFinite(v) && v >= min && v <= max && (!int || Number.isInteger(v)) ? v : NOT_FAST,
  /** Only the number form: an ISO date string is left to the schema. */
  timestamp: ((v) => (typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : NOT_FAST)) as FastField,
};

const fastCommon = { event_id: fast.matches(UUID), session_id: fast.matches(SESSION_ID), timestamp: fast.timestamp, platform: fast.optionalCut(32) };
const fastPageview = { ...fastCommon, page: fast.cut(500), title: fast.optionalCut(300), url: fast.optionalCut(2000), referrer: fast.optionalCut(2000) };

const FAST_SHAPES = new Map<z.ZodTypeAny, Record<string, FastField>>([
  [
    ActionEvent,
    {
      ...fastCommon,
      action_type: fast.oneOf(ACTION_TYPES),
      page: fast.cut(500),
      element_id: fast.optionalCut(200),
      element_class: fast.optionalCut(200),
      element_tag: fast.optionalCut(32),
      element_text: fast.optionalCut(ELEMENT_TEXT_MAX),
      x: fast.number(0, 100_000, true),
      y: fast.number(0, 1_000_000, true),
      value: fast.number(0, 1e9, false),
      error_message: fast.optionalCut(1000),
      error_stack: fast.optionalCut(4000),
    },
  ],
  [PageviewEvent, fastPageview],
  [ActionPageviewEvent, { ...fastPageview, action_type: fast.oneOf(["pageview"]) }],
]);

/**
 * The fast check alone: the event as `schema` would output it, or null when the schema must decide (a field
 * the fast rules do not take, or a schema without fast rules).
 */
export function quickParse(schema: z.ZodTypeAny, raw: Record<string, unknown>): Record<string, unknown> | null {
  const shape = FAST_SHAPES.get(schema);
  if (!shape) return null;
  const out: Record<string, unknown> = {};
  for (const key in shape) {
    const value = shape[key]!(raw[key]);
    if (value === NOT_FAST) return null;
    out[key] = value;
  }
  return out;
}

/**
 * One event checked against `schema`: what `schema.safeParse(raw)` gives, but without zod for the common
 * events that are plainly right.
 */
export function parseEvent(schema: z.ZodTypeAny, raw: Record<string, unknown>): z.SafeParseReturnType<unknown, Record<string, unknown>> {
  const data = quickParse(schema, raw);
  if (data) return { success: true, data };
  return schema.safeParse(raw) as z.SafeParseReturnType<unknown, Record<string, unknown>>;
}

/** The schema each endpoint accepts, by its path segment. */
export const ENDPOINTS = {
  session: { kind: "session", schema: SessionEvent, auth: false },
  action: { kind: "action", schema: ActionEvent, auth: false },
  pageview: { kind: "pageview", schema: PageviewEvent, auth: true },
  conversion: { kind: "conversion", schema: ConversionEvent, auth: true },
  "user-action": { kind: "user_action", schema: UserActionEvent, auth: true },
} as const;
export type Endpoint = keyof typeof ENDPOINTS;

/** What the server adds to every event before queueing it. */
export type Enrichment = {
  /** ISO time the server received the event. */
  received_at: string;
  /** The event's own time (the browser's, once checked against the window above), ISO. */
  event_time: string;
  /** 0 for an anonymous visitor. */
  user_id: number;
  /** IPv4 /24 or IPv6 /48, e.g. "41.210.145.0". */
  ip: string;
  /**
   * Country (English name) and city, or "Unknown". Absent from what the web process queues: the worker looks
   * them up from `ip` as it writes the event (ADR 021, amended 2026-11-27). Events queued by an older web
   * process carry the place it found, and keep it.
   */
  country?: string;
  city?: string;
  device: "desktop" | "mobile" | "tablet" | "other";
  browser: string;
  os: string;
};

type Parsed = {
  session: z.output<typeof SessionEvent>;
  action: z.output<typeof ActionEvent>;
  pageview: z.output<typeof PageviewEvent>;
  // The server's own conversions are business facts, which the endpoint never takes from a browser.
  conversion: Omit<z.output<typeof ConversionEvent>, "conversion_type"> & { conversion_type: ConversionType };
  user_action: z.output<typeof UserActionEvent>;
  error: z.output<typeof ActionEvent>;
};

/** One event as queued: its kind, what the browser sent (checked), and what the server added. */
export type QueuedEvent = { [K in EventKind]: { kind: K } & Omit<Parsed[K], "timestamp"> & Enrichment }[EventKind];

/** The ClickHouse table of each kind. */
export const TABLES: Record<EventKind, string> = {
  session: "sessions",
  action: "actions",
  pageview: "pageviews",
  conversion: "conversions",
  user_action: "user_actions",
  error: "errors",
};

export { RANGES, type Range } from "~/analytics/ranges";
