/**
 * The framework patches for speed (app/server/speed/, ADR 033) change how fast a page is made, never what is
 * sent: two built servers on one database, one with SPEED_PATCHES=off (Remix, Express, compression() and
 * helmet as they come), must answer every route of the build alike, byte for byte. Every route id of the build
 * is requested (a test fails when a route is added here without a sample), on each host that serves it, as a
 * visitor, a client, a freelancer and an admin of the demo data; as a document and, on the main host, as single
 * fetch's data request. Compared: the status, the headers and the body once its Content-Encoding is taken off.
 *
 * What legitimately differs per response, and only that, is masked before comparing:
 * - the CSP nonce (16 random bytes each response, in the CSP header and the page's script tags);
 * - each server's own port, which pages name in their links to either host;
 * - the page view's id and time, should the server record one (it does not: these requests are a crawler's);
 * - the one-use keys a loader draws for a form (checkoutKey, requestKey, a message's clientId);
 * - the time a page says it was made ("As of ..."): ISO instants after the file started;
 * - Date, and the framing headers Content-Length, Transfer-Encoding, Connection and Keep-Alive, and the headers'
 *   order: with the patches on entry.server compresses a rendered document whole and sets its Content-Encoding
 *   and length, with them off compression() streams it and sets the encoding later.
 * Pages change with time and with what was viewed (a conversation opened is read), so each request goes to the
 * patched server, then the stock one, then the patched one again, and the last two are compared; a pair that
 * differs is asked once more (a clock shown to the minute may turn between two requests; a patch's difference
 * does not go away).
 */
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import zlib from "node:zlib";

// This file's own uploads (the demo's covers) and Redis namespace, before anything reads the environment.
const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-speed-"));
process.env.UPLOAD_DIR = uploadDir;

import type { ServerBuild } from "@remix-run/node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostsOfRoute, type SiteHost } from "~/utils/site-routes";
import { DEMO_ACCOUNTS, seedDemoData } from "../../scripts/lib/seed";
import { createTestClickHouseDatabase, createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, type TestUser } from "../support/factories";
import { ownQueuePrefix, placeTestOrder, testProviders } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const prefix = ownQueuePrefix("speed");
type Persona = "visitor" | "client" | "freelancer" | "admin";
const PERSONAS: Persona[] = ["visitor", "client", "freelancer", "admin"];

let t: TestDatabase;
let patched: TestServer;
let stock: TestServer;
let build: ServerBuild;
const cookies: Record<Persona, string | undefined> = { visitor: undefined, client: undefined, freelancer: undefined, admin: undefined };
/** The demo data's ids the samples below fill in. */
const ids = { gig: 0, seller: "", order: 0, pendingOrder: 0, reference: "", conversation: "", image: "", member: 0, resetToken: "" };

beforeAll(async () => {
  t = await createTestDatabase();
  await seedDemoData(t.db);
  const account = async (email: string) => {
    const row = await t.db("users").where({ email }).first("id", "name", "username", "email", "role");
    return { ...row, id: Number(row.id), password: null } as TestUser;
  };
  const [client, freelancer, admin] = await Promise.all([
    account(DEMO_ACCOUNTS.client.email),
    account(DEMO_ACCOUNTS.freelancer.email),
    account(DEMO_ACCOUNTS.admin.email),
  ]);
  for (const [persona, user] of [
    ["client", client],
    ["freelancer", freelancer],
    ["admin", admin],
  ] as const) {
    cookies[persona] = `soko_session=${await createSession(t.db, user.id)}`;
  }
  const gig = await t.db("gigs").where({ seller_id: freelancer.id, status: "published" }).orderBy("id").first("id");
  ids.gig = Number(gig.id);
  ids.seller = freelancer.username;
  ids.member = client.id;
  ids.order = Number((await t.db("orders").where({ buyer_id: client.id }).orderBy("id").first("id")).id);
  ids.conversation = (await t.db("conversations").orderBy("id").first("id")).id;
  ids.image = (await t.db("uploads").where({ owner_id: freelancer.id }).orderBy("storage_key").first("storage_key")).storage_key;
  // A payment waiting on the sandbox's phone prompt (/dev/pay), in the servers' namespace.
  const sandboxed = testProviders(prefix);
  try {
    const placed = await placeTestOrder({ db: t.db, providers: sandboxed.providers, sandbox: sandboxed.sandbox }, client, ids.gig);
    ids.pendingOrder = placed.orderId;
    ids.reference = placed.reference;
  } finally {
    await sandboxed.close();
  }
  const clickhouse = await createTestClickHouseDatabase();
  build = (await import(path.resolve(import.meta.dirname, "../../build/server/index.js"))) as ServerBuild;
  const env = { DATABASE_URL: t.url, CLICKHOUSE_DATABASE: clickhouse, QUEUE_PREFIX: prefix, UPLOAD_DIR: uploadDir, DEV_OUTBOX: "1", PAYMENTS_SANDBOX: "1" };
  [patched, stock] = await Promise.all([startTestServer(env), startTestServer({ ...env, SPEED_PATCHES: "off" })]);
}, 240_000);

afterAll(async () => {
  await Promise.all([patched?.stop(), stock?.stop()]);
  await t?.drop();
  fs.rmSync(uploadDir, { recursive: true, force: true });
});

/** The paths each route of the build is asked at (on each host that serves it), from the demo data. */
function samplesOf(routeId: string): string[] {
  const admin = (screen: string) => (routeId.startsWith("admin-host/") ? screen || "/" : `/admin${screen}`);
  const samples: Record<string, string[]> = {
    "routes/_index": ["/"],
    "routes/$": ["/no/such/page"],
    "routes/browse": ["/browse", "/browse?sort=rating&page=2"],
    "routes/search": ["/search?q=logo", "/search?q=logo%20design"],
    "routes/gig.$id": [`/gig/${ids.gig}`, "/gig/999999"],
    "routes/gig.$id_.edit": [`/gig/${ids.gig}/edit`],
    "routes/gig.$id_.order": [`/gig/${ids.gig}/order?tier=basic`],
    "routes/gig.create": ["/gig/create"],
    "routes/user.$username": [`/user/${ids.seller}`, `/user/${ids.seller}?reviews=2`],
    "routes/dashboard": ["/dashboard"],
    "routes/orders": ["/orders"],
    "routes/orders_.$id": [`/orders/${ids.order}`, `/orders/${ids.pendingOrder}`],
    "routes/orders_.$id_.pay": [`/orders/${ids.pendingOrder}/pay`],
    "routes/orders_.$id_.files.$fileId": [`/orders/${ids.order}/files/1`],
    "routes/dev.pay.$reference": [`/dev/pay/${ids.reference}`],
    "routes/dev.outbox": ["/dev/outbox"],
    "routes/messages": ["/messages"],
    "routes/messages._index": ["/messages"],
    "routes/messages.$id": [`/messages/${ids.conversation}`],
    "routes/messages.$id.files.$fileId": [`/messages/${ids.conversation}/files/1`],
    "routes/notifications": ["/notifications"],
    "routes/notifications_.counts": ["/notifications/counts"],
    "routes/settings": ["/settings"],
    "routes/login": ["/login", "/login?redirectTo=%2Forders"],
    "routes/logout": ["/logout"],
    "routes/register": ["/register"],
    "routes/freelancer.register": ["/freelancer/register"],
    "routes/forgot-password": ["/forgot-password"],
    "routes/reset-password": ["/reset-password?token=not-a-token"],
    "routes/consent": ["/consent?redirectTo=%2Fbrowse"],
    "routes/currency": ["/currency"],
    "routes/language": ["/language"],
    "routes/media.$name": [`/media/${ids.image}-thumb.webp`, "/media/nothing.webp"],
    "routes/payments.callback.$provider": ["/payments/callback/mtn"],
    "routes/terms": ["/terms"],
    "routes/privacy": ["/privacy"],
    "routes/help": ["/help"],
    "routes/api.docs": ["/api/docs"],
    "routes/auth.verify-email": ["/auth/verify-email?token=not-a-token", "/auth/verify-email"],
    "routes/data-saver": ["/data-saver"],
    "routes/freelancers": ["/freelancers", "/freelancers?vetted=1&sort=level"],
    "routes/reviews.$id": ["/reviews/1"],
    "routes/saved": ["/saved", "/saved?tab=sellers"],
    "routes/settings_.phone": ["/settings/phone"],
    "routes/sms.delivery": ["/sms/delivery"],
  };
  const screen = /^admin(?:-host)?\/(.+)$/.exec(routeId)?.[1];
  if (screen) {
    const paths: Record<string, string> = {
      dashboard: "",
      users: "/users?q=a",
      messages: "/messages",
      analytics: "/analytics",
      "analytics-export": "/analytics/export",
      disputes: "/disputes",
      audit: "/audit",
      pipeline: "/pipeline",
      rates: "/rates",
      categories: "/categories",
      reviews: "/reviews",
      heatmap: "/heatmap",
      funnel: "/analytics/conversion-funnel",
      journey: `/analytics/user-journey/${ids.member}`,
      "member-analytics": `/users/${ids.member}/analytics`,
    };
    if (paths[screen] === undefined) throw new Error(`no sample for the admin screen ${routeId}: add one to speed-patches.test.ts`);
    return [admin(paths[screen])];
  }
  const own = samples[routeId];
  if (!own) throw new Error(`no sample for the route ${routeId}: add one to speed-patches.test.ts`);
  return own;
}

/**
 * A crawler's user agent: the server records no page view for a bot, so the tracking pipeline's counts (which
 * the admin's pipeline screen shows) do not move with every request of this file.
 */
const BOT = "Mozilla/5.0 (compatible; SokoSpeedPatchesCheck/1.0; +https://soko.test/bot)";

type Answer = { status: number; headers: [string, string][]; body: Buffer };

/** One GET as a browser asks (any encoding it takes), the body decoded; raw, since fetch cannot set Host. */
function get(server: TestServer, host: SiteHost, target: string, cookie: string | undefined, data: boolean): Promise<Answer> {
  const origin = new URL(host === "admin" ? server.adminUrl : server.baseUrl);
  // One request id for every request (ADR 057: the server sends it back), so the answers' X-Request-Id agree.
  const headers: Record<string, string> = {
    Host: origin.host,
    Accept: data ? "*/*" : "text/html",
    "Accept-Encoding": "gzip, deflate, br",
    "User-Agent": BOT,
    "X-Request-Id": "speed-patches",
  };
  if (cookie) headers.Cookie = cookie;
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path: target, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers["content-encoding"];
        const body =
          encoding === "gzip"
            ? zlib.gunzipSync(raw)
            : encoding === "br"
              ? zlib.brotliDecompressSync(raw)
              : encoding === "deflate"
                ? zlib.inflateSync(raw)
                : raw;
        const pairs: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) pairs.push([res.rawHeaders[i]!.toLowerCase(), res.rawHeaders[i + 1]!]);
        resolve({ status: res.statusCode ?? 0, headers: pairs, body });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/** Headers that describe the connection and the framing, not the document (see the file's comment). */
const FRAMING = new Set(["date", "content-length", "transfer-encoding", "connection", "keep-alive"]);
const startedAt = Date.now();

/** The answer as text with what differs per response masked: the nonce and the page view. */
function masked(answer: Answer): string {
  const csp = answer.headers.find(([name]) => name === "content-security-policy")?.[1] ?? "";
  const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
  const headers = answer.headers.filter(([name]) => !FRAMING.has(name)).map(([name, value]) => `${name}: ${value}`);
  let text = [`${answer.status}`, ...headers.sort(), "", answer.body.toString("latin1")].join("\n");
  if (nonce) text = text.split(nonce).join("<nonce>");
  // Each server's own address (its free port), which pages name in links to either host.
  text = text.replace(/(localhost|127\.0\.0\.1):\d+/g, "$1:<port>");
  // The one-use keys loaders draw for a form (an order's checkout and a withdrawal: 16 random bytes in base64url;
  // a message's client id: 12 in hex), found by their shape as strings of the loader data (single fetch names a
  // repeated key by an index, not its name) and replaced wherever the page writes them.
  const keys = [...text.matchAll(/\\?"([A-Za-z0-9_-]{22}|[0-9a-f]{24})\\?"/g)].map((m) => m[1]!);
  for (const key of new Set(keys)) text = text.split(key).join("<form-key>");
  // The time a page says it was made ("As of ..."): any instant after this file started.
  text = text.replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{3})?Z/g, (iso) => (Date.parse(iso) >= startedAt ? "<now>" : iso));
  const pageview = /<meta name="soko-pageview" content="([^ "]+) (\d+)"/.exec(text);
  if (pageview) text = text.split(pageview[1]!).join("<pageview-id>").split(pageview[2]!).join("<pageview-time>");
  return text;
}

/** Where two texts first differ, with a little of each around it. */
function difference(a: string, b: string): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const around = (s: string) => JSON.stringify(s.slice(Math.max(0, i - 80), i + 80));
  return `at ${i} of ${a.length}/${b.length}:\n  patched ${around(a)}\n  stock   ${around(b)}`;
}

/** Every sample of every route, on each host that serves it: [host, path, route id]. */
function everyRequest(): [SiteHost, string, string][] {
  const all: [SiteHost, string, string][] = [];
  for (const id of Object.keys(build.routes)) {
    if (id === "root") continue;
    for (const host of hostsOfRoute(id)) for (const sample of samplesOf(id)) all.push([host, sample, id]);
  }
  return all;
}

/** The data request of a document's path, as Remix's client makes it (`/` is `/_root.data`). */
const dataPath = (target: string) => {
  const [pathname, query] = target.split("?");
  return `${pathname === "/" ? "/_root" : pathname!.replace(/\/$/, "")}.data${query ? `?${query}` : ""}`;
};

async function compareAll(persona: Persona, data: boolean) {
  const mismatches: string[] = [];
  const statuses = new Map<number, number>();
  for (const [host, sample, id] of everyRequest()) {
    if (data && host === "admin") continue;
    const target = data ? dataPath(sample) : sample;
    await get(patched, host, target, cookies[persona], data);
    const pair = async () => {
      const off = await get(stock, host, target, cookies[persona], data);
      const on = await get(patched, host, target, cookies[persona], data);
      return { on, a: masked(on), b: masked(off) };
    };
    let { on, a, b } = await pair();
    // Once more only for a page whose clock text turned (a minute's end) between the two: a patch's
    // difference is there every time.
    if (a !== b) ({ on, a, b } = await pair());
    statuses.set(on.status, (statuses.get(on.status) ?? 0) + 1);
    if (a !== b) mismatches.push(`${persona} ${host} ${target} (${id}) ${difference(a, b)}`);
  }
  expect(mismatches, mismatches.join("\n\n")).toEqual([]);
  return statuses;
}

describe("SPEED_PATCHES on and off answer alike", () => {
  it("the servers do run with the patches on and off", async () => {
    expect(stock.output()).toContain("SPEED_PATCHES=off");
    expect(patched.output()).not.toContain("SPEED_PATCHES=off");
    // A rendered document: compressed whole with its length (patched), or streamed through compression() (stock).
    const header = (answer: Answer, name: string) => answer.headers.find(([n]) => n === name)?.[1];
    const [on, off] = [await get(patched, "main", "/terms", undefined, false), await get(stock, "main", "/terms", undefined, false)];
    expect([header(on, "content-encoding"), header(on, "transfer-encoding"), header(on, "content-length") !== undefined]).toEqual(["br", undefined, true]);
    expect([header(off, "content-encoding"), header(off, "transfer-encoding")]).toEqual(["br", "chunked"]);
    // Every route has a sample (samplesOf throws otherwise).
    expect(everyRequest().length).toBeGreaterThan(Object.keys(build.routes).length);
  });

  for (const persona of PERSONAS) {
    it(`every route's document, as ${persona === "visitor" ? "a visitor" : `the demo ${persona}`}`, async () => {
      const statuses = await compareAll(persona, false);
      // Real pages were compared, not only redirects and 404s.
      expect(statuses.get(200) ?? 0, JSON.stringify([...statuses])).toBeGreaterThan(10);
    }, 300_000);
  }

  for (const persona of ["visitor", "client"] as const) {
    it(`every main-host route's data request, as ${persona === "visitor" ? "a visitor" : "the demo client"}`, async () => {
      await compareAll(persona, true);
    }, 300_000);
  }
});
