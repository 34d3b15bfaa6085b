/**
 * The dashboard, through the real server: the stat cards, the money panels and the profile-completion panel
 * are computed from the member's own rows (orders and the ledger for the money), and change when those
 * rows do.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveDispute } from "~/operations/disputes.server";
import { openDispute, runOrderTimers } from "~/operations/orders.server";
import { createCategory, createGig, createSession, createUser } from "../support/factories";
import { completedTestOrder, memberActor, opts, orderTestContext, paidTestOrder, system } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

// Orders are brought to their states by the operations in this process, on the server's sandbox.
const t = orderTestContext("dashboard");
let server: TestServer;

beforeAll(async () => {
  await createCategory(t.db, { slug: "graphic-design", name: "Graphic Design" });
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1" });
});
afterAll(async () => {
  await server?.stop();
});

/** Joins through the form, as a person would, and answers the session cookie. */
async function join(path: "/register" | "/freelancer/register", body: Record<string, string>): Promise<string> {
  const res = await fetch(`${server.baseUrl}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { Origin: server.baseUrl },
    body: new URLSearchParams({ password: "dashboard-pass-1", confirmPassword: "dashboard-pass-1", ...body }),
  });
  expect(res.headers.get("location")).toBe("/dashboard");
  return res.headers.get("set-cookie")!.split(";")[0]!;
}

/**
 * What the dashboard shows: the stat cards by label, the completion percentage and the missing fields. The
 * page's HTML is read without its scripts, whose loader data carry the page's whole catalogue of words (ADR 047).
 */
async function dashboard(cookie: string) {
  const res = await fetch(`${server.baseUrl}/dashboard`, { headers: { Cookie: cookie } });
  expect(res.status).toBe(200);
  const html = (await res.text()).replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, "").replace(/<!-- -->/g, "");
  const stats = Object.fromEntries(
    [...html.matchAll(/<span class="stat-value">([^<]*)<\/span><span class="stat-label">([^<]*)<\/span>/g)].map((m) => [m[2], m[1]]),
  );
  const money = Object.fromEntries([...html.matchAll(/<dt>([^<]*)<\/dt><dd>([^<]*)<\/dd>/g)].map((m) => [m[1], m[2]]));
  const percent = Number(/<strong>(\d+)%<\/strong> complete/.exec(html)?.[1]);
  const missingList = /<p>Still missing:<\/p><ul>(.*?)<\/ul>/.exec(html)?.[1] ?? "";
  const missing = [...missingList.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]);
  return { html, stats, money, percent, missing };
}

async function saveProfile(cookie: string, fields: Record<string, string>) {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.set(name, value);
  const res = await fetch(`${server.baseUrl}/settings?tab=profile`, {
    method: "POST",
    redirect: "manual",
    body: form,
    headers: { Cookie: cookie, Origin: server.baseUrl },
  });
  expect(res.headers.get("location")).toBe("/settings?tab=profile&saved=1");
}

/** A published gig of the seller's, as the gig form saves one. */
function publish(sellerId: number, title: string) {
  const basic = { name: "Starter", description: "One concept", priceUgx: 50_000, deliveryDays: 7, revisions: 1 };
  return createGig(t.db, { sellerId, category: "graphic-design", title, description: "What the buyer gets.", packages: { basic } });
}

describe("a freelancer's dashboard", () => {
  let cookie: string;
  let sellerId: number;

  beforeAll(async () => {
    cookie = await join("/freelancer/register", {
      name: "Wasswa Brian",
      email: "wasswa@example.ug",
      skills: "Illustration",
      description: "Children's book illustrator.",
      terms: "on",
    });
    sellerId = (await t.db("users").where({ email: "wasswa@example.ug" }).first("id")).id;
  });

  it("counts profile completion from the fields filled in, and names the missing ones", async () => {
    // Joined with name, skills and a description (the bio): 3 of 7.
    let d = await dashboard(cookie);
    expect(d.percent).toBe(43);
    expect(d.missing).toEqual(["Profile photo", "Location", "Languages", "Mobile money number"]);

    await saveProfile(cookie, {
      name: "Wasswa Brian",
      bio: "Children's book illustrator.",
      location: "Mbarara, Uganda",
      skills: "Illustration",
      languages: "English, Runyankole",
    });
    d = await dashboard(cookie);
    expect(d.percent).toBe(71);
    expect(d.missing).toEqual(["Profile photo", "Mobile money number"]);

    await t.db("users").where({ id: sellerId }).update({ mobile_money_number: "+256772000111" });
    d = await dashboard(cookie);
    expect(d.percent).toBe(86);
    expect(d.missing).toEqual(["Profile photo"]);

    // Emptying a field brings its name back.
    await saveProfile(cookie, { name: "Wasswa Brian", bio: "", location: "Mbarara, Uganda", skills: "Illustration", languages: "English, Runyankole" });
    d = await dashboard(cookie);
    expect(d.percent).toBe(71);
    expect(d.missing).toEqual(["Profile photo", "Bio"]);
  });

  it("counts published gigs only, and lists every gig with its status and an Edit link", async () => {
    expect((await dashboard(cookie)).stats).toEqual({ "Published gigs": "0", "Active orders": "0", Earnings: "UGX 0", Rating: "0.0" });
    const first = await publish(sellerId, "Storybook illustration");
    const second = await publish(sellerId, "Colouring book pages");
    const draft = await createGig(t.db, { sellerId, category: "graphic-design", title: "Comic strip (draft)", status: "draft", packages: {} });
    const d = await dashboard(cookie);
    expect(d.stats["Published gigs"]).toBe("2");
    for (const { id } of [first, second, draft]) expect(d.html).toContain(`href="/gig/${id}/edit"`);
    expect(d.html).toMatch(/Comic strip \(draft\) <span class="status-badge">Draft<\/span>/);
    expect(d.html).toMatch(/>Storybook illustration<\/a> <span class="status-badge">Published<\/span>/);

    await t.db("gigs").where({ id: first.id }).update({ status: "paused" });
    expect((await dashboard(cookie)).stats["Published gigs"]).toBe("1");
  });
});

describe("a client's dashboard", () => {
  it("shows the client's own cards, with the sellers they saved counted", async () => {
    const cookie = await join("/register", { name: "Akello Joan", email: "akello@example.ug" });
    let d = await dashboard(cookie);
    expect(d.stats).toEqual({ "Active orders": "0", "Completed orders": "0", "Total spent": "UGX 0", "Saved sellers": "0" });
    // A client's profile has five fields; joining fills the name.
    expect(d.percent).toBe(20);
    expect(d.missing).toEqual(["Profile photo", "Bio", "Location", "Languages"]);

    const client = await t.db("users").where({ email: "akello@example.ug" }).first("id");
    const sellers = [await createUser(t.db, { role: "freelancer", name: "Seller One" }), await createUser(t.db, { role: "freelancer", name: "Seller Two" })];
    await t.db("saved_sellers").insert(sellers.map((s) => ({ user_id: client.id, seller_id: s.id })));
    d = await dashboard(cookie);
    expect(d.stats["Saved sellers"]).toBe("2");
  });
});

describe("the money on the dashboard", () => {
  const day = 24 * 60 * 60 * 1000;

  it("shows a seller's active orders, earnings, and balance moving from pending clearance to available", async () => {
    const seller = await createUser(t.db, { role: "freelancer", name: "Nambi Grace" });
    const buyer = await createUser(t.db, { role: "client" });
    const cookie = `soko_session=${await createSession(t.db, seller.id)}`;
    const gig = await publish(seller.id, "Wedding invitation cards");

    // Before any order: zero everywhere, and no Billing number to withdraw to.
    let d = await dashboard(cookie);
    expect(d.stats).toMatchObject({ "Active orders": "0", Earnings: "UGX 0" });
    expect(d.money).toEqual({ "Pending clearance": "UGX 0", "Available to withdraw": "UGX 0", "In transit": "UGX 0" });
    expect(d.html).toContain('href="/settings?tab=billing"');
    expect(d.html).not.toContain("Withdraw to");

    // One order under way, one completed: UGX 50,000 less the 20% fee is earned and waits 14 days.
    await t.db("users").where({ id: seller.id }).update({ mobile_money_number: "+256772000222", payout_number_verified_at: new Date() });
    await paidTestOrder(t, buyer, gig.id);
    const { orderId } = await completedTestOrder(t, buyer, seller, gig.id);
    d = await dashboard(cookie);
    expect(d.stats).toMatchObject({ "Active orders": "1", Earnings: "UGX 40,000" });
    expect(d.money).toEqual({ "Pending clearance": "UGX 40,000", "Available to withdraw": "UGX 0", "In transit": "UGX 0" });
    expect(d.html).toContain("Nothing to withdraw yet");

    // Fifteen days on, the earnings clear: available, and the withdraw form offers all of it.
    expect(await runOrderTimers(system, { ...opts(t), now: () => new Date(Date.now() + 15 * day) })).toMatchObject({ ok: true, value: { cleared: 1 } });
    expect(await t.db("orders").where({ id: orderId }).first("cleared_at")).toMatchObject({ cleared_at: expect.any(Date) });
    d = await dashboard(cookie);
    expect(d.stats).toMatchObject({ "Active orders": "1", Earnings: "UGX 40,000" });
    expect(d.money).toEqual({ "Pending clearance": "UGX 0", "Available to withdraw": "UGX 40,000", "In transit": "UGX 0" });
    expect(d.html).toMatch(/<input[^>]*name="amountUgx"[^>]*value="40000"/);
    expect(d.html).toContain("Withdraw to +256 772 000 222");
  });

  it("shows a client's active and completed orders, what they spent, and a refund on its way", async () => {
    const seller = await createUser(t.db, { role: "freelancer" });
    const buyer = await createUser(t.db, { role: "client", name: "Atim Sarah" });
    const admin = await createUser(t.db, { role: "admin" });
    const cookie = `soko_session=${await createSession(t.db, buyer.id)}`;
    const gig = await publish(seller.id, "Company profile design");

    await paidTestOrder(t, buyer, gig.id);
    await completedTestOrder(t, buyer, seller, gig.id);
    let d = await dashboard(cookie);
    // Each order costs UGX 50,000 and the 5% fee (UGX 2,500).
    expect(d.stats).toMatchObject({ "Active orders": "1", "Completed orders": "1", "Total spent": "UGX 105,000" });
    expect(d.html).not.toContain("Refunds</h2>");

    // A third order refunded after a dispute: not spent, and its refund shows until it is paid.
    const { orderId } = await paidTestOrder(t, buyer, gig.id);
    expect((await openDispute(memberActor(buyer), { orderId, reason: "Nothing was started" }, opts(t))).ok).toBe(true);
    expect((await resolveDispute(memberActor(admin), { orderId, resolution: "refund", note: "Nothing was started" }, opts(t))).ok).toBe(true);
    d = await dashboard(cookie);
    expect(d.stats).toMatchObject({ "Active orders": "1", "Completed orders": "1", "Total spent": "UGX 105,000" });
    expect(d.html).toContain("Refunds</h2>");
    expect(d.html).toMatch(/<strong>UGX 52,500<\/strong> is on its way back/);
    expect(d.html).toMatch(/UGX 52,500 <span class="status-badge payout-in_transit">In transit<\/span>/);
  });
});
