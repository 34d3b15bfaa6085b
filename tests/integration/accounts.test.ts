/**
 * Accounts and access, through the real server: what each form refuses and stores, sessions, rate limits,
 * password resets, and the access matrix of every route on both hosts for every kind of visitor.
 */
import http from "node:http";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSession } from "~/models/session.server";
import { setUserStatus } from "~/models/user.server";
import { getEnv } from "~/server/env.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { DEFAULT_PASSWORD, createCategory, createGig, createUser } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";

let t: TestDatabase;
let server: TestServer;
let redis: Redis;
const PASSWORD = DEFAULT_PASSWORD;
/** This server's namespace in Redis: its rate-limit keys are `${QUEUE_PREFIX}:rl:<limit>:<key>`. */
const QUEUE_PREFIX = `acct_${process.pid}_${Date.now()}`;
const tokens: Record<string, string> = {};
const ids: Record<string, number> = {};
/** A published gig of test_freelancer's, for the rows of the matrix that need a real one. */
let gigId: number;

beforeAll(async () => {
  t = await createTestDatabase();
  for (const role of ["client", "freelancer", "admin"] as const) {
    const { id } = await createUser(t.db, { role, name: `Test ${role}`, username: `test_${role}`, email: `${role}@example.ug` });
    ids[role] = id;
    tokens[role] = (await createSession(t.db, { userId: id, persistent: false })).token;
  }
  await createCategory(t.db, { slug: "graphic-design", name: "Graphic Design" });
  ({ id: gigId } = await createGig(t.db, {
    sellerId: ids.freelancer!,
    category: "graphic-design",
    title: "Logo design for your shop",
    description: "A logo in three days.",
    packages: { basic: { name: "Starter", description: "One concept", priceUgx: 75_000, deliveryDays: 3, revisions: 1 } },
  }));
  redis = new Redis(getEnv().REDIS_URL, { maxRetriesPerRequest: 1 });
  // TRUST_PROXY lets a test speak from its own address (X-Forwarded-For), so rate limits of one test never
  // spill into another.
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX, DEV_OUTBOX: "1", TRUST_PROXY: "loopback" });
});
afterAll(async () => {
  await server?.stop();
  await redis?.quit();
  await t?.drop();
});

type Who = "anonymous" | "client" | "freelancer" | "admin";
type Host = "main" | "admin";
type RequestOptions = {
  host?: Host;
  who?: Who;
  /** A session token to send instead of `who`'s. */
  session?: string;
  method?: string;
  /** A form, sent URL-encoded. */
  body?: Record<string, string>;
  /** Any other body, with its Content-Type (none when `type` is omitted). */
  raw?: { type?: string; body: string };
  /** The visitor's address, as a proxy in front of us would pass it on. */
  ip?: string;
  headers?: Record<string, string>;
};

/**
 * One request to the test server, as a visitor of either host. The admin host is reached with a Host header
 * (Node's resolver does not know *.localhost names, browsers do).
 */
function request(
  path: string,
  { host = "main", who = "anonymous", session, method = "GET", body, raw, ip, headers: extra }: RequestOptions = {},
): Promise<Response> {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const headers: Record<string, string> = { Host: new URL(origin).host };
  const token = session ?? (who === "anonymous" ? undefined : tokens[who]);
  if (token) headers.Cookie = `soko_session=${token}`;
  if (method !== "GET") headers.Origin = origin;
  if (ip) headers["X-Forwarded-For"] = ip;
  let payload: string | undefined;
  if (body) {
    payload = new URLSearchParams(body).toString();
    headers["Content-Type"] = "application/x-www-form-urlencoded";
  } else if (raw) {
    payload = raw.body;
    if (raw.type) headers["Content-Type"] = raw.type;
  }
  Object.assign(headers, extra);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(", ") : v);
        resolve(new Response(res.statusCode === 204 || res.statusCode === 304 ? null : Buffer.concat(chunks), { status: res.statusCode, headers: h }));
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

/** A response's outcome in the matrix's words: a status, or "→ /path" for a redirect. */
async function outcome(res: Response) {
  await res.arrayBuffer();
  if (res.status >= 300 && res.status < 400) {
    const location = new URL(res.headers.get("location")!, "http://x");
    return `→ ${location.pathname}${location.search}`;
  }
  return String(res.status);
}

/** The message shown beside a field: the error list Conform names `<form>-<field>-error`, as text. */
function besideField(html: string, field: string): string {
  const list = new RegExp(`<ul id="[\\w-]*-${field}-error"[^>]*>(.*?)</ul>`, "s").exec(html)?.[1] ?? "";
  return list
    .replace(/<[^>]+>/g, " ")
    .replace(/&#x27;/g, "'")
    .replace(/\s+/g, " ")
    .trim();
}

/** The `value` an input of that name shows (what the form kept), or null. */
function inputValue(html: string, name: string): string | null {
  const input = new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`).exec(html)?.[0];
  return input ? (/\bvalue="([^"]*)"/.exec(input)?.[1] ?? "") : null;
}

const LOGIN = (to: string) => `→ /login?redirectTo=${encodeURIComponent(to)}`;
type Outcomes = [anonymous: string, client: string, freelancer: string, admin: string];
const all = (o: string): Outcomes => [o, o, o, o];
/** A protected page: anonymous visitors go to sign in and come back; members get `signedIn`. */
const members = (path: string, signedIn: string): Outcomes => [LOGIN(path), signedIn, signedIn, signedIn];
/** An admin screen on the main host: sign in first; members go home; admins get `admin`. */
const adminOnMain = (path: string, admin: string): Outcomes => [LOGIN(path), "→ /", "→ /", admin];
/** An admin screen on the admin host: sign in first; members see Access Denied; admins get `admin`. */
const adminOnAdmin = (path: string, admin: string): Outcomes => [LOGIN(path), "403", "403", admin];

/**
 * One table: route, host, the outcome of a GET and (where the page has a form, and for the admin screens)
 * of a POST, for anonymous, client, freelancer, admin. The POSTs carry an empty or invalid form: what they
 * show is the access rule (and a 400 where the visitor may use the form; on the sign-in and join pages a
 * member then meets the page's own rule and is sent on). `{gig}` is a published gig of
 * test_freelancer's. With `ownSession`, each visitor gets a session for this row alone (logout ends it).
 */
type Row = [path: string, host: Host, get: Outcomes | null, post: Outcomes | null, options?: { body?: Record<string, string>; ownSession?: boolean }];
const MATRIX: Row[] = [
  ["/", "main", all("200"), null],
  ["/login", "main", ["200", "→ /dashboard", "→ /dashboard", "→ /dashboard"], ["400", "→ /dashboard", "→ /dashboard", "→ /dashboard"]],
  ["/register", "main", ["200", "→ /dashboard", "→ /dashboard", "→ /dashboard"], ["400", "→ /dashboard", "→ /dashboard", "→ /dashboard"]],
  // Signed-in members following "Become a seller" go where selling starts; posting the form never makes a second account.
  ["/freelancer/register", "main", ["200", "→ /gig/create", "→ /gig/create", "→ /dashboard"], ["400", "→ /dashboard", "→ /dashboard", "→ /dashboard"]],
  ["/help", "main", all("200"), null],
  ["/user/test_freelancer", "main", all("200"), null],
  ["/user/test_admin", "main", all("404"), null],
  ["/user/nobody_at_all", "main", all("404"), null],
  ["/terms", "main", all("200"), null],
  ["/privacy", "main", all("200"), null],
  ["/consent", "main", all("200"), all("400")],
  ["/currency", "main", all("→ /"), all("400")],
  ["/language", "main", all("→ /"), all("400")],
  ["/forgot-password", "main", all("200"), all("400")],
  ["/reset-password", "main", all("410"), all("400")],
  ["/logout", "main", all("→ /"), all("→ /"), { ownSession: true }],
  ["/dashboard", "main", members("/dashboard", "200"), null],
  ["/orders", "main", members("/orders", "200"), null],
  ["/settings", "main", members("/settings", "200"), members("/settings", "400")],
  ["/settings?tab=profile", "main", members("/settings?tab=profile", "200"), members("/settings?tab=profile", "400")],
  [
    "/settings?tab=notifications",
    "main",
    members("/settings?tab=notifications", "200"),
    members("/settings?tab=notifications", "400"),
    { body: { emailOrders: "maybe" } },
  ],
  ["/settings?tab=security", "main", members("/settings?tab=security", "200"), members("/settings?tab=security", "400")],
  ["/settings?tab=billing", "main", members("/settings?tab=billing", "200"), members("/settings?tab=billing", "400")],
  ["/settings?tab=preferences", "main", members("/settings?tab=preferences", "200"), members("/settings?tab=preferences", "400")],
  // A POST to /messages starts a conversation; without saying with whom it is a bad request.
  ["/messages", "main", members("/messages", "200"), members("/messages", "400")],
  ["/notifications", "main", members("/notifications", "200"), members("/notifications", "400")],
  ["/notifications/counts", "main", ["401", "200", "200", "200"], all("405")],
  ["/admin", "main", adminOnMain("/admin", "200"), adminOnMain("/admin", "405")],
  // User management: an empty POST is a bad request (no action chosen), a bad filter too; the audit log is read only.
  ["/admin/users", "main", adminOnMain("/admin/users", "200"), adminOnMain("/admin/users", "400")],
  ["/admin/users?status=sleeping", "main", adminOnMain("/admin/users?status=sleeping", "400"), null],
  ["/admin/users?confirm=delete&id=1", "main", adminOnMain("/admin/users?confirm=delete&id=1", "200"), null],
  ["/admin/audit", "main", adminOnMain("/admin/audit", "200"), adminOnMain("/admin/audit", "405")],
  // Message monitoring: a POST without flag, unflag or delete is a bad request; a conversation that does not exist is a 404 (read and confirm alike).
  ["/admin/messages", "main", adminOnMain("/admin/messages", "200"), adminOnMain("/admin/messages", "400")],
  ["/admin/messages?conversation=conv_doesnotexist000", "main", adminOnMain("/admin/messages?conversation=conv_doesnotexist000", "404"), null],
  [
    "/admin/messages?conversation=conv_doesnotexist000&confirm=delete",
    "main",
    adminOnMain("/admin/messages?conversation=conv_doesnotexist000&confirm=delete", "404"),
    null,
  ],
  ["/admin/rates", "main", adminOnMain("/admin/rates", "200"), adminOnMain("/admin/rates", "400")],
  // Categories: a POST without a known intent is a bad request.
  ["/admin/categories", "main", adminOnMain("/admin/categories", "200"), adminOnMain("/admin/categories", "400")],
  ["/admin/analytics", "main", adminOnMain("/admin/analytics", "200"), adminOnMain("/admin/analytics", "405")],
  // Analytics: a period running backwards is a bad request; the CSV export (GET only) refuses bad parameters with 400.
  [
    "/admin/analytics?range=custom&from=2026-02-01&to=2026-01-01",
    "main",
    adminOnMain("/admin/analytics?range=custom&from=2026-02-01&to=2026-01-01", "400"),
    null,
  ],
  [
    "/admin/analytics/export?range=7d&report=pages",
    "main",
    adminOnMain("/admin/analytics/export?range=7d&report=pages", "200"),
    adminOnMain("/admin/analytics/export?range=7d&report=pages", "405"),
  ],
  ["/admin/analytics/export?range=400d", "main", adminOnMain("/admin/analytics/export?range=400d", "400"), null],
  ["/analytics/export?range=7d", "main", all("404"), all("404")],
  // Insights and pipeline health: GET screens (a POST is 405) but the pipeline's, whose POST without intent=replay is a bad request; an unknown member is a 404.
  ["/admin/pipeline", "main", adminOnMain("/admin/pipeline", "200"), adminOnMain("/admin/pipeline", "400")],
  ["/admin/heatmap?range=1d", "main", adminOnMain("/admin/heatmap?range=1d", "200"), adminOnMain("/admin/heatmap?range=1d", "405")],
  ["/admin/heatmap?range=2y", "main", adminOnMain("/admin/heatmap?range=2y", "400"), null],
  [
    "/admin/analytics/conversion-funnel",
    "main",
    adminOnMain("/admin/analytics/conversion-funnel", "200"),
    adminOnMain("/admin/analytics/conversion-funnel", "405"),
  ],
  ["/admin/analytics/user-journey", "main", adminOnMain("/admin/analytics/user-journey", "200"), adminOnMain("/admin/analytics/user-journey", "405")],
  [
    "/admin/analytics/user-journey/99999999",
    "main",
    adminOnMain("/admin/analytics/user-journey/99999999", "404"),
    adminOnMain("/admin/analytics/user-journey/99999999", "405"),
  ],
  ["/admin/users/99999999/analytics", "main", adminOnMain("/admin/users/99999999/analytics", "404"), adminOnMain("/admin/users/99999999/analytics", "405")],
  ["/heatmap", "main", all("404"), all("404")],
  ["/browse", "main", all("200"), null],
  ["/search?q=logo", "main", all("200"), null],
  ["/gig/{gig}", "main", all("200"), all("400")],
  ["/gig/999", "main", all("404"), null],
  ["/gig/create", "main", [LOGIN("/gig/create"), "200", "200", "403"], [LOGIN("/gig/create"), "403", "400", "403"]],
  ["/gig/{gig}/edit", "main", [LOGIN("/gig/{gig}/edit"), "404", "200", "404"], [LOGIN("/gig/{gig}/edit"), "404", "400", "404"]],
  ["/gig/999/edit", "main", [LOGIN("/gig/999/edit"), "404", "404", "404"], [LOGIN("/gig/999/edit"), "404", "404", "404"]],
  ["/gig/999/order?package=basic", "main", [LOGIN("/gig/999/order?package=basic"), "404", "404", "404"], null],
  ["/users", "main", all("404"), all("404")],
  ["/analytics", "main", all("404"), all("404")],
  ["/categories", "main", all("404"), all("404")],
  ["/login", "admin", ["200", "→ /", "→ /", "→ /"], ["400", "→ /", "→ /", "→ /"]],
  ["/logout", "admin", all("→ /"), all("→ /login"), { ownSession: true }],
  ["/", "admin", adminOnAdmin("/", "200"), null],
  ["/users", "admin", adminOnAdmin("/users", "200"), adminOnAdmin("/users", "400")],
  ["/users?q=test&role=client&status=active&page=1", "admin", adminOnAdmin("/users?q=test&role=client&status=active&page=1", "200"), null],
  ["/audit", "admin", adminOnAdmin("/audit", "200"), adminOnAdmin("/audit", "405")],
  ["/audit?action=user.suspend", "admin", adminOnAdmin("/audit?action=user.suspend", "200"), null],
  ["/messages", "admin", adminOnAdmin("/messages", "200"), adminOnAdmin("/messages", "400")],
  ["/messages?conversation=conv_doesnotexist000", "admin", adminOnAdmin("/messages?conversation=conv_doesnotexist000", "404"), null],
  ["/messages?filter=flagged&q=x", "admin", adminOnAdmin("/messages?filter=flagged&q=x", "200"), null],
  ["/rates", "admin", adminOnAdmin("/rates", "200"), adminOnAdmin("/rates", "400")],
  ["/categories", "admin", adminOnAdmin("/categories", "200"), adminOnAdmin("/categories", "400")],
  ["/analytics", "admin", adminOnAdmin("/analytics", "200"), adminOnAdmin("/analytics", "405")],
  ["/analytics?range=7d", "admin", adminOnAdmin("/analytics?range=7d", "200"), null],
  [
    "/analytics/export?range=30d&report=sessions",
    "admin",
    adminOnAdmin("/analytics/export?range=30d&report=sessions", "200"),
    adminOnAdmin("/analytics/export?range=30d&report=sessions", "405"),
  ],
  [
    "/analytics/export?range=custom&from=2025-01-01&to=2026-06-01",
    "admin",
    adminOnAdmin("/analytics/export?range=custom&from=2025-01-01&to=2026-06-01", "400"),
    null,
  ],
  ["/pipeline", "admin", adminOnAdmin("/pipeline", "200"), adminOnAdmin("/pipeline", "400")],
  ["/heatmap", "admin", adminOnAdmin("/heatmap", "200"), adminOnAdmin("/heatmap", "405")],
  [
    "/analytics/conversion-funnel?range=90d",
    "admin",
    adminOnAdmin("/analytics/conversion-funnel?range=90d", "200"),
    adminOnAdmin("/analytics/conversion-funnel?range=90d", "405"),
  ],
  [
    "/analytics/user-journey?user=abc",
    "admin",
    adminOnAdmin("/analytics/user-journey?user=abc", "400"),
    adminOnAdmin("/analytics/user-journey?user=abc", "405"),
  ],
  ["/users/99999999/analytics", "admin", adminOnAdmin("/users/99999999/analytics", "404"), adminOnAdmin("/users/99999999/analytics", "405")],
  ["/dashboard", "admin", all("404"), null],
  ["/settings", "admin", all("404"), all("404")],
  ["/settings?tab=billing", "admin", all("404"), all("404")],
  ["/register", "admin", all("404"), all("404")],
  ["/freelancer/register", "admin", all("404"), all("404")],
  ["/forgot-password", "admin", all("404"), all("404")],
  ["/reset-password", "admin", all("404"), all("404")],
  ["/admin", "admin", all("404"), all("404")],
  ["/notifications", "admin", all("404"), all("404")],
  ["/admin/users", "admin", all("404"), all("404")],
  ["/user/test_freelancer", "admin", all("404"), null],
  ["/browse", "admin", all("404"), null],
  ["/search?q=logo", "admin", all("404"), null],
  ["/gig/create", "admin", all("404"), all("404")],
  ["/gig/{gig}/edit", "admin", all("404"), all("404")],
];
const WHO: Who[] = ["anonymous", "client", "freelancer", "admin"];

describe("access matrix", () => {
  const withGig = (s: string) => s.replaceAll("{gig}", String(gigId)).replaceAll(encodeURIComponent("{gig}"), String(gigId));
  for (const [path, host, get, post, options = {}] of MATRIX) {
    for (const [method, expected] of [
      ["GET", get],
      ["POST", post],
    ] as const) {
      if (!expected) continue;
      it(`${method} ${host} host ${path}`, async () => {
        const got = await Promise.all(
          WHO.map(async (who) => {
            const session = options.ownSession && who !== "anonymous" ? (await createSession(t.db, { userId: ids[who]!, persistent: false })).token : undefined;
            const body = method === "POST" ? options.body : undefined;
            return outcome(await request(withGig(path), { host, who, session, method, body }));
          }),
        );
        expect(Object.fromEntries(WHO.map((w, i) => [w, got[i]]))).toEqual(Object.fromEntries(WHO.map((w, i) => [w, withGig(expected[i]!)])));
      });
    }
  }

  it("shows the Access Denied panel to a signed-in non-admin on the admin host, with a way back", async () => {
    const html = await (await request("/users", { host: "admin", who: "client" })).text();
    expect(html).toContain("You don&#x27;t have permission to access this area.");
    expect(html).toContain("You don&#x27;t have administrator privileges.");
    expect(html).toMatch(/href="http:\/\/localhost:\d+"[^>]*>Back to the main site/);
    const posted = await (await request("/users", { host: "admin", who: "client", method: "POST" })).text();
    expect(posted).toContain("You don&#x27;t have administrator privileges.");
  });

  it("a refused POST changes nothing", async () => {
    const before = await t.db("users").where({ id: ids.client }).first();
    expect(await outcome(await request("/settings?tab=billing", { method: "POST", body: { mobileMoneyNumber: "+256772123456" } }))).toBe(
      LOGIN("/settings?tab=billing"),
    );
    expect(
      await outcome(await request("/settings?tab=billing", { method: "POST", host: "admin", who: "client", body: { mobileMoneyNumber: "+256772123456" } })),
    ).toBe("404");
    expect(await outcome(await request(`/gig/${gigId}/edit`, { method: "POST", who: "client", body: { intent: "delete-confirmed" } }))).toBe("404");
    expect(await t.db("users").where({ id: ids.client }).first()).toEqual(before);
    expect(await t.db("gigs").where({ id: gigId }).first("status")).toEqual({ status: "published" });
  });
});

async function countUsers() {
  return Number((await t.db("users").count<{ c: string }[]>({ c: "*" }).first())?.c);
}

const validClient = { name: "Amina Nansubuga", email: "amina@example.ug", role: "client", password: "a-long-password", confirmPassword: "a-long-password" };
const validSeller = {
  name: "Brian Ssemakula",
  email: "brian@example.ug",
  password: "a-long-password",
  confirmPassword: "a-long-password",
  skills: "Logo design, Branding",
  yearsExperience: "4",
  portfolioUrl: "https://brian.example.ug",
  description: "Brand designer in Kampala.",
  terms: "on",
};
const long = "x".repeat(10_000);

describe("joining refuses bad input with a message by the field, keeps the other values, stores nothing", () => {
  const cases: [string, string, Record<string, string>, string][] = [
    ["client: missing name", "/register", { ...validClient, name: "" }, "Enter your full name"],
    ["client: malformed email", "/register", { ...validClient, email: "amina-at-example" }, "Enter an email address like name@example.com"],
    ["client: passwords differ", "/register", { ...validClient, confirmPassword: "something-else" }, "Passwords do not match"],
    ["client: 10,000-character name", "/register", { ...validClient, name: long }, "A name has at most 100 characters"],
    ["client: 10,000-character email", "/register", { ...validClient, email: `${long}@x.ug` }, "An email address has at most 254 characters"],
    ["client: role admin", "/register", { ...validClient, role: "admin" }, "Choose Hire or Work"],
    ["client: unknown role", "/register", { ...validClient, role: "superuser" }, "Choose Hire or Work"],
    ["seller: missing skills", "/freelancer/register", { ...validSeller, skills: "" }, "List at least one skill"],
    ["seller: malformed portfolio", "/freelancer/register", { ...validSeller, portfolioUrl: "not a url" }, "Enter a full web address"],
    ["seller: javascript: portfolio", "/freelancer/register", { ...validSeller, portfolioUrl: "javascript:alert(1)" }, "starting with http"],
    ["seller: passwords differ", "/freelancer/register", { ...validSeller, confirmPassword: "nope-nope-nope" }, "Passwords do not match"],
    ["seller: terms not accepted", "/freelancer/register", { ...validSeller, terms: "" }, "Accept the terms to continue"],
    ["seller: 10,000-character description", "/freelancer/register", { ...validSeller, description: long }, "at most 2,000 characters"],
    ["seller: negative experience", "/freelancer/register", { ...validSeller, yearsExperience: "-3" }, "cannot be negative"],
    ["seller: missing email", "/freelancer/register", { ...validSeller, email: "" }, "Enter your email address"],
  ];
  for (const [title, path, body, message] of cases) {
    it(title, async () => {
      const before = await countUsers();
      const res = await request(path, { method: "POST", body });
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain(message);
      expect(html).not.toContain(body.password);
      if (body.name && body.name.length < 100) expect(html).toContain(`value="${body.name}"`);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await countUsers()).toBe(before);
    });
  }

  it("refuses a taken email (any letter case), even on a repeated submission", async () => {
    const first = await request("/register", { method: "POST", body: { ...validClient, email: "repeat@example.ug" } });
    expect(await outcome(first)).toBe("→ /dashboard");
    const before = await countUsers();
    const again = await request("/register", { method: "POST", body: { ...validClient, email: "REPEAT@example.ug" } });
    expect(again.status).toBe(400);
    expect(await again.text()).toContain("An account with this email already exists");
    expect(await countUsers()).toBe(before);
  });

  it("refuses a taken email on /freelancer/register too, every time it is sent again, keeping the other values", async () => {
    const seller = { ...validSeller, email: "twice.seller@example.ug", name: "Twice Seller" };
    expect(await outcome(await request("/freelancer/register", { method: "POST", body: seller, ip: "10.20.0.1" }))).toBe("→ /dashboard");
    const before = await countUsers();
    for (const email of ["twice.seller@example.ug", "Twice.Seller@Example.UG"]) {
      const again = await request("/freelancer/register", { method: "POST", body: { ...seller, email }, ip: "10.20.0.1" });
      expect(again.status).toBe(400);
      expect(again.headers.get("set-cookie")).toBeNull();
      const html = await again.text();
      expect(besideField(html, "email")).toBe("An account with this email already exists. Sign in instead, or use another email.");
      expect(inputValue(html, "email")).toBe(email);
      expect(inputValue(html, "name")).toBe("Twice Seller");
      expect(inputValue(html, "skills")).toBe("Logo design, Branding");
      expect(inputValue(html, "portfolioUrl")).toBe("https://brian.example.ug");
      expect(html).not.toContain(seller.password);
    }
    expect(await countUsers()).toBe(before);
  });
});

describe("joining", () => {
  it("creates a client (the default), signs them in and goes to the dashboard", async () => {
    const { role: _role, ...body } = validClient;
    const res = await request("/register", { method: "POST", body });
    expect(await outcome(res)).toBe("→ /dashboard");
    // The session's cookie, and the device cookie of the browser that made the account (ADR 030).
    const [cookie = "", device = ""] = (res.headers.get("set-cookie") ?? "").split(", ");
    expect(cookie).toMatch(/^soko_session=[\w-]+; Path=\/; HttpOnly; SameSite=Lax$/);
    expect(device).toMatch(/^soko_device=v1\.[\w-]{22}\.[\w-]{22}; Max-Age=31536000; Path=\/; HttpOnly; SameSite=Lax$/);
    const user = await t.db("users").where({ email: validClient.email }).first();
    expect(user).toMatchObject({ name: "Amina Nansubuga", role: "client" });
    expect(user.username).toMatch(/^amina_nansubuga(_\d+)?$/);
    expect(user.password_hash).toMatch(/^scrypt\$/);
    expect(user.password_hash).not.toContain(validClient.password);
    const dashboard = await fetch(`${server.baseUrl}/dashboard`, { headers: { Cookie: cookie.split(";")[0]! } });
    expect(await dashboard.text()).toContain("Welcome back, Amina");
  });

  it("drops control characters such as NUL (which Postgres refuses) instead of failing", async () => {
    const body = { name: "Okot\u0000 Denis", email: "okot.nul@example.ug", password: "okot-password-1", confirmPassword: "okot-password-1" };
    expect(await outcome(await request("/register", { method: "POST", body }))).toBe("→ /dashboard");
    expect(await t.db("users").where({ email: "okot.nul@example.ug" }).first("name")).toEqual({ name: "Okot Denis" });
  });

  it("creates a seller with skills, experience and portfolio", async () => {
    expect(await outcome(await request("/freelancer/register", { method: "POST", body: validSeller }))).toBe("→ /dashboard");
    const user = await t.db("users").where({ email: validSeller.email }).first();
    expect(user).toMatchObject({
      role: "freelancer",
      skills: ["Logo design", "Branding"],
      years_experience: 4,
      portfolio_url: "https://brian.example.ug",
      bio: "Brand designer in Kampala.",
    });
  });

  it("sends a signed-in member who posts a join form to the dashboard, creating no second account", async () => {
    const before = await countUsers();
    for (const [path, body] of [
      ["/register", { ...validClient, email: "second.account@example.ug" }],
      ["/freelancer/register", { ...validSeller, email: "second.seller@example.ug" }],
    ] as const) {
      expect(await outcome(await request(path, { method: "POST", who: "client", body }))).toBe("→ /dashboard");
    }
    expect(await countUsers()).toBe(before);
  });

  it("refuses a form posted from another site", async () => {
    const before = await countUsers();
    const res = await fetch(`${server.baseUrl}/register`, {
      method: "POST",
      redirect: "manual",
      headers: { Origin: "https://evil.example" },
      body: new URLSearchParams({ ...validClient, email: "csrf@example.ug" }),
    });
    expect(res.status).toBe(403);
    expect(await countUsers()).toBe(before);
  });
});

describe("joining at the same moment", () => {
  const join = (name: string, email: string, ip: string) =>
    request("/register", { method: "POST", ip, body: { name, email, password: "same-moment-1", confirmPassword: "same-moment-1" } });

  /**
   * Sends `join` while another join is between its insert and its commit (a transaction held open here):
   * the server's join reads the usernames without that row, picks the same one, and waits on the unique
   * index until this other join commits. Answers the server's response.
   */
  async function whileAnotherJoinCommits(other: { name: string; username: string; email: string }, send: () => Promise<Response>) {
    const trx = await t.db.transaction();
    try {
      await trx("users").insert({ ...other, role: "client" });
      const response = send();
      const deadline = Date.now() + 10_000;
      for (;;) {
        const waiting = await t.db.raw(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ? AND wait_event_type = 'Lock'`, [t.name]);
        if (waiting.rows[0].n > 0) break;
        if (Date.now() > deadline) throw new Error("the server's join never waited on the other one");
        await new Promise((r) => setTimeout(r, 20));
      }
      await trx.commit();
      return await response;
    } finally {
      if (!trx.isCompleted()) await trx.rollback();
    }
  }

  it("gives the second of two people with the same name the next username (once a 500)", async () => {
    const res = await whileAnotherJoinCommits({ name: "Nakato Sarah", username: "nakato_sarah", email: "nakato.1@example.ug" }, () =>
      join("Nakato Sarah", "nakato.2@example.ug", "10.30.0.1"),
    );
    expect(await outcome(res)).toBe("→ /dashboard");
    expect(await t.db("users").where("email", "like", "nakato.%").orderBy("email").pluck("username")).toEqual(["nakato_sarah", "nakato_sarah_2"]);
  });

  it("tells the second of two joins with the same email that it is taken (never a 500), storing one account", async () => {
    const res = await whileAnotherJoinCommits({ name: "Okello Peter", username: "okello_peter", email: "okello.same@example.ug" }, () =>
      join("Okello Peter", "Okello.Same@example.ug", "10.30.0.2"),
    );
    expect(res.status).toBe(400);
    expect(besideField(await res.text(), "email")).toBe("An account with this email already exists. Sign in instead, or use another email.");
    expect(await t.db("users").whereRaw("lower(email) = ?", ["okello.same@example.ug"]).count<{ c: number }[]>({ c: "*" }).first()).toEqual({ c: 1 });
  });

  it("many joins of one name at once all succeed, each with its own username", async () => {
    const outcomes = await Promise.all(Array.from({ length: 8 }, (_, i) => join("Apio Grace", `apio.${i}@example.ug`, "10.30.0.3").then(outcome)));
    expect(outcomes).toEqual(Array(8).fill("→ /dashboard"));
    const usernames = await t.db("users").where("email", "like", "apio.%@example.ug").pluck("username");
    expect(new Set(usernames).size).toBe(8);
    for (const username of usernames) expect(username).toMatch(/^apio_grace(_\d+)?$/);
  });
});

describe("rate limits kept in Redis", () => {
  it("joining: after 20 accounts from one address in an hour, the 21st is refused with 429 and a clear message", async () => {
    const ip = "10.40.0.1";
    for (let i = 1; i <= 20; i++) {
      const body = { name: "Limit Tester", email: `limit.${i}@example.ug`, password: "limit-tester-1", confirmPassword: "limit-tester-1" };
      expect(await outcome(await request("/register", { method: "POST", ip, body })), `join ${i}`).toBe("→ /dashboard");
    }
    const before = await countUsers();
    const body = { name: "Limit Tester", email: "limit.21@example.ug", password: "limit-tester-1", confirmPassword: "limit-tester-1" };
    const refused = await request("/register", { method: "POST", ip, body });
    expect(refused.status).toBe(429);
    expect(await refused.text()).toContain("Too many accounts were created from your network. Please try again later.");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(3500);
    expect(await countUsers()).toBe(before);
    // The count lives in Redis (shared by every web process), and expires with the hour.
    const key = `${QUEUE_PREFIX}:rl:join:ip:${ip}`;
    expect(Number(await redis.get(key))).toBeGreaterThanOrEqual(20);
    expect(await redis.pttl(key)).toBeGreaterThan(3_500_000);
    // Another address is not affected.
    expect(await outcome(await request("/register", { method: "POST", ip: "10.40.0.2", body }))).toBe("→ /dashboard");
  }, 120_000);

  it("password reset: after 5 requests in an hour the 6th is refused with 429, per address and per email, and mails nothing", async () => {
    const outboxCount = async () => Number((await t.db("outbox").count<{ c: string }[]>({ c: "*" }).first())?.c);
    const ask = (email: string, ip: string) => request("/forgot-password", { method: "POST", ip, body: { email } });
    // Per address: five different emails from one address, then a sixth.
    for (let i = 1; i <= 5; i++) expect((await ask(`nobody.${i}@example.ug`, "10.40.1.1")).status).toBe(200);
    const byAddress = await ask("client@example.ug", "10.40.1.1");
    expect(byAddress.status).toBe(429);
    expect(await byAddress.text()).toContain("Too many reset requests. Please wait before asking again.");
    expect(Number(await redis.get(`${QUEUE_PREFIX}:rl:reset:ip:10.40.1.1`))).toBeGreaterThanOrEqual(5);

    // Per email: the same (known) email from five addresses, then from a sixth: no sixth mail.
    for (let i = 1; i <= 5; i++) expect((await ask("Freelancer@example.ug", `10.40.2.${i}`)).status).toBe(200);
    const mails = await outboxCount();
    const byEmail = await ask("freelancer@example.ug", "10.40.2.6");
    expect(byEmail.status).toBe(429);
    expect(await byEmail.text()).toContain("Too many reset requests");
    expect(await outboxCount()).toBe(mails);
    const key = `${QUEUE_PREFIX}:rl:reset:email:freelancer@example.ug`;
    expect(Number(await redis.get(key))).toBeGreaterThanOrEqual(5);
    expect(await redis.pttl(key)).toBeGreaterThan(3_500_000);
  });
});

describe("signing in", () => {
  const login = (body: Record<string, string>, host: "main" | "admin" = "main") => request("/login", { method: "POST", body, host });

  it("without remember me, the cookie ends with the browser; with it, it lasts 30 days", async () => {
    const session = await login({ email: "client@example.ug", password: PASSWORD });
    expect(await outcome(session)).toBe("→ /dashboard");
    expect(session.headers.get("set-cookie")).not.toContain("Expires");
    const remembered = await login({ email: "CLIENT@example.ug", password: PASSWORD, remember: "on" });
    const expires = /Expires=([^;]+)/.exec(remembered.headers.get("set-cookie") ?? "")?.[1];
    const days = (new Date(expires!).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
  });

  it("goes back to where the visitor was going, but never off the site", async () => {
    expect(await outcome(await login({ email: "client@example.ug", password: PASSWORD, redirectTo: "/settings?tab=billing" }))).toBe("→ /settings?tab=billing");
    expect(await outcome(await login({ email: "client@example.ug", password: PASSWORD, redirectTo: "//evil.example/x" }))).toBe("→ /dashboard");
    expect(await outcome(await login({ email: "client@example.ug", password: PASSWORD, redirectTo: "https://evil.example" }))).toBe("→ /dashboard");
    // Browsers drop tabs and line breaks from a Location, so `/\t/evil.example` would take them off the site;
    // a line break is also not a valid header value (once a 500).
    for (const redirectTo of ["/\t/evil.example", "/\n/evil.example", "/\\evil.example", "/dashboard\r\nSet-Cookie: x=1"]) {
      const res = await login({ email: "client@example.ug", password: PASSWORD, redirectTo });
      expect(await outcome(res), JSON.stringify(redirectTo)).toBe("→ /dashboard");
      expect(res.headers.get("location")).toBe("/dashboard");
    }
    // Already signed in, /login sends the visitor on at once: the same rule.
    for (const redirectTo of ["/%09/evil.example", "/%0A/evil.example", "%2F%2Fevil.example"]) {
      const res = await request(`/login?redirectTo=${redirectTo}`, { who: "client" });
      expect(await outcome(res), redirectTo).toBe("→ /dashboard");
    }
  }, 120_000);

  it("on the admin host goes to /", async () => {
    expect(await outcome(await login({ email: "admin@example.ug", password: PASSWORD }, "admin"))).toBe("→ /");
  });

  it("gives one generic message for an unknown email and a wrong password", async () => {
    for (const body of [
      { email: "nobody@example.ug", password: PASSWORD },
      { email: "freelancer@example.ug", password: "wrong-password" },
    ]) {
      const res = await login(body);
      expect(res.status).toBe(400);
      expect(await res.text()).toContain("Incorrect email or password.");
      expect(res.headers.get("set-cookie")).toBeNull();
    }
  });

  it("tells a suspended or banned member why, and gives no session", async () => {
    for (const status of ["suspended", "banned"] as const) {
      const row = await createUser(t.db, { name: `Held ${status}`, username: `held_${status}`, email: `${status}@example.ug`, status });
      const res = await login({ email: `${status}@example.ug`, password: PASSWORD });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain(status === "suspended" ? "Your account is suspended" : "Your account has been banned");
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await t.db("sessions").where({ user_id: row.id }).count<{ c: string }[]>({ c: "*" }).first()).toEqual({ c: 0 });
    }
  });

  it("suspending a member ends their sessions at once", async () => {
    const { token } = await createSession(t.db, { userId: ids.freelancer!, persistent: false });
    const cookie = { Cookie: `soko_session=${token}` };
    expect((await fetch(`${server.baseUrl}/dashboard`, { redirect: "manual", headers: cookie })).status).toBe(200);
    await setUserStatus(t.db, ids.freelancer!, "suspended");
    expect((await fetch(`${server.baseUrl}/dashboard`, { redirect: "manual", headers: cookie })).status).toBe(302);
    await setUserStatus(t.db, ids.freelancer!, "active");
    tokens.freelancer = (await createSession(t.db, { userId: ids.freelancer!, persistent: false })).token;
  });

  it("refuses the 11th wrong password in a minute from one address with 429, even with the right password then from there", async () => {
    const body = { email: "admin@example.ug", password: "not-the-password" };
    // Each attempt costs a full scrypt hash (N=2^17): on a loaded machine ten of them take seconds, which the
    // minute's window counts down from the first.
    const started = Date.now();
    for (let i = 1; i <= 10; i++) expect((await login(body)).status, `attempt ${i}`).toBe(400);
    const windowLeftMs = () => 60_000 - (Date.now() - started) - 1_000;
    // The failures are counted in Redis, for this email at this address (the test's own: loopback), for the minute.
    const key = `${QUEUE_PREFIX}:rl:signIn:admin@example.ug|127.0.0.1`;
    expect(Number(await redis.get(key))).toBe(10);
    expect(await redis.pttl(key)).toBeGreaterThan(windowLeftMs());
    const eleventh = await login(body);
    expect(eleventh.status).toBe(429);
    expect(Number(eleventh.headers.get("retry-after"))).toBeGreaterThan(windowLeftMs() / 1000);
    expect(Number(eleventh.headers.get("retry-after"))).toBeLessThanOrEqual(60);
    expect(await eleventh.text()).toContain("Too many sign-in attempts");
    expect((await login({ email: "admin@example.ug", password: PASSWORD })).status).toBe(429);
    // Retry-After is when the limit really ends (once a fixed 60): here, in 20 seconds at most.
    await redis.pexpire(key, 20_000);
    const retryAfter = Number((await login(body)).headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(20);
  }, 120_000);

  it("refuses missing, malformed and 10,000-character values with a message by the field, keeping the email, never the password", async () => {
    const sessions = async () => Number((await t.db("sessions").count<{ c: string }[]>({ c: "*" }).first())?.c);
    const before = await sessions();
    const cases: [Record<string, string>, string, string][] = [
      [{ password: PASSWORD }, "email", "Enter your email address"],
      [{ email: "", password: PASSWORD }, "email", "Enter your email address"],
      [{ email: "client@example.ug" }, "password", "Enter your password"],
      [{ email: "client-at-example.ug", password: PASSWORD }, "email", "Enter an email address like name@example.com"],
      [{ email: `${long}@example.ug`, password: PASSWORD }, "email", "An email address has at most 254 characters"],
      [{ email: "client@example.ug", password: long }, "password", "A password has at most 200 characters"],
    ];
    for (const [body, field, message] of cases) {
      const res = await login(body);
      expect(res.status, message).toBe(400);
      expect(res.headers.get("set-cookie")).toBeNull();
      const html = await res.text();
      expect(besideField(html, field)).toBe(message);
      if (body.email) expect(inputValue(html, "email")).toBe(body.email);
      expect(inputValue(html, "password")).toBe("");
      if (body.password) expect(html).not.toContain(body.password);
    }
    expect(await sessions()).toBe(before);
  });

  it("banning or deleting a member ends their sessions at once", async () => {
    for (const end of ["ban", "delete"] as const) {
      const row = await createUser(t.db, { role: "freelancer", name: `To ${end}`, username: `to_${end}`, email: `to.${end}@example.ug` });
      const phone = (await createSession(t.db, { userId: row.id, persistent: true })).token;
      const laptop = (await createSession(t.db, { userId: row.id, persistent: false })).token;
      for (const session of [phone, laptop]) expect(await outcome(await request("/dashboard", { session }))).toBe("200");
      if (end === "ban") await setUserStatus(t.db, row.id, "banned");
      else await t.db("users").where({ id: row.id }).delete();
      for (const session of [phone, laptop]) expect(await outcome(await request("/dashboard", { session }))).toBe(LOGIN("/dashboard"));
      expect(await t.db("sessions").where({ user_id: row.id }).count<{ c: number }[]>({ c: "*" }).first()).toEqual({ c: 0 });
    }
  });

  it("logout is a POST that ends the session row", async () => {
    const { token } = await createSession(t.db, { userId: ids.client!, persistent: false });
    const res = await fetch(`${server.baseUrl}/logout`, {
      method: "POST",
      redirect: "manual",
      headers: { Cookie: `soko_session=${token}`, Origin: server.baseUrl },
    });
    expect(await outcome(res)).toBe("→ /");
    expect(res.headers.get("set-cookie")).toMatch(/^soko_session=; .*Expires=Thu, 01 Jan 1970/);
    expect((await fetch(`${server.baseUrl}/dashboard`, { redirect: "manual", headers: { Cookie: `soko_session=${token}` } })).status).toBe(302);
    // A GET (a link, a prefetch) never signs anyone out.
    expect(await outcome(await request("/logout", { who: "client" }))).toBe("→ /");
    expect((await request("/dashboard", { who: "client" })).status).toBe(200);
  });
});

describe("password reset", () => {
  async function lastResetLink() {
    const mail = await t.db("outbox").orderBy("id", "desc").first();
    return { mail, link: /https?:\/\/\S+\/reset-password\?token=([\w-]+)/.exec(mail?.body ?? "") };
  }

  it("mails a single-use link, answers the same for unknown emails, and ends every session on use", async () => {
    const before = Number((await t.db("outbox").count<{ c: string }[]>({ c: "*" }).first())?.c);
    const unknown = await request("/forgot-password", { method: "POST", body: { email: "nobody@example.ug" } });
    const unknownHtml = await unknown.text();
    expect(Number((await t.db("outbox").count<{ c: string }[]>({ c: "*" }).first())?.c)).toBe(before);

    const row = await createUser(t.db, { name: "Reset Me", email: "reset@example.ug" });
    const { token: oldSession } = await createSession(t.db, { userId: row.id, persistent: true });
    const known = await request("/forgot-password", { method: "POST", body: { email: "reset@example.ug" } });
    expect(await known.text()).toContain("If an account uses that email");
    expect(unknownHtml).toContain("If an account uses that email");
    const { mail, link } = await lastResetLink();
    expect(mail.to_address).toBe("reset@example.ug");
    const token = link![1]!;
    expect(await t.db("password_resets").where({ id: token }).first()).toBeUndefined(); // stored hashed

    const outbox = await (await request("/dev/outbox")).text();
    expect(outbox).toContain("Reset your Soko password");

    expect((await request(`/reset-password?token=${token}`)).status).toBe(200);
    const mismatch = await request(`/reset-password?token=${token}`, {
      method: "POST",
      body: { token, password: "brand-new-pass", confirmPassword: "other-pass-123" },
    });
    expect(mismatch.status).toBe(400);
    expect(await mismatch.text()).toContain("Passwords do not match");

    const done = await request(`/reset-password?token=${token}`, {
      method: "POST",
      body: { token, password: "brand-new-pass", confirmPassword: "brand-new-pass" },
    });
    expect(await outcome(done)).toBe("→ /login?reset=1");
    expect((await fetch(`${server.baseUrl}/dashboard`, { redirect: "manual", headers: { Cookie: `soko_session=${oldSession}` } })).status).toBe(302);
    expect(await outcome(await request("/login", { method: "POST", body: { email: "reset@example.ug", password: "brand-new-pass" } }))).toBe("→ /dashboard");

    // Used once: the same link no longer works.
    expect((await request(`/reset-password?token=${token}`)).status).toBe(410);
    const reuse = await request(`/reset-password?token=${token}`, {
      method: "POST",
      body: { token, password: "another-pass-1", confirmPassword: "another-pass-1" },
    });
    expect(reuse.status).toBe(410);
  });

  it("never mails a link to the host a request names: a foreign Host header is refused and mails nothing", async () => {
    // (A name the server does serve without being PUBLIC_URL's is tested in hosts.test.ts: its mail links to this machine.)
    const before = Number((await t.db("outbox").count<{ c: string }[]>({ c: "*" }).first())?.c);
    const hosts = ["evil.example", "evil.example:3000", "localhost.evil.example"];
    for (const [i, evil] of hosts.entries()) {
      const res = await request("/forgot-password", {
        method: "POST",
        ip: `10.50.0.${i + 1}`,
        body: { email: "client@example.ug" },
        headers: { Host: evil, Origin: `http://${evil}` },
      });
      expect(res.status).toBe(421);
    }
    expect(Number((await t.db("outbox").count<{ c: string }[]>({ c: "*" }).first())?.c)).toBe(before);
    // A request to this machine itself (development, tests, `npm start`) keeps its own origin.
    await request("/forgot-password", {
      method: "POST",
      ip: "10.50.0.9",
      body: { email: "client@example.ug" },
      headers: { Host: `127.0.0.1:${server.port}`, Origin: `http://127.0.0.1:${server.port}` },
    });
    expect((await lastResetLink()).link![0]).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/reset-password\\?token=`));
  });

  it("using one link uses up the member's other unused links", async () => {
    const row = await createUser(t.db, { name: "Two Links" });
    const links: string[] = [];
    for (const ip of ["10.50.1.1", "10.50.1.2"]) {
      await request("/forgot-password", { method: "POST", ip, body: { email: "two.links@example.ug" } });
      links.push((await lastResetLink()).link![1]!);
    }
    const [older, newer] = links as [string, string];
    for (const token of [older, newer]) expect((await request(`/reset-password?token=${token}`)).status).toBe(200);
    const done = await request("/reset-password", {
      method: "POST",
      body: { token: newer, password: "chosen-with-newer", confirmPassword: "chosen-with-newer" },
    });
    expect(await outcome(done)).toBe("→ /login?reset=1");
    // The older mail, still in the inbox, can no longer change the password just chosen.
    expect((await request(`/reset-password?token=${older}`)).status).toBe(410);
    const reuse = await request("/reset-password", {
      method: "POST",
      body: { token: older, password: "chosen-with-older", confirmPassword: "chosen-with-older" },
    });
    expect(reuse.status).toBe(410);
    expect(await reuse.text()).toContain("This reset link has expired or was already used");
    expect(await t.db("password_resets").where({ user_id: row.id }).whereNull("used_at").count<{ c: number }[]>({ c: "*" }).first()).toEqual({ c: 0 });
    expect(await outcome(await request("/login", { method: "POST", body: { email: "two.links@example.ug", password: "chosen-with-newer" } }))).toBe(
      "→ /dashboard",
    );
  });

  it("/forgot-password refuses missing, malformed and 10,000-character emails with a message by the field and sends nothing", async () => {
    const count = async (table: string) => Number((await t.db(table).count<{ c: string }[]>({ c: "*" }).first())?.c);
    const before = { outbox: await count("outbox"), resets: await count("password_resets") };
    const cases: [Record<string, string>, string][] = [
      [{}, "Enter your email address"],
      [{ email: "" }, "Enter your email address"],
      [{ email: "client-at-example.ug" }, "Enter an email address like name@example.com"],
      [{ email: `${long}@example.ug` }, "An email address has at most 254 characters"],
    ];
    for (const [body, message] of cases) {
      const res = await request("/forgot-password", { method: "POST", ip: "10.50.2.1", body });
      expect(res.status, message).toBe(400);
      const html = await res.text();
      expect(besideField(html, "email")).toBe(message);
      if (body.email) expect(inputValue(html, "email")).toBe(body.email);
      // The page's words travel in its scripts too (the catalogue): only the page itself must not say it.
      expect(html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "")).not.toContain("If an account uses that email");
    }
    expect({ outbox: await count("outbox"), resets: await count("password_resets") }).toEqual(before);
  });

  it("refuses an expired link", async () => {
    await request("/forgot-password", { method: "POST", body: { email: "client@example.ug" } });
    const token = (await lastResetLink()).link![1]!;
    await t.db("password_resets").update({ expires_at: new Date(Date.now() - 1000) });
    expect((await request(`/reset-password?token=${token}`)).status).toBe(410);
  });
});

describe("settings store what is valid and refuse the rest", () => {
  const post = (tab: string, body: Record<string, string>) => request(`/settings?tab=${tab}`, { method: "POST", body, who: "client" });
  const stored = () => t.db("users").where({ id: ids.client }).first();

  it("billing: a +256 mobile-money number is texted a code and stored with it; anything else is refused", async () => {
    for (const bad of ["0772123456", "+254712345678", "+25677212345", long]) {
      const res = await post("billing", { mobileMoneyNumber: bad, currentPassword: PASSWORD });
      expect(res.status, bad.slice(0, 20)).toBe(400);
      expect(await res.text()).toContain("Enter a Ugandan mobile number in the format +256 7XX XXXXXX");
    }
    expect((await stored()).mobile_money_number).toBeNull();
    expect(await outcome(await post("billing", { mobileMoneyNumber: "+256 772 123 456", currentPassword: PASSWORD }))).toBe(
      "→ /settings?tab=billing&saved=code",
    );
    expect((await stored()).mobile_money_number).toBeNull();
    const sms = await t.db("sms_messages").where({ user_id: ids.client, to_number: "+256772123456" }).orderBy("id", "desc").first("body");
    const code = /code is (\d{6})/.exec(sms?.body ?? "")?.[1] ?? "none";
    expect(await outcome(await post("billing", { intent: "confirm-payout", code }))).toBe("→ /settings?tab=billing&saved=1");
    expect((await stored()).mobile_money_number).toBe("+256772123456");
  });

  it("preferences: only the listed languages, currencies and time zones", async () => {
    const res = await post("preferences", { language: "fr", preferredCurrency: "EUR", timeZone: "PST" });
    expect(res.status).toBe(400);
    const html = await res.text();
    expect(html).toContain("Choose English, Luganda or Swahili");
    expect(html).toContain("Choose UGX or USD");
    expect(await outcome(await post("preferences", { language: "lg", preferredCurrency: "USD", timeZone: "UTC" }))).toBe("→ /settings?tab=preferences&saved=1");
    expect(await stored()).toMatchObject({ language: "lg", preferred_currency: "USD", time_zone: "UTC" });
    // The currency choice changes how money is shown.
    const dashboard = await (await request("/dashboard", { who: "client" })).text();
    expect(dashboard).toContain("USD 0.00");
    await post("preferences", { language: "en", preferredCurrency: "UGX", timeZone: "EAT" });
  });

  it("notifications: unchecked boxes are stored as off", async () => {
    expect(await outcome(await post("notifications", { emailOrders: "on" }))).toBe("→ /settings?tab=notifications&saved=1");
    expect(await stored()).toMatchObject({
      notify_email_orders: true,
      notify_email_messages: false,
      notify_email_marketing: false,
      notify_push_orders: false,
      notify_push_messages: false,
    });
  });

  it("security: a wrong current password changes nothing", async () => {
    const before = (await stored()).password_hash;
    const res = await post("security", { currentPassword: "wrong-one", password: "new-password-1", confirmPassword: "new-password-1" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Your current password is not right");
    expect((await stored()).password_hash).toBe(before);
  });

  it("security: mismatched or missing new passwords are refused beside the field, and nothing changes", async () => {
    const before = (await stored()).password_hash;
    const cases: [Record<string, string>, string, string][] = [
      [{ currentPassword: PASSWORD, password: "new-password-1", confirmPassword: "new-password-2" }, "confirmPassword", "Passwords do not match"],
      [{ currentPassword: PASSWORD, confirmPassword: "new-password-1" }, "password", "Choose a password"],
      [{ currentPassword: PASSWORD, password: "new-password-1" }, "confirmPassword", "Confirm your password"],
      [{ currentPassword: PASSWORD, password: "short", confirmPassword: "short" }, "password", "Use at least 8 characters"],
      [{ password: "new-password-1", confirmPassword: "new-password-1" }, "currentPassword", "Enter your current password"],
    ];
    for (const [body, field, message] of cases) {
      const res = await post("security", body);
      expect(res.status, message).toBe(400);
      const html = await res.text();
      expect(besideField(html, field)).toBe(message);
      for (const value of Object.values(body)) expect(html).not.toContain(`value="${value}"`);
    }
    expect((await stored()).password_hash).toBe(before);
    expect((await request("/dashboard", { who: "client" })).status).toBe(200);
  });

  it("security: signing out of all other sessions ends them and keeps this one", async () => {
    const row = await createUser(t.db, { name: "Many Devices" });
    const [here, phone, laptop] = await Promise.all([0, 1, 2].map(async () => (await createSession(t.db, { userId: row.id, persistent: true })).token));
    const res = await request("/settings?tab=security", { method: "POST", session: here, body: { intent: "sign-out-others" } });
    expect(await outcome(res)).toBe("→ /settings?tab=security&saved=others");
    expect(await (await request("/settings?tab=security&saved=others", { session: here })).text()).toContain("You are signed out of every other session.");
    for (const session of [phone, laptop]) expect(await outcome(await request("/dashboard", { session }))).toBe(LOGIN("/dashboard"));
    expect(await outcome(await request("/dashboard", { session: here }))).toBe("200");
    expect(await t.db("sessions").where({ user_id: row.id }).count<{ c: number }[]>({ c: "*" }).first()).toEqual({ c: 1 });
  });

  it("security: changing the password ends the other sessions, keeps this one, and the new password signs in", async () => {
    const row = await createUser(t.db, { role: "freelancer", name: "New Password" });
    const [here, elsewhere] = await Promise.all([0, 1].map(async () => (await createSession(t.db, { userId: row.id, persistent: false })).token));
    const res = await request("/settings?tab=security", {
      method: "POST",
      session: here,
      body: { currentPassword: PASSWORD, password: "a-new-password-9", confirmPassword: "a-new-password-9" },
    });
    expect(await outcome(res)).toBe("→ /settings?tab=security&saved=1");
    expect(await (await request("/settings?tab=security&saved=1", { session: here })).text()).toContain(
      "Your password is changed. Your other sessions were signed out.",
    );
    expect(await outcome(await request("/dashboard", { session: elsewhere }))).toBe(LOGIN("/dashboard"));
    expect(await outcome(await request("/dashboard", { session: here }))).toBe("200");
    const signIn = (password: string) => request("/login", { method: "POST", ip: "10.60.0.1", body: { email: "new.password@example.ug", password } });
    expect((await signIn(PASSWORD)).status).toBe(400);
    expect(await outcome(await signIn("a-new-password-9"))).toBe("→ /dashboard");
  });

  it("profile: a 10,000-character bio is refused and nothing changes", async () => {
    const form = new FormData();
    form.set("name", "Test client");
    form.set("bio", long);
    const res = await fetch(`${server.baseUrl}/settings?tab=profile`, {
      method: "POST",
      redirect: "manual",
      body: form,
      headers: { Cookie: `soko_session=${tokens.client}`, Origin: server.baseUrl },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("A bio has at most 2,000 characters");
    expect((await stored()).bio).toBe("");
  });

  it("profile: a file that is not an image, even named .jpg, is refused", async () => {
    const form = new FormData();
    form.set("name", "Test client");
    form.set("avatar", new Blob(["<?php echo 'hi'; ?>"], { type: "image/jpeg" }), "photo.jpg");
    const res = await fetch(`${server.baseUrl}/settings?tab=profile`, {
      method: "POST",
      redirect: "manual",
      body: form,
      headers: { Cookie: `soko_session=${tokens.client}`, Origin: server.baseUrl },
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("Upload a JPEG, PNG or WebP image");
    expect((await stored()).avatar_key).toBeNull();
  });
});

describe("a body that is not a form gets a 4xx saying so, and nothing is stored (once a 500)", () => {
  const JSON_TYPE = "application/json";
  const json = (value: unknown) => ({ type: JSON_TYPE, body: JSON.stringify(value) });
  // A multipart body cut off before its closing boundary.
  const brokenMultipart = { type: "multipart/form-data; boundary=----soko", body: '------soko\r\nContent-Disposition: form-data; name="name"\r\n\r\nCut Off' };
  const counts = async () => ({
    users: await countUsers(),
    sessions: Number((await t.db("sessions").count<{ c: string }[]>({ c: "*" }).first())?.c),
    outbox: Number((await t.db("outbox").count<{ c: string }[]>({ c: "*" }).first())?.c),
  });
  const cases: [string, string, Who, Host, RequestOptions["raw"], number, string][] = [
    ["JSON sign-in", "/login", "anonymous", "main", json({ email: "client@example.ug", password: PASSWORD }), 415, "not JSON or plain text"],
    ["JSON admin sign-in", "/login", "anonymous", "admin", json({ email: "admin@example.ug", password: PASSWORD }), 415, "not JSON or plain text"],
    [
      "plain-text join",
      "/register",
      "anonymous",
      "main",
      { type: "text/plain", body: "name=Plain Text&email=plain@example.ug" },
      415,
      "not JSON or plain text",
    ],
    ["JSON seller join", "/freelancer/register", "anonymous", "main", json(validSeller), 415, "not JSON or plain text"],
    ["JSON reset request", "/forgot-password", "anonymous", "main", json({ email: "client@example.ug" }), 415, "not JSON or plain text"],
    [
      "JSON new password",
      "/reset-password",
      "anonymous",
      "main",
      json({ token: "x", password: "abcdefgh1", confirmPassword: "abcdefgh1" }),
      415,
      "not JSON or plain text",
    ],
    ["a body without a type", "/login", "anonymous", "main", { body: "email=client%40example.ug" }, 415, "not JSON or plain text"],
    ["a broken multipart sign-in", "/login", "anonymous", "main", brokenMultipart, 400, "This form could not be read"],
    [
      "URL-encoded profile (it carries a photo)",
      "/settings?tab=profile",
      "client",
      "main",
      { type: "application/x-www-form-urlencoded", body: "name=Url+Encoded" },
      415,
      "must be sent as multipart/form-data",
    ],
    ["a broken multipart profile", "/settings?tab=profile", "client", "main", brokenMultipart, 400, "This form could not be read"],
    ["JSON billing", "/settings?tab=billing", "client", "main", json({ mobileMoneyNumber: "+256772123456" }), 415, "not JSON or plain text"],
    ["JSON consent", "/consent", "anonymous", "main", json({ consent: "granted" }), 415, "not JSON or plain text"],
    ["JSON gig", "/gig/create", "freelancer", "main", json({ intent: "publish", title: "JSON gig" }), 415, "not JSON or plain text"],
    ["a broken multipart gig", "/gig/create", "freelancer", "main", brokenMultipart, 400, "This form could not be read"],
  ];
  for (const [title, path, who, host, raw, status, message] of cases) {
    it(title, async () => {
      const before = await counts();
      const profile = await t.db("users").where({ id: ids.client }).first();
      const res = await request(path, { method: "POST", who, host, raw, ip: "10.70.0.1" });
      expect(res.status).toBe(status);
      expect(await res.text()).toContain(message);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(await counts()).toEqual(before);
      expect(await t.db("users").where({ id: ids.client }).first()).toEqual(profile);
      expect(await t.db("gigs").where({ title: "JSON gig" }).first()).toBeUndefined();
    });
  }
});
