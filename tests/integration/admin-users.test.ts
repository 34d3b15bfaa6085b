/**
 * The admin's Users and Audit screens (ADR 017): the operations called directly (what is stored, what is
 * refused with nothing stored), then the screens through the real server with JavaScript off: filters and
 * paging, each action answered with 303 back to the listing, the delete confirmation page, bulk actions with
 * nothing or unknown members selected, the own-account guard, and the audit log with who, what, whom and
 * from which address.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { getSessionUser } from "~/models/session.server";
import { platform, postEntries, sellerAvailable } from "~/models/ledger.server";
import { bulkUserAction, changeUserStatus, deleteUser } from "~/operations/admin-users.server";

const OWN_ACCOUNT = messageOf({ code: "admin.own_account", params: {} });
import type { Actor, Client } from "~/operations/core.server";
import { DELETE_CONFIRMATION, NOTHING_SELECTED } from "~/schemas/admin";
import { getEnv } from "~/server/env.server";
import { closeRedis } from "~/server/redis.server";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createCategory, createGig, createSession, createUser, type TestUser, type UserOptions } from "../support/factories";
import { startTestServer, type TestServer } from "../support/test-server";
import { messageOf } from "~/content/operation-messages";
import { words } from "../support/words";

const { prefix } = vi.hoisted(() => {
  const prefix = `t_admusers_${process.pid}_${Date.now()}`;
  process.env.QUEUE_PREFIX = prefix;
  return { prefix };
});

let t: TestDatabase;
let server: TestServer;
const opts = () => ({ db: t.db });
const CLIENT: Client = { ip: "203.0.113.9", userAgent: "vitest", analyticsConsent: false, tabSessionId: null };

async function actorOf(u: TestUser): Promise<Extract<Actor, { kind: "member" }>> {
  const token = await createSession(t.db, u.id);
  return { kind: "member", user: (await getSessionUser(t.db, token))!, client: CLIENT };
}

let admin: TestUser;
let adminActor: Extract<Actor, { kind: "member" }>;
let adminCookie: string;

beforeAll(async () => {
  expect(getEnv().QUEUE_PREFIX).toBe(prefix);
  t = await createTestDatabase();
  admin = await createUser(t.db, { role: "admin", name: "Nakato Admin", username: "nakato_admin" });
  adminActor = await actorOf(admin);
  adminCookie = `soko_session=${await createSession(t.db, admin.id)}`;
  // The tests say where they come from (X-Forwarded-For), as a proxy in front of us would.
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: prefix, TRUST_PROXY: "loopback" });
});
afterAll(async () => {
  await server?.stop();
  await closeRedis();
  await t?.drop();
});

const member = (o: UserOptions = {}) => createUser(t.db, o);
const statusOf = async (id: number) => (await t.db("users").where({ id }).first("status")).status as string;
const sessionsOf = async (id: number) => Number((await t.db("sessions").where({ user_id: id }).count({ c: "*" }).first())!.c);
const auditOf = (id: number) =>
  t
    .db("admin_audit_log")
    .where({ target_type: "user", target_id: String(id) })
    .orderBy("id")
    .select("action", "admin_id", "admin_name", "ip", "details");

describe("changeUserStatus", () => {
  it("suspends an active member: their sessions end, and the audit row says who, what, whom and from where", async () => {
    const m = await member({ name: "Okello Sam" });
    await createSession(t.db, m.id);
    expect(await changeUserStatus(adminActor, { userId: m.id, action: "suspend" }, opts())).toEqual({ ok: true, value: { name: "Okello Sam" } });
    expect(await statusOf(m.id)).toBe("suspended");
    expect(await sessionsOf(m.id)).toBe(0);
    expect(await auditOf(m.id)).toEqual([
      { action: "user.suspend", admin_id: admin.id, admin_name: "Nakato Admin", ip: "203.0.113.9", details: { from: "active", to: "suspended" } },
    ]);
    // The transitions of docs/product.md: a suspended member is not suspended again; banned, then activated.
    expect(await changeUserStatus(adminActor, { userId: m.id, action: "suspend" }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "member.not_active",
      params: { name: "Okello Sam" },
    });
    expect((await changeUserStatus(adminActor, { userId: m.id, action: "ban" }, opts())).ok).toBe(true);
    expect(await changeUserStatus(adminActor, { userId: m.id, action: "ban" }, opts())).toMatchObject({
      ok: false,
      code: "member.already_banned",
      params: { name: "Okello Sam" },
    });
    expect((await changeUserStatus(adminActor, { userId: m.id, action: "activate" }, opts())).ok).toBe(true);
    expect(await changeUserStatus(adminActor, { userId: m.id, action: "activate" }, opts())).toMatchObject({
      ok: false,
      code: "member.already_active",
      params: { name: "Okello Sam" },
    });
    expect((await auditOf(m.id)).map((a) => a.action)).toEqual(["user.suspend", "user.ban", "user.activate"]);
  });

  it("refuses members, the admin's own account, and no such member, writing nothing", async () => {
    const m = await member();
    const other = await member();
    expect(await changeUserStatus(await actorOf(m), { userId: other.id, action: "ban" }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await changeUserStatus(adminActor, { userId: admin.id, action: "suspend" }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "admin.own_account",
    });
    expect(await changeUserStatus(adminActor, { userId: 987_654, action: "ban" }, opts())).toMatchObject({ ok: false, error: "not_found" });
    expect(await statusOf(other.id)).toBe("active");
    expect(await statusOf(admin.id)).toBe("active");
    expect(await auditOf(other.id)).toEqual([]);
    expect(await auditOf(admin.id)).toEqual([]);
  });

  it("never leaves the platform without an active admin: two admins suspending each other at once, one wins", async () => {
    const a = await member({ role: "admin" });
    const b = await member({ role: "admin" });
    // Only these two are active admins for this test.
    await t.db("users").where({ id: admin.id }).update({ status: "suspended" });
    try {
      const [actorA, actorB] = await Promise.all([actorOf(a), actorOf(b)]);
      const results = await Promise.all([
        changeUserStatus(actorA, { userId: b.id, action: "suspend" }, opts()),
        changeUserStatus(actorB, { userId: a.id, action: "suspend" }, opts()),
      ]);
      expect(results.filter((r) => r.ok)).toHaveLength(1);
      expect(results.find((r) => !r.ok)).toMatchObject({ error: "forbidden", code: "admin.no_longer_active" });
      expect([await statusOf(a.id), await statusOf(b.id)].sort()).toEqual(["active", "suspended"]);
    } finally {
      await t.db("users").where({ id: admin.id }).update({ status: "active" });
    }
  });
});

describe("bulkUserAction", () => {
  it("refuses an empty selection with its code, whose words are the form's own", async () => {
    expect(await bulkUserAction(adminActor, { userIds: [], action: "suspend" }, opts())).toEqual({
      ok: false,
      error: "invalid",
      issues: { userIds: [{ code: "admin.nothing_selected", params: {} }] },
    });
    expect(messageOf({ code: "admin.nothing_selected", params: {} })).toBe(words(NOTHING_SELECTED));
    expect(messageOf({ code: "admin.nothing_selected", params: {} }, "sw")).toBe(words(NOTHING_SELECTED, "sw"));
  });

  it("changes every selected member in one go, leaving those it does not apply to, each audited", async () => {
    const [a, b, c] = [await member(), await member({ status: "suspended" }), await member({ status: "banned" })];
    expect(await bulkUserAction(adminActor, { userIds: [a.id, b.id, c.id], action: "activate" }, opts())).toEqual({
      ok: true,
      value: { changed: 2, skipped: 1 },
    });
    expect([await statusOf(a.id), await statusOf(b.id), await statusOf(c.id)]).toEqual(["active", "active", "active"]);
    expect((await auditOf(b.id))[0]).toMatchObject({ action: "user.activate", details: { from: "suspended", to: "active", bulk: true } });
    expect(await auditOf(a.id)).toEqual([]);
  });

  it("refuses the whole batch, naming them, when an id is unknown or deleted, or is the admin's own: nothing changes", async () => {
    const [a, b] = [await member(), await member()];
    const gone = await member();
    expect((await deleteUser(adminActor, { userId: gone.id }, opts())).ok).toBe(true);
    expect(await bulkUserAction(adminActor, { userIds: [a.id, 999_999, gone.id, b.id], action: "ban" }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "member.unknown",
      params: { ids: [999_999, gone.id] },
    });
    expect(messageOf({ code: "member.unknown", params: { ids: [999_999, gone.id] } })).toBe(`No such members: #999999, #${gone.id}. Nothing was changed.`);
    expect(await bulkUserAction(adminActor, { userIds: [a.id, admin.id], action: "suspend" }, opts())).toMatchObject({
      ok: false,
      code: "admin.own_account",
      params: { batch: true },
    });
    expect(messageOf({ code: "admin.own_account", params: { batch: true } })).toBe(`${OWN_ACCOUNT} Nothing was changed.`);
    expect([await statusOf(a.id), await statusOf(b.id)]).toEqual(["active", "active"]);
    expect([...(await auditOf(a.id)), ...(await auditOf(b.id))]).toEqual([]);
  });
});

describe("deleteUser", () => {
  it("wipes the person but keeps the row: placeholder name and email, no password or sessions, gigs out of the catalogue, audited", async () => {
    const seller = await member({ role: "freelancer", name: "Achieng Grace", email: "grace@example.ug" });
    await createSession(t.db, seller.id);
    const category = await createCategory(t.db, { slug: "design-del", name: "Design del" });
    const gig = await createGig(t.db, { sellerId: seller.id, categoryId: category.id, title: "Logo for your shop", status: "published" } as never);
    expect(await deleteUser(adminActor, { userId: seller.id }, opts())).toEqual({ ok: true, value: null });
    const row = await t.db("users").where({ id: seller.id }).first();
    expect(row).toMatchObject({
      name: "Deleted member",
      username: `deleted_${seller.id}`,
      email: `deleted-${seller.id}@deleted.invalid`,
      password_hash: null,
      status: "banned",
    });
    expect(row.deleted_at).toBeInstanceOf(Date);
    expect(await sessionsOf(seller.id)).toBe(0);
    expect((await t.db("gigs").where({ id: gig.id }).first("status")).status).not.toBe("published");
    expect(await auditOf(seller.id)).toEqual([
      { action: "user.delete", admin_id: admin.id, admin_name: "Nakato Admin", ip: "203.0.113.9", details: { role: "freelancer", from: "active" } },
    ]);
    // Gone for good: not deleted twice, never activated again.
    expect(await deleteUser(adminActor, { userId: seller.id }, opts())).toMatchObject({ ok: false, error: "not_found" });
    expect(await changeUserStatus(adminActor, { userId: seller.id, action: "activate" }, opts())).toMatchObject({
      ok: false,
      error: "conflict",
      code: "member.deleted",
      params: { name: "Deleted member" },
    });
  });

  it("refuses while the member has an order under way (escrow needs both parties), and allows it once the order is done", async () => {
    const buyer = await member({ name: "Busy Buyer" });
    const seller = await member({ role: "freelancer" });
    // An order row as checkout leaves one once paid (arranged directly: the refusal is under test, not checkout).
    const [order] = await t
      .db("orders")
      .insert({
        buyer_id: buyer.id,
        seller_id: seller.id,
        gig_title: "Menu board",
        tier: "basic",
        package_name: "Basic",
        price_ugx: 50_000,
        buyer_fee_ugx: 2_500,
        seller_fee_ugx: 10_000,
        ugx_per_usd: 3700,
        delivery_days: 3,
        revisions_allowed: 1,
        status: "in_progress",
        checkout_key: "open-order-key-1",
      })
      .returning("id");
    for (const id of [buyer.id, seller.id]) {
      expect(await deleteUser(adminActor, { userId: id }, opts())).toMatchObject({ ok: false, error: "conflict", code: "member.open_orders" });
      expect(await t.db("users").where({ id }).first("deleted_at", "status")).toEqual({ deleted_at: null, status: "active" });
      expect(await auditOf(id)).toEqual([]);
    }
    await t.db("orders").where({ id: order.id }).update({ status: "completed" });
    expect((await deleteUser(adminActor, { userId: buyer.id }, opts())).ok).toBe(true);
    // The order still names its (now anonymous) buyer.
    expect(await t.db("orders as o").join("users as u", "u.id", "o.buyer_id").where("o.id", order.id).first("u.name")).toEqual({ name: "Deleted member" });
    // The seller has earnings waiting: those must be paid out first (the payout number goes with the account).
    await postEntries(t.db, {
      key: `test-earnings-${seller.id}`,
      kind: "test",
      postings: [
        { account: platform.clearing, amountUgx: -40_000 },
        { account: sellerAvailable(seller.id), amountUgx: 40_000 },
      ],
    });
    expect(await deleteUser(adminActor, { userId: seller.id }, opts())).toMatchObject({ ok: false, error: "conflict", code: "member.money_held" });
    expect(await t.db("users").where({ id: seller.id }).first("deleted_at")).toEqual({ deleted_at: null });
  });

  it("refuses the admin's own account and a member's attempt", async () => {
    const m = await member();
    expect(await deleteUser(adminActor, { userId: admin.id }, opts())).toMatchObject({ ok: false, code: "admin.own_account" });
    expect(await deleteUser(await actorOf(m), { userId: admin.id }, opts())).toMatchObject({ ok: false, error: "forbidden" });
    expect(await t.db("users").whereNotNull("deleted_at").whereIn("id", [admin.id, m.id]).count({ c: "*" }).first()).toEqual({ c: 0 });
  });
});

/** A request to the test server as a visitor of one host (a Host header: Node's fetch cannot set one). */
function request(
  host: "main" | "admin",
  method: "GET" | "POST",
  target: string,
  { cookie = adminCookie, form }: { cookie?: string | null; form?: [string, string][] } = {},
) {
  const origin = host === "admin" ? server.adminUrl : server.baseUrl;
  const body = form ? new URLSearchParams(form).toString() : undefined;
  const headers: Record<string, string> = { Host: new URL(origin).host, Origin: origin, "X-Forwarded-For": "198.51.100.77" };
  if (cookie) headers.Cookie = cookie;
  if (body) headers["Content-Type"] = "application/x-www-form-urlencoded";
  return new Promise<{ status: number; location: string | undefined; body: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, method, path: target, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => (text += chunk));
      res.on("end", () =>
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: text.replace(/<!-- -->/g, "").replace(/&#x27;/g, "'") }),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** The names in the members table, in order. */
const namesIn = (html: string) => [...html.matchAll(/<th scope="row"[^>]*>([^<]*)<\/th>/g)].map((m) => m[1]);

describe("the Users screen without JavaScript", () => {
  let amina: TestUser;
  let brian: TestUser;
  beforeAll(async () => {
    amina = await member({ name: "Amina Screen", username: "amina_screen", email: "amina.s@example.ug", role: "client" });
    brian = await member({ name: "Brian Screen", username: "bri_screen", email: "brian@mail.example.ug", role: "freelancer", status: "suspended" });
  });

  it("finds members by name, email or username, filtered by role and status; says when none match", async () => {
    for (const q of ["amina scr", "AMINA.S@", "amina_screen"]) {
      const page = await request("main", "GET", `/admin/users?${new URLSearchParams({ q })}`);
      expect(page.status).toBe(200);
      expect(namesIn(page.body)).toEqual(["Amina Screen"]);
    }
    expect(namesIn((await request("admin", "GET", "/users?q=screen&role=freelancer")).body)).toEqual(["Brian Screen"]);
    expect(namesIn((await request("admin", "GET", "/users?q=screen&status=active")).body)).toEqual(["Amina Screen"]);
    // The query names other links may use (`search`, `role`, `status`) work as well, and the form then shows the search.
    const spec = await request("admin", "GET", "/users?search=screen&role=freelancer&status=suspended");
    expect(namesIn(spec.body)).toEqual(["Brian Screen"]);
    expect(spec.body.match(/<input id="users-q"[^>]*>/)?.[0]).toContain(`value="screen"`);
    expect(namesIn((await request("main", "GET", "/admin/users?search=amina")).body)).toEqual(["Amina Screen"]);
    const none = await request("admin", "GET", "/users?q=nobody-at-all");
    expect(none.body).toContain("No users found");
    expect(namesIn(none.body)).toEqual([]);
    // The row shows what docs/product.md lists, and only the actions the member's status allows.
    const row = /<tr>(?:(?!<\/tr>).)*Brian Screen(?:(?!<\/tr>).)*<\/tr>/s.exec((await request("admin", "GET", "/users?q=bri_screen")).body)![0];
    for (const text of [
      "brian@mail.example.ug",
      "bri_screen",
      "Freelancer",
      "Suspended",
      "Never",
      "Ban Brian Screen",
      "Activate Brian Screen",
      "Delete Brian Screen",
    ])
      expect(row).toContain(text);
    expect(row).not.toContain("Suspend Brian Screen");
  });

  it("answers a bad filter with 400 and the message beside its field", async () => {
    const page = await request("admin", "GET", "/users?status=sleeping");
    expect(page.status).toBe(400);
    expect(page.body).toMatch(/id="users-status-error"[^>]*>.*Choose active, suspended, banned or deleted/s);
  });

  it("pages through many members, keeping the filters", async () => {
    for (let i = 0; i < 23; i++) await member({ name: `Pager Person ${String(i).padStart(2, "0")}`, username: `pager_${i}` });
    const first = await request("admin", "GET", "/users?q=pager");
    expect(namesIn(first.body)).toHaveLength(20);
    expect(first.body).toContain("23 members");
    expect(first.body).toContain("Page 1 of 2");
    expect(first.body).toContain('href="/users?q=pager&amp;page=2"');
    const second = await request("admin", "GET", "/users?q=pager&page=2");
    expect(namesIn(second.body)).toEqual(["Pager Person 02", "Pager Person 01", "Pager Person 00"]);
  });

  it("suspends a member (303 back to the listing with a notice), and their next request goes to sign in", async () => {
    const m = await member({ name: "Wasswa Screen", username: "wasswa_screen" });
    const cookie = `soko_session=${await createSession(t.db, m.id)}`;
    expect((await request("main", "GET", "/dashboard", { cookie })).status).toBe(200);
    const res = await request("main", "POST", "/admin/users?q=wasswa", {
      form: [
        ["intent", "suspend"],
        ["userId", String(m.id)],
      ],
    });
    expect(res.status).toBe(303);
    expect(res.location).toBe(`/admin/users?q=wasswa&done=suspend&who=${m.id}`);
    expect((await request("main", "GET", res.location!)).body).toContain("Wasswa Screen was suspended.");
    expect(await statusOf(m.id)).toBe("suspended");
    expect(await request("main", "GET", "/dashboard", { cookie })).toMatchObject({ status: 302, location: "/login?redirectTo=%2Fdashboard" });
    // From the audit row: the address the request came from.
    expect((await auditOf(m.id))[0]).toMatchObject({ action: "user.suspend", ip: "198.51.100.77" });
  });

  it("deletes only after the confirmation page", async () => {
    const m = await member({ name: "Kato Screen", username: "kato_screen" });
    const asked = await request("admin", "POST", "/users?q=kato", {
      form: [
        ["intent", "delete"],
        ["userId", String(m.id)],
      ],
    });
    expect(asked).toMatchObject({ status: 303, location: `/users?q=kato&confirm=delete&id=${m.id}` });
    expect(await t.db("users").where({ id: m.id }).first("deleted_at")).toEqual({ deleted_at: null });
    const confirm = await request("admin", "GET", asked.location!);
    expect(confirm.body).toContain(words(DELETE_CONFIRMATION));
    expect(confirm.body).toContain("Delete Kato Screen?");
    const done = await request("admin", "POST", "/users?q=kato", {
      form: [
        ["intent", "delete"],
        ["userId", String(m.id)],
        ["confirm", "yes"],
      ],
    });
    expect(done).toMatchObject({ status: 303, location: `/users?q=kato&done=delete&who=${m.id}` });
    expect((await request("admin", "GET", done.location!)).body).toContain("The member was deleted.");
    expect((await t.db("users").where({ id: m.id }).first("name")).name).toBe("Deleted member");
    expect(namesIn((await request("admin", "GET", "/users?q=kato_screen")).body)).toEqual([]);
    expect(namesIn((await request("admin", "GET", `/users?member=${m.id}`)).body)).toEqual(["Deleted member"]);
  });

  it("bulk: refuses nothing selected and unknown members (nothing changes), activates a selection", async () => {
    const nothing = await request("admin", "POST", "/users", {
      form: [
        ["intent", "bulk"],
        ["action", "ban"],
      ],
    });
    expect(nothing.status).toBe(400);
    expect(nothing.body).toContain(words(NOTHING_SELECTED));
    const unknown = await request("admin", "POST", "/users", {
      form: [
        ["intent", "bulk"],
        ["action", "ban"],
        ["userIds", String(amina.id)],
        ["userIds", "424242"],
      ],
    });
    expect(unknown.status).toBe(409);
    expect(unknown.body).toContain("No such members: #424242. Nothing was changed.");
    expect(await statusOf(amina.id)).toBe("active");
    const forged = await request("admin", "POST", "/users", {
      form: [
        ["intent", "bulk"],
        ["action", "ban"],
        ["userIds", "1; DROP TABLE users"],
      ],
    });
    expect(forged.status).toBe(400);
    expect(forged.body).toContain("Choose members from the list");
    const ok = await request("admin", "POST", "/users?status=suspended", {
      form: [
        ["intent", "bulk"],
        ["action", "activate"],
        ["userIds", String(brian.id)],
        ["userIds", String(amina.id)],
      ],
    });
    expect(ok).toMatchObject({ status: 303, location: "/users?status=suspended&done=bulk-activate&changed=1&skipped=1" });
    expect((await request("admin", "GET", ok.location!)).body).toContain("1 member activated. 1 member left as they were (already so).");
    expect(await statusOf(brian.id)).toBe("active");
  });

  it("refuses the admin's own account with 409 and the reason; a bad action with 400", async () => {
    const own = await request("admin", "POST", "/users", {
      form: [
        ["intent", "ban"],
        ["userId", String(admin.id)],
      ],
    });
    expect(own.status).toBe(409);
    expect(own.body).toContain(OWN_ACCOUNT);
    // A refusal about a member shows in that member's row.
    const suspended = await member({ name: "Already Suspended", username: "already_susp", status: "suspended" });
    const again = await request("admin", "POST", "/users?q=already_susp", {
      form: [
        ["intent", "suspend"],
        ["userId", String(suspended.id)],
      ],
    });
    expect(again.status).toBe(409);
    expect(again.body).toMatch(new RegExp(`<ul id="user-${suspended.id}-error"[^>]*><li>Already Suspended is not active, so cannot be suspended.</li>`));
    expect(await statusOf(admin.id)).toBe("active");
    expect(
      (
        await request("admin", "POST", "/users", {
          form: [
            ["intent", "promote"],
            ["userId", String(amina.id)],
          ],
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await request("admin", "POST", "/users", {
          form: [
            ["intent", "ban"],
            ["userId", "abc"],
          ],
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await request("admin", "POST", "/users", {
          form: [
            ["intent", "ban"],
            ["userId", "777777"],
          ],
        })
      ).status,
    ).toBe(404);
  });
});

describe("the audit screen", () => {
  it("lists the log newest first with admin, action, target (linked), details and IP; filters by action and admin", async () => {
    const m = await member({ name: "Audit Target", username: "audit_target" });
    expect((await changeUserStatus(adminActor, { userId: m.id, action: "ban" }, opts())).ok).toBe(true);
    for (const [host, path, link] of [
      ["main", "/admin/audit", `/admin/users?member=${m.id}`],
      ["admin", "/audit", `/users?member=${m.id}`],
    ] as const) {
      const page = await request(host, "GET", path);
      expect(page.status).toBe(200);
      const first = /<tbody>\s*<tr>(.*?)<\/tr>/s.exec(page.body)![1]!;
      expect(first).toContain("Nakato Admin");
      expect(first).toContain("Banned a member");
      expect(first).toContain(`href="${link}"`);
      expect(first).toContain(`Audit Target (#${m.id})`);
      expect(first).toContain("from: active");
      expect(first).toContain("203.0.113.9");
    }
    const deletes = await request("admin", "GET", "/audit?action=user.delete");
    expect(deletes.body).toContain("Deleted a member");
    expect(deletes.body).not.toContain("Banned a member</");
    const other = await member({ role: "admin", name: "Other Admin" });
    const none = await request("admin", "GET", `/audit?admin=${other.id}`);
    expect(none.body).toContain("No audit entries found");
    expect((await request("admin", "GET", "/audit?action=DROP")).status).toBe(400);
  });
});
