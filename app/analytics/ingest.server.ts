/**
 * From a tracking request to the ingest stream (ADR 036): check the events against the endpoint's
 * schema and the clock window, add what the server knows (receive time, device, truncated IP, user), and
 * append them to the stream, one entry for the requests of the same moment. The HTTP side is
 * router.server.ts; the worker reads the stream on the other end, and adds the visitor's country and city
 * from the truncated IP (worker/geo.server.ts): the web process holds no GeoIP database.
 *
 * Queueing uses a Redis connection of its own that never holds commands back while Redis is away
 * (`enableOfflineQueue: false`), so when Redis is down `enqueue` fails within milliseconds and the endpoint
 * answers 503; it resolves only once Redis has the entry, which is when the endpoint may answer 202.
 */
import { parseKey } from "~/i18n/message-key";
import { createHash, randomUUID } from "node:crypto";
import type { Redis } from "ioredis";
import { defaultErrorMap, type ZodIssue } from "zod";
import {
  ActionPageviewEvent,
  ENDPOINTS,
  MAX_EVENT_AGE_MS,
  MAX_EVENT_FUTURE_MS,
  MAX_EVENTS_PER_REQUEST,
  type Endpoint,
  type Enrichment,
  type EventKind,
  type QueuedEvent,
  parseEvent,
} from "~/analytics/events";
import { describeAgent } from "~/analytics/ingest-agent.server";
import { appendEntry } from "~/analytics/ingest-stream.server";
import { rateLimitKey, truncateIp } from "~/analytics/ip.server";
import { countMinute } from "~/analytics/pipeline-stats.server";
import { cleanPath, cleanUrl } from "~/analytics/urls";
import { getEnv } from "~/server/env.server";
import { analyticsLimiter, type Limited } from "~/server/rate-limit.server";
import { createRedis } from "~/server/redis.server";
import { log } from "~/server/log.server";
import { ingestEvents } from "~/server/metrics.server";

// ---------------------------------------------------------------------------------------------------------
// Checking a request body: JSON, one event or an array, each against the endpoint's schema and the clock.

export type EventIssue = { index: number; path: string; message: string };
export type Refusal = { status: 400; error: string; issues?: EventIssue[]; events: number };
type Checked = { kind: EventKind; event: Record<string, unknown>; timeMs: number };

/** At most this many issues are listed in a 400 (the first ones, by event). */
const MAX_ISSUES = 20;

/**
 * The tracking endpoints' refusals (here and in app/analytics/events.ts) stay in English on purpose: they answer
 * the site's own tracker script and developers reading its network traffic, never a person using Soko (the
 * tracker shows nothing). So these files are exempt from the soko/no-literal-words rule (ADR 047).
 */
const TIMESTAMP_MESSAGE = "timestamp must be milliseconds since 1970 or an ISO 8601 date";

function issue(index: number, z: ZodIssue): EventIssue {
  const path = z.path.join(".");
  // zod reports a string timestamp that is not a date as "Invalid datetime"; say what would do.
  if (path === "timestamp") return { index, path, message: TIMESTAMP_MESSAGE };
  // A check the schema gave no words of its own carries a form key (app/schemas/zod.ts sets zod's map for the
  // whole process); this answer keeps zod's own English, which says what was expected ("Expected number, received
  // string"), as it always did. The schema's own messages (app/analytics/events.ts) pass as written.
  const message = parseKey(z.message) ? defaultErrorMap(z, { data: undefined, defaultError: "Invalid input" }).message : z.message;
  return { index, path, message };
}

/** Milliseconds of an ISO date or a number of milliseconds; NaN when neither. */
function timestampMs(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "string") return Date.parse(value);
  return Number.NaN;
}

function windowMessage(timeMs: number, receivedAtMs: number): string | null {
  if (!Number.isFinite(timeMs)) return "timestamp is not a valid time";
  if (timeMs < receivedAtMs - MAX_EVENT_AGE_MS) {
    return `timestamp is more than ${MAX_EVENT_AGE_MS / 3_600_000} hours before the server's time; events that old are not accepted`;
  }
  if (timeMs > receivedAtMs + MAX_EVENT_FUTURE_MS) {
    return `timestamp is more than ${MAX_EVENT_FUTURE_MS / 60_000} minutes after the server's time; check the device's clock`;
  }
  return null;
}

/**
 * The events of a request body, checked: parsed by the endpoint's zod schema (so long texts are already
 * cut), each with its kind and its time in milliseconds once inside the window around `receivedAtMs`.
 * Anything wrong refuses the whole request, saying what and where.
 */
export function checkEvents(endpoint: Endpoint, text: string, receivedAtMs: number): { ok: true; events: Checked[] } | ({ ok: false } & Refusal) {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return { ok: false, status: 400, error: `Malformed JSON: ${(error as Error).message}`, events: 1 };
  }
  const list = Array.isArray(body) ? body : [body];
  if (list.length === 0) {
    return { ok: false, status: 400, error: `No events: send one event or an array of 1 to ${MAX_EVENTS_PER_REQUEST}`, events: 0 };
  }
  if (list.length > MAX_EVENTS_PER_REQUEST) {
    return {
      ok: false,
      status: 400,
      error: `Too many events: at most ${MAX_EVENTS_PER_REQUEST} per request, this one has ${list.length}`,
      events: list.length,
    };
  }
  const { kind, schema } = ENDPOINTS[endpoint];
  const issues: EventIssue[] = [];
  const events: Checked[] = [];
  list.forEach((raw, index) => {
    if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
      issues.push({ index, path: "", message: "An event must be a JSON object" });
      return;
    }
    // An anonymous visitor's route change comes to /action as a page view (ADR 036): checked as one.
    const pageview = kind === "action" && (raw as { action_type?: unknown }).action_type === "pageview";
    const parsed = parseEvent(pageview ? ActionPageviewEvent : schema, raw as Record<string, unknown>);
    if (!parsed.success) {
      for (const z of parsed.error.issues) issues.push(issue(index, z));
      return;
    }
    const { timestamp, ...event } = parsed.data as { timestamp: number | string } & Record<string, unknown>;
    const timeMs = timestampMs(timestamp);
    const outside = windowMessage(timeMs, receivedAtMs);
    if (outside) {
      issues.push({ index, path: "timestamp", message: outside });
      return;
    }
    let eventKind: EventKind = kind;
    if (pageview) {
      delete event.action_type;
      eventKind = "pageview";
    } else if (kind === "action" && event.action_type === "error") eventKind = "error";
    events.push({ kind: eventKind, event, timeMs });
  });
  if (issues.length > 0) {
    return { ok: false, status: 400, error: "Invalid events", issues: issues.slice(0, MAX_ISSUES), events: list.length };
  }
  return { ok: true, events };
}

// ---------------------------------------------------------------------------------------------------------
// Enrichment.

export type Visitor = { ip: string; userAgent: string; userId: number };

/**
 * What the web process adds to each event of one request (the same for all of them, but the event time). No
 * place: the worker looks up country and city from the truncated `ip` as it writes the event.
 */
export function visitorEnrichment(visitor: Visitor, receivedAtMs: number): Omit<Enrichment, "event_time" | "country" | "city"> {
  const agent = describeAgent(visitor.userAgent);
  return {
    received_at: new Date(receivedAtMs).toISOString(),
    user_id: visitor.userId,
    ip: truncateIp(visitor.ip),
    device: agent.device,
    browser: agent.browser,
    os: agent.os,
  };
}

/**
 * An event's addresses as analytics may keep them (urls.ts): its url and referrer cleaned for the host the
 * request was sent to, its page a bare path. The tracker cleans them too, but a hostile or out-of-date
 * one must not be able to store a reset token either.
 */
function cleanAddresses(event: Record<string, unknown>, host: string) {
  for (const field of ["url", "referrer"]) {
    const value = event[field];
    if (typeof value === "string") event[field] = cleanUrl(value, host).slice(0, 2000);
  }
  if (typeof event.page === "string") event.page = cleanPath(event.page);
}

/**
 * The checked events of a request as queued: event, kind and enrichment together, addresses cleaned.
 * `host` is the request's Host header: addresses on it are this site's.
 */
export function enrichEvents(events: Checked[], visitor: Visitor, receivedAtMs: number, host: string): QueuedEvent[] {
  const common = visitorEnrichment(visitor, receivedAtMs);
  return events.map(({ kind, event, timeMs }) => {
    const queued: Record<string, unknown> = { kind, ...event, ...common, event_time: new Date(timeMs).toISOString() };
    // A session's own user_agent field is what the browser said; when it said nothing, what it sent.
    if (kind === "session" && !queued.user_agent) queued.user_agent = visitor.userAgent.slice(0, 500);
    cleanAddresses(queued, host);
    return queued as QueuedEvent;
  });
}

/** Page views the server records itself (no JavaScript needed) carry this platform. */
export const SERVER_PAGEVIEW_PLATFORM = "web-nojs";

/** Midnight UTC of the day of `timeMs`, in milliseconds. */
function utcDayStart(timeMs: number) {
  return timeMs - (timeMs % 86_400_000);
}

/**
 * The anonymous session a server page view belongs to: one per truncated address, browser and UTC day,
 * `<day start ms>-<12 hex of sha256>`, which the session_id schema accepts. Nothing in it identifies more
 * than the row already holds (truncated IP, user agent's browser and OS).
 */
export function serverSessionId(ip: string, userAgent: string, timeMs: number): string {
  const dayStart = utcDayStart(timeMs);
  const day = new Date(dayStart).toISOString().slice(0, 10);
  const hash = createHash("sha256")
    .update(`${truncateIp(ip)}\n${userAgent}\n${day}`)
    .digest("hex");
  return `${dayStart}-${hash.slice(0, 12)}`;
}

export type ServerPageview = {
  eventId: string;
  timeMs: number;
  ip: string;
  userAgent: string;
  /** The path of the page, e.g. "/gig/12". */
  path: string;
  /** Path and query string. */
  url: string;
  referrer: string;
  /** The request's Host header. */
  host: string;
};

/**
 * The page view the server records for an HTML page it served: anonymous, user 0, no title; its address
 * and referrer cleaned as every recorded address is (urls.ts).
 */
export function serverPageviewEvent(view: ServerPageview): QueuedEvent {
  const common = visitorEnrichment({ ip: view.ip, userAgent: view.userAgent, userId: 0 }, Date.now());
  const event = {
    kind: "pageview",
    event_id: view.eventId,
    session_id: serverSessionId(view.ip, view.userAgent, view.timeMs),
    platform: SERVER_PAGEVIEW_PLATFORM,
    page: view.path.slice(0, 500),
    title: "",
    url: view.url,
    referrer: view.referrer,
    ...common,
    event_time: new Date(view.timeMs).toISOString(),
  } satisfies QueuedEvent;
  cleanAddresses(event, view.host);
  return event;
}

/** A new page view's id and time, for the load context (the root renders them for the tracker). */
export function newPageview() {
  return { eventId: randomUUID(), time: Date.now() };
}

// ---------------------------------------------------------------------------------------------------------
// The stream.

/** Why a request's events were dropped: `dropped:<reason>` in the counters. */
export type DropReason = "bot" | "cross_origin" | "invalid" | "rate_limited" | "too_large" | "unauthorized" | "unsupported_type" | "unknown_endpoint";
export type CounterField = "accepted" | "inserted" | "failed" | `dropped:${DropReason}`;

/**
 * The Redis hash of the pipeline's lifetime counters (common brief: accepted, inserted, failed, dropped:<reason>).
 * The same counts also go to a hash per minute, which the worker moves to ClickHouse (pipeline-stats.server.ts).
 */
export function countersKey(prefix = getEnv().QUEUE_PREFIX) {
  return `${prefix}:analytics:counters`;
}

/** Redis is not there (down, restarting, or too slow): the endpoint answers 503 and the client retries. */
export class IngestUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`analytics queue unavailable: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = "IngestUnavailableError";
  }
}

/** How long an enqueue may take before we give up and answer 503 (Redis is local; normal is < 5 ms). */
const ENQUEUE_TIMEOUT_MS = 3_000;
/** Requests queued together share an entry of at most as many events as one request may carry: an entry
 * ClickHouse refuses (it goes to the dead letters whole) holds no more than before. A request's own events stay
 * together. */
const MAX_EVENTS_PER_ENTRY = MAX_EVENTS_PER_REQUEST;
/** How often the counters summed in memory are written to Redis. */
const COUNTS_EVERY_MS = 250;

const lastLogged = new Map<string, number>();
/** Logs a problem at most once every 10 s per kind, so a Redis outage does not flood the log. */
export function logThrottled(kind: string, message: string) {
  const now = Date.now();
  if ((lastLogged.get(kind) ?? 0) > now - 10_000) return;
  lastLogged.set(kind, now);
  log.error(`[analytics] ${message}`);
}

export type Ingest = {
  /** Counts one request against the address's limit; null when allowed. Rejects when Redis is down. */
  limit: (ip: string) => Promise<Limited | null>;
  /** Resolves once Redis holds the stream entry with these events; rejects with IngestUnavailableError otherwise. */
  enqueue: (events: QueuedEvent[]) => Promise<void>;
  /** Adds to a counter; never fails (a counter is not worth refusing an event for). */
  count: (field: CounterField, n: number) => void;
  close: () => Promise<void>;
};

/** The ingest side of one process: its Redis connection (the stream's appends, the limiter, the counters). */
export function createIngest({ redisUrl, prefix }: { redisUrl: string; prefix: string }): Ingest {
  const redis: Redis = createRedis(redisUrl, {
    enableOfflineQueue: false,
    connectTimeout: 2_000,
    commandTimeout: 2_000,
    maxRetriesPerRequest: 1,
    // Reconnect quickly once Redis is back: 50 ms, 100 ms, ... at most 1 s apart.
    retryStrategy: (times) => Math.min(times * 50, 1_000),
  });
  redis.on("error", (error: Error) => logThrottled("redis", `Redis: ${error.message}`));

  const limit = analyticsLimiter(redis);
  const counters = countersKey(prefix);
  const inFlight = new Set<Promise<unknown>>();

  // Group commit (ADR 036): requests waiting for the stream share one entry, and
  // each is answered once that entry is in Redis (or all of them get 503 if it is not). One write is in Redis's
  // hands at a time: the requests that reach `enqueue` while it is form the next group, written as soon as it
  // is answered. Under load that is one entry for many requests; a lone request waits for nothing more than
  // before (setImmediate runs before any timer).
  type Waiting = { events: QueuedEvent[]; resolve: () => void; reject: (error: IngestUnavailableError) => void };
  let waiting: Waiting[] = [];
  let writing = false;
  let flushScheduled = false;

  const addJobs = async (group: Waiting[]) => {
    const entries: QueuedEvent[][] = [];
    for (const { events } of group) {
      const last = entries.at(-1);
      if (last && last.length + events.length <= MAX_EVENTS_PER_ENTRY) last.push(...events);
      else entries.push([...events]);
    }
    let timer: NodeJS.Timeout | undefined;
    // Several entries are sent together (one write); should only some be stored, their requests get 503 and
    // are sent again, and the worker's tables drop the duplicates (ReplacingMergeTree on event_id).
    const added = Promise.all(entries.map((events) => appendEntry(redis, prefix, events)));
    inFlight.add(added);
    try {
      await Promise.race([
        added,
        new Promise((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no answer within ${ENQUEUE_TIMEOUT_MS} ms`)), ENQUEUE_TIMEOUT_MS);
        }),
      ]);
    } catch (error) {
      const unavailable = new IngestUnavailableError(error);
      for (const w of group) w.reject(unavailable);
      return;
    } finally {
      clearTimeout(timer);
      inFlight.delete(added);
    }
    count(
      "accepted",
      group.reduce((n, w) => n + w.events.length, 0),
    );
    for (const w of group) w.resolve();
  };

  const flush = () => {
    flushScheduled = false;
    if (writing || waiting.length === 0) return;
    const group = waiting;
    waiting = [];
    writing = true;
    void addJobs(group).finally(() => {
      writing = false;
      scheduleFlush();
    });
  };
  const scheduleFlush = () => {
    if (flushScheduled || waiting.length === 0) return;
    flushScheduled = true;
    setImmediate(flush);
  };

  const enqueue = (events: QueuedEvent[]) =>
    new Promise<void>((resolve, reject) => {
      if (redis.status !== "ready") return reject(new IngestUnavailableError(`Redis connection is ${redis.status}`));
      waiting.push({ events, resolve, reject });
      scheduleFlush();
    });

  // Counts are summed in memory and written every COUNTS_EVERY_MS as one HINCRBY per field (and the minute's
  // hash): a handful of commands a second however many requests there are. At shutdown they are written
  // at once (close); a crash loses at most the last interval's counts, which were never a promise to anyone.
  const counts = new Map<CounterField, number>();
  let countsTimer: NodeJS.Timeout | undefined;
  const writeCounts = async () => {
    countsTimer = undefined;
    if (counts.size === 0) return;
    const entries = [...counts];
    counts.clear();
    if (redis.status !== "ready") return;
    const writes: Promise<unknown>[] = entries.map(([field, n]) =>
      redis.hincrby(counters, field, n).catch((error: Error) => logThrottled("counters", `counters: ${error.message}`)),
    );
    // And into this minute's hash, which the worker moves to ClickHouse for the pipeline health screen.
    writes.push(countMinute(redis, prefix, entries).catch((error: Error) => logThrottled("counters", `counters per minute: ${error.message}`)));
    await Promise.all(writes);
  };
  const count = (field: CounterField, n: number) => {
    if (n <= 0) return;
    ingestEvents.inc({ stage: field }, n);
    counts.set(field, (counts.get(field) ?? 0) + n);
    if (!countsTimer) {
      countsTimer = setTimeout(() => void writeCounts(), COUNTS_EVERY_MS);
      countsTimer.unref();
    }
  };

  return {
    limit: (ip) => limit(rateLimitKey(ip)),
    enqueue,
    count,
    close: async () => {
      // Every request that reached `enqueue` is written (or refused) before the connections close.
      while (writing || waiting.length > 0) {
        await Promise.allSettled([...inFlight]);
        await new Promise((r) => setImmediate(r));
      }
      clearTimeout(countsTimer);
      await writeCounts(); // before the connection closes
      await endConnection(redis);
    },
  };
}

/** Quits a connection (or drops it, when Redis is away) and waits, at most 200 ms, for it to say it has ended. */
async function endConnection(connection: Redis): Promise<void> {
  if (connection.status === "end") return;
  const ended = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 200);
    connection.once("end", () => {
      clearTimeout(timer);
      resolve();
    });
  });
  await connection.quit().catch(() => connection.disconnect());
  await ended;
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoIngest: Ingest | undefined;
}

let closed = false;

/** The ingest of this process (created on first use, on REDIS_URL and QUEUE_PREFIX). */
export function getIngest(): Ingest {
  if (closed) throw new IngestUnavailableError("the server is shutting down");
  if (!globalThis.__sokoIngest) {
    const env = getEnv();
    globalThis.__sokoIngest = createIngest({ redisUrl: env.REDIS_URL, prefix: env.QUEUE_PREFIX });
  }
  return globalThis.__sokoIngest;
}

/** Connects to Redis ahead of the first request. (The GeoIP files are the worker's: it reads them at its start.) */
export function prepareIngest() {
  getIngest();
}

/** Waits for the entries being added, writes the counters, and closes the connections (at shutdown). */
export async function closeIngest() {
  closed = true;
  const ingest = globalThis.__sokoIngest;
  globalThis.__sokoIngest = undefined;
  await ingest?.close();
}
