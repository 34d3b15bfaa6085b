/**
 * The micro-cache for anonymous pages (ADR 019). A GET document or `.data` request for
 * a catalog or static page (`CACHEABLE`) on the marketplace host from a visitor without a session is answered
 * from this process's memory for a few seconds: fresh for FRESH_MS, then served stale for up to STALE_MS more while one rebuild per key runs.
 *
 * - The key is everything a page may depend on for such a visitor: the origin (scheme and host), the path,
 *   the query with its parameters in name order, the display currency, analytics-consent and data-saver cookies, the
 *   visitor's language (the switcher's cookie, else Accept-Language: app/i18n/negotiate.server.ts) and whether the server records a page view for it. The page is built from a
 *   request made of that key alone (`keyRequest`), never from the visitor's own headers, so nothing outside
 *   the key can leak into a stored page.
 * - A stored page holds placeholders for what differs per response: the CSP nonce and the page view's
 *   id and time (root.tsx renders them as `"<eventId> <time>"`). Every response, hit or miss, gets its own.
 * - Stored only: status 200, HTML, single fetch's `text/x-script` or the JSON API's answers, no Set-Cookie, no `Cache-Control:
 *   private`/`no-store`, no `Vary`, at most MAX_ENTRY_BYTES. A response that sets a cookie is not even shared
 *   with the requests that waited for it: each of them is rendered on its own.
 * - Invalidation: operations that change what such pages show call `tx.pagesChanged()`; after the commit
 *   `dropCachedPages()` empties this process's cache at once and publishes on Redis, and every web process
 *   (listening on its own connection) empties its own. A rebuild that began before a drop is not stored.
 *   While a process cannot hear the channel (its subscriber connection is down) it serves nothing from the
 *   cache, and it starts empty when the connection is back.
 * - The JSON API's shared reads (the catalog, a published gig: ADR 042) are stored here too, under keys of their
 *   own, built as a visitor's answer and dropped with the pages.
 */
import { randomBytes } from "node:crypto";
import zlib from "node:zlib";
import type { Redis } from "ioredis";
import { getEnv } from "~/server/env.server";
import { SESSION_COOKIE } from "~/models/session.server";
import { CONSENT_COOKIE, readCookie } from "~/server/cookies.server";
import { DATA_REQUEST_HEADER } from "~/i18n/messages.server";
import { CURRENCY_COOKIE } from "~/server/currency.server";
import { DATA_SAVER_COOKIE, dataSaverCookieValue } from "~/server/data-saver.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { visitorLocale } from "~/i18n/negotiate.server";
import { createRedis, getRedis } from "~/server/redis.server";
import { log } from "~/server/log.server";

/** A stored page is fresh this long after it was built… */
export const FRESH_MS = 5_000;
/** …and then served for this much longer while one request rebuilds it. */
export const STALE_MS = 25_000;
/**
 * All pages of one process together (insertion order: the oldest go first, and every page past its stale
 * time goes as soon as another is stored). 16 MB holds the hot pages (a gig page is 10-30 KB); 48 MB held
 * mostly pages rendered once and never asked for again, and kept the web process over 300 MB (ADR 019).
 */
const MAX_BYTES = 16 * 1024 * 1024;
const MAX_ENTRY_BYTES = 1024 * 1024;

/** The cache is on unless `PAGE_CACHE=off` (env.server.ts; a value other than on/off stops the server). */
export function pageCacheEnabled(): boolean {
  return getEnv().PAGE_CACHE === "on";
}

/** The Redis channel every web process listens on; each QUEUE_PREFIX (a test run's server) has its own. */
export const dropChannel = (prefix = getEnv().QUEUE_PREFIX) => `${prefix}:page-cache:drop`;

/**
 * A cacheable request's key (`id`, with the query in name order) and the request a page is built from: its
 * URL, and the only headers a page may read, made from the key.
 */
export type PageKey = { id: string; url: string; headers: Record<string, string>; pageview: boolean };

/** The parts of an Express request the key is made from. */
export type KeySource = {
  method: string;
  path: string;
  originalUrl: string;
  protocol: string;
  hostname: string;
  headers: { host?: string; cookie?: string; authorization?: string; "accept-language"?: string };
};

/**
 * The pages that may be cached: the catalog (home, browse, search, a gig, a seller's profile) and the static
 * pages, as documents or `.data` (`/_root.data` is the home page's). Only pages whose content comes from the
 * URL, the key's cookies and data whose writes drop the cache (gigs, prices, reviews, rates, profiles): a page
 * that shows any other state (a reset link's, a payment's) would be served after that state changed.
 */
const CACHEABLE = /^\/(?:|_root|browse|search|terms|privacy|help|gig\/[^/.]+|user\/[^/.]+)$/;
/** Any session cookie, valid or not, under either name (`soko_session`, `__Host-soko_session` over https). */
const hasSessionCookie = (cookie: string) => readCookie(cookie, SESSION_COOKIE) !== null || readCookie(cookie, `__Host-${SESSION_COOKIE}`) !== null;

/**
 * The key of a GET document or `.data` request from a visitor without a session, or null when the request
 * must not meet the cache. `pageview`: the server records a page view for this request (a browser's HTML
 * page, not a bot's, not a prefetch), so its page carries one.
 */
export function pageKeyOf(req: KeySource, pageview: boolean): PageKey | null {
  if (req.method !== "GET") return null;
  const { cookie = "", authorization } = req.headers;
  if (authorization || hasSessionCookie(cookie)) return null;
  const path = req.path;
  const data = path.endsWith(".data");
  if (!CACHEABLE.test(data ? path.slice(0, -5) : path)) return null;
  const q = req.originalUrl.indexOf("?");
  let query = "";
  if (q !== -1) {
    // Parameters in name order (a name's own values keep theirs), spelt one way.
    const params = [...new URLSearchParams(req.originalUrl.slice(q + 1))].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    query = new URLSearchParams(params).toString();
  }
  const port = /:(\d+)$/.exec(req.headers.host ?? "")?.[1];
  if (!req.hostname) return null;
  const origin = `${req.protocol}://${req.hostname.toLowerCase()}${port ? `:${port}` : ""}`;
  const consent = readCookie(cookie, CONSENT_COOKIE);
  const currency = readCookie(cookie, CURRENCY_COOKIE);
  const kept = [
    consent === "granted" || consent === "denied" ? `${CONSENT_COOKIE}=${consent}` : "",
    currency === "UGX" || currency === "USD" ? `${CURRENCY_COOKIE}=${currency}` : "",
    // Data-saver pages (no images, no scripts: ADR 054) are other pages; "off" draws the same page as no cookie.
    dataSaverCookieValue(cookie) === "on" ? `${DATA_SAVER_COOKIE}=on` : "",
  ].filter(Boolean);
  // The page is built asking for the language the visitor's own headers resolve to, whichever way they did.
  const language = visitorLocale(cookie, req.headers["accept-language"]);
  const id = `${origin}${path}${query ? `?${query}` : ""} ${kept.join(";")} ${language} ${pageview ? "pv" : "-"}`;
  // Built from the address as asked (a redirect's redirectTo keeps its order); pages whose parameters only
  // come in another order share it.
  const url = `${origin}${req.originalUrl}`;
  const headers: Record<string, string> = { Accept: data ? "*/*" : "text/html", "Accept-Language": language };
  if (kept.length) headers.Cookie = kept.join("; ");
  // As server.ts marks a navigation's data request: its loaders send their words inline (ADR 048).
  if (data) headers[DATA_REQUEST_HEADER] = "1";
  return { id, url, headers, pageview };
}

type Slot = "nonce" | "pageview";

/** A stored answer: its body cut at the placeholders, so a response is the parts with each slot filled in. */
export type CachedPage = {
  status: number;
  headers: [string, string][];
  parts: Buffer[];
  slots: Slot[];
  /**
   * Each part gzipped (`gzipParts`), so a hit is gzipped without compressing anything. Made at the first hit,
   * not at the build: it costs about 2.5× gzipping the page once, which a page asked for only once (a
   * miss) should not pay. Not counted in `bytes` (it is about a quarter of the parts).
   */
  gzipped: Buffer[] | null;
  bytes: number;
  builtAt: number;
};

/** What a request needs filled into a page: its own nonce, and its page view (null when none is recorded). */
export type PageFill = { nonce: string; pageview: { eventId: string; time: number } | null };

/** The built answer to a key's request, and whether others may share it. */
export type Built = { page: CachedPage; storable: boolean; setsCookie: boolean };

export type Lookup = { state: "fresh" | "stale"; page: CachedPage } | { state: "miss" };

class PageCache {
  private entries = new Map<string, CachedPage>();
  private building = new Map<string, Promise<Built>>();
  private bytes = 0;
  /** Bumped by every drop: a rebuild stores its page only if no drop happened while it ran. */
  private generation = 0;
  /** Whether drops can reach this process (its subscriber is connected); nothing is served otherwise. */
  listening = false;
  /**
   * Placeholders the build renders instead of the nonce and the page view: random per process, so no text
   * a seller writes can contain them. The page view's is what root.tsx renders for `{ eventId, time: 0 }`.
   */
  readonly placeholder = { nonce: `pcn${randomBytes(12).toString("hex")}`, eventId: `pcv${randomBytes(12).toString("hex")}` };
  private readonly pageviewText = `${this.placeholder.eventId} 0`;

  lookup(key: string, now = Date.now()): Lookup {
    if (!this.listening) return { state: "miss" };
    const page = this.entries.get(key);
    if (!page) return { state: "miss" };
    const age = now - page.builtAt;
    if (age < FRESH_MS) return { state: "fresh", page };
    if (age < FRESH_MS + STALE_MS) return { state: "stale", page };
    this.remove(key);
    return { state: "miss" };
  }

  /**
   * Builds the page of `key` unless a build of it is already running, in which case its result is shared:
   * one rebuild at a time per key. The page is stored when it may be and no drop happened meanwhile.
   */
  build(key: string, render: () => Promise<Response>): Promise<Built> {
    const running = this.building.get(key);
    if (running) return running;
    const generation = this.generation;
    const promise = (async () => {
      try {
        const built = await this.capture(await render());
        if (built.storable && this.listening && generation === this.generation) this.store(key, built.page);
        return built;
      } finally {
        this.building.delete(key);
      }
    })();
    this.building.set(key, promise);
    return promise;
  }

  /** Every stored page goes, and rebuilds under way will not store theirs. */
  dropAll() {
    this.generation++;
    this.entries.clear();
    this.bytes = 0;
  }

  isBuilding(key: string) {
    return this.building.has(key);
  }

  get size() {
    return this.entries.size;
  }

  private async capture(response: Response): Promise<Built> {
    const body = Buffer.from(await response.arrayBuffer());
    const headers: [string, string][] = [];
    let setsCookie = false;
    let shareable = response.status === 200;
    for (const [name, value] of response.headers) {
      if (name === "set-cookie") setsCookie = true;
      else if (name === "vary") shareable = false;
      else if (name === "cache-control" && /private|no-store/i.test(value)) shareable = false;
      if (name !== "content-length" && name !== "set-cookie") headers.push([name, value]);
    }
    const type = response.headers.get("content-type") ?? "";
    if (!/^text\/html|^text\/x-script|^application\/json/.test(type)) shareable = false;
    if (body.length > MAX_ENTRY_BYTES) shareable = false;
    const { parts, slots } = this.cut(body);
    return {
      page: { status: response.status, headers, parts, slots, gzipped: null, bytes: body.length, builtAt: Date.now() },
      storable: shareable && !setsCookie,
      setsCookie,
    };
  }

  /** The body cut at each placeholder. */
  private cut(body: Buffer): { parts: Buffer[]; slots: Slot[] } {
    const parts: Buffer[] = [];
    const slots: Slot[] = [];
    const marks: [string, Slot][] = [
      [this.placeholder.nonce, "nonce"],
      [this.pageviewText, "pageview"],
    ];
    let from = 0;
    for (;;) {
      let at = -1;
      let found: [string, Slot] | undefined;
      for (const mark of marks) {
        const i = body.indexOf(mark[0], from, "latin1");
        if (i !== -1 && (at === -1 || i < at)) [at, found] = [i, mark];
      }
      if (!found) break;
      parts.push(body.subarray(from, at));
      slots.push(found[1]);
      from = at + found[0].length;
    }
    parts.push(body.subarray(from));
    return { parts, slots };
  }

  private store(key: string, page: CachedPage) {
    this.remove(key);
    this.entries.set(key, page);
    this.bytes += page.bytes;
    const expired = page.builtAt - FRESH_MS - STALE_MS;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= MAX_BYTES && old.builtAt > expired) break;
      this.entries.delete(oldest);
      this.bytes -= old.bytes;
    }
  }

  private remove(key: string) {
    const page = this.entries.get(key);
    if (!page) return;
    this.entries.delete(key);
    this.bytes -= page.bytes;
  }
}

/** What fills each slot for one response. */
function slotValues(fill: PageFill): Record<Slot, Buffer> {
  return {
    nonce: Buffer.from(fill.nonce, "latin1"),
    // A page built for a request with a page view is keyed so (`pv`): one without never meets its slot.
    pageview: Buffer.from(fill.pageview ? `${fill.pageview.eventId} ${fill.pageview.time}` : "", "latin1"),
  };
}

/** A page's body for one response: the placeholders replaced by this request's nonce and page view. */
export function fillPage(page: CachedPage, fill: PageFill): Buffer {
  if (page.slots.length === 0) return page.parts[0]!;
  const values = slotValues(fill);
  const chunks: Buffer[] = [];
  page.slots.forEach((slot, i) => {
    chunks.push(page.parts[i]!, values[slot]);
  });
  chunks.push(page.parts[page.slots.length]!);
  return Buffer.concat(chunks);
}

// Gzip without compressing per response. Each part of a page is deflated once, as a continuation
// of the stream: its compressor is primed with the 32 KB before it (the dictionary), ends on a sync flush
// (byte-aligned) and the last one with the final block. A response is the gzip header, the parts with each
// slot's value between them as a stored (uncompressed) deflate block, and the trailer: the CRC-32 and length
// of the whole filled page. Any gzip reader reads it as one stream (RFC 1951 section 3.2.4, RFC 1952).
//
// Back-references may reach into earlier parts, so each slot must have the same length in every response
// (a 16-byte nonce in base64; "<uuid> <13-digit ms>") and is primed as zero bytes, which no HTML or script
// text contains: no reference can cover a slot, whose bytes differ per response. A value of another length
// (never, unless those formats change) is sent uncompressed for compression() to gzip.
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
/** Compressed once per stored page, so the level that makes it smallest. */
const GZIP_LEVEL = 9;
const WINDOW = 32 * 1024;
const SLOT_LENGTH: Record<Slot, number> = { nonce: 24, pageview: 36 + 1 + 13 };

function gzipParts(parts: Buffer[], slots: Slot[]): Buffer[] {
  const stream: Buffer[] = [];
  return parts.map((part, i) => {
    const before = Buffer.concat(stream);
    const dictionary = before.subarray(Math.max(0, before.length - WINDOW));
    const last = i === parts.length - 1;
    const out = zlib.deflateRawSync(part, {
      level: GZIP_LEVEL,
      finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
      ...(dictionary.length ? { dictionary } : {}),
    });
    stream.push(part);
    if (!last) stream.push(Buffer.alloc(SLOT_LENGTH[slots[i]!]));
    // A copy of its own: deflateRawSync's result is a view into zlib's 16 KB output buffer, which a stored
    // part would otherwise keep alive whole, so the cache held several times its byte budget (bench:memory).
    return Buffer.from(out);
  });
}

/** A non-final stored block holding `data` (under 64 KB), for a stream that is byte-aligned. */
function storedBlock(data: Buffer): Buffer[] {
  const len = data.length;
  const header = Buffer.from([0, len & 0xff, len >>> 8, ~len & 0xff, (~len >>> 8) & 0xff]);
  return [header, data];
}

/** The page gzipped for one response, from its parts compressed once; null if a value does not fit its slot. */
export function gzipPage(page: CachedPage, fill: PageFill): Buffer | null {
  const values = slotValues(fill);
  if (page.slots.some((slot) => values[slot].length !== SLOT_LENGTH[slot])) return null;
  const gzipped = (page.gzipped ??= gzipParts(page.parts, page.slots));
  const chunks: Buffer[] = [GZIP_HEADER];
  let crc = 0;
  let size = 0;
  page.slots.forEach((slot, i) => {
    const value = values[slot];
    chunks.push(gzipped[i]!, ...storedBlock(value));
    crc = zlib.crc32(value, zlib.crc32(page.parts[i]!, crc));
    size += page.parts[i]!.length + value.length;
  });
  const last = page.slots.length;
  chunks.push(gzipped[last]!);
  crc = zlib.crc32(page.parts[last]!, crc);
  size += page.parts[last]!.length;
  const trailer = Buffer.alloc(8);
  trailer.writeUInt32LE(crc >>> 0, 0);
  trailer.writeUInt32LE(size >>> 0, 4);
  chunks.push(trailer);
  return Buffer.concat(chunks);
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoPageCache: PageCache | undefined;
}

/**
 * This process's cache. One per process even though server.ts and the Remix build each bundle this module
 * (the operations that drop it run inside the build).
 */
export function getPageCache(): PageCache {
  globalThis.__sokoPageCache ??= new PageCache();
  return globalThis.__sokoPageCache;
}

let subscriber: Redis | undefined;

/**
 * Listens for drops from every process (server.ts calls this once the cache is on). Pages are served from
 * the cache only while the subscription is up; the cache starts empty each time it comes (back) up.
 */
export async function listenForPageDrops(): Promise<void> {
  const cache = getPageCache();
  const channel = dropChannel();
  subscriber = createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
  subscriber.on("message", (from: string) => {
    if (from === channel) cache.dropAll();
  });
  const deaf = () => {
    cache.listening = false;
    cache.dropAll();
  };
  subscriber.on("close", deaf);
  subscriber.on("reconnecting", deaf);
  subscriber.on("error", (error: Error) => log.error(maskUrlCredentials(`[page-cache] subscriber: ${error.message}`)));
  subscriber.on("ready", () => {
    // ioredis subscribes again on reconnect before it says ready; whatever changed meanwhile is gone with the drop.
    cache.dropAll();
    cache.listening = true;
  });
  await subscriber.subscribe(channel);
  cache.dropAll();
  cache.listening = true;
}

export async function closePageDrops() {
  const s = subscriber;
  subscriber = undefined;
  if (!s) return;
  getPageCache().listening = false;
  await s.quit().catch(() => s.disconnect());
}

/**
 * After a commit that changed what anonymous pages show: this process's cache empties at once, and every
 * other web process's once Redis has passed the word on (the publish is awaited, so the operation's answer
 * goes out after Redis has handed the drop to every listener). A failed publish is logged, never thrown at
 * the committed operation; other processes then keep their pages for at most FRESH_MS + STALE_MS.
 */
export async function dropCachedPages(): Promise<void> {
  globalThis.__sokoPageCache?.dropAll();
  let timer: NodeJS.Timeout | undefined;
  try {
    // The shared connection queues commands while Redis is away (BullMQ needs it so): the operation waits
    // for Redis at most this long.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer from Redis in ${PUBLISH_TIMEOUT_MS} ms`)), PUBLISH_TIMEOUT_MS);
    });
    await Promise.race([getRedis().publish(dropChannel(), "drop"), late]);
  } catch (error) {
    log.error(maskUrlCredentials(`[page-cache] could not publish a drop: ${(error as Error).message}`));
  } finally {
    clearTimeout(timer);
  }
}

const PUBLISH_TIMEOUT_MS = 1_000;
