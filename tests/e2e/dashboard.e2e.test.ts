/**
 * The dashboard on a 360×740 phone, with JavaScript on and off: "Needs your attention" comes first after the
 * greeting and lists exactly what waits for the member, each with a link that works (a client: an order to
 * pay, a delivery to answer with the day it completes by itself, a dispute, unread messages; a freelancer:
 * work due soon and late with their due days, the dispute, unread messages); a member with nothing waiting
 * sees the empty state; sign-ins in a row are one line of the activity. Orders are brought to their states
 * through the operations (checkout and the order page have their own specs).
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { deliverOrder, openDispute } from "~/operations/orders.server";
import { formatDay, formatDayTime } from "~/utils/dates";
import { AUTO_COMPLETE_MS } from "~/domain/order-rules";
import { appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { memberActor, paidTestOrder, placeTestOrder, testProviders } from "../support/orders";

const DAY = 24 * 60 * 60 * 1000;
const PHONE = { width: 360, height: 740 };

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

/** The member's own browser at 360×740 (a context of its own, as the pass has JavaScript), signed in, on /dashboard. */
async function dashboardOf(mode: Mode, who: TestUser): Promise<{ page: Page; close: () => Promise<void> }> {
  const context = await mode.context().browser()!.newContext({ javaScriptEnabled: mode.js, viewport: PHONE });
  context.setDefaultTimeout(10_000);
  await context.addCookies([{ name: "soko_session", value: await createSession(e2eDb(), who.id), url: appUrl("/") }]);
  const page = await context.newPage();
  await page.goto(appUrl("/dashboard"));
  await waitForHydration(page, mode);
  return { page, close: () => context.close() };
}

const attention = (page: Page) => page.getByRole("region", { name: "Needs your attention" });

/** Each item of the section: its words, and its action links (name and address). */
async function items(page: Page) {
  return attention(page)
    .getByRole("list", { name: "Needs your attention" })
    .locator(":scope > li")
    .evaluateAll((lis) =>
      lis.map((li) => ({
        text: (li.querySelector(":scope > p")?.textContent ?? "").replace(/\s+/g, " ").trim(),
        links: [...li.querySelectorAll("a")].map((a) => `${a.textContent!.replace(/\s+/g, " ").trim()} → ${a.getAttribute("href")}`),
      })),
    );
}

/** The section sits right after the greeting and starts on the first screen; nothing is wider than the phone. */
async function expectLeads(page: Page) {
  const next = await page.locator("h1#dashboard-title").evaluate((h1) => {
    let el = h1.nextElementSibling;
    while (el && el.getAttribute("role") === "status") el = el.nextElementSibling;
    return el?.getAttribute("aria-labelledby");
  });
  expect(next).toBe("attention-title");
  const box = (await attention(page).boundingBox())!;
  expect(box.y + 40).toBeLessThan(PHONE.height);
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(PHONE.width);
}

describeBothModes("Dashboard", (mode) => {
  const tag = randomBytes(4).toString("hex");
  const title = `Logo in 24 hours ${tag}`;
  let client: TestUser;
  let seller: TestUser;
  const o = { unpaid: 0, delivered: 0, dueSoon: 0, late: 0, disputed: 0, later: 0 };
  let deliveredAt: Date;
  let dueSoonAt: Date;
  let lateAt: Date;
  let conversationId: string;

  beforeAll(async () => {
    const db = e2eDb();
    const c = { db, providers: providers.providers, sandbox: providers.sandbox };
    seller = await createUser(db, { role: "freelancer", name: `Okot Designs ${tag}`, username: `okot_${tag}` });
    client = await createUser(db, { role: "client", name: `Akello Joan ${tag}`, username: `akello_${tag}` });
    const gig = await createGig(db, { sellerId: seller.id, category: "graphics-design", title, packages: { basic: { priceUgx: 40_000, deliveryDays: 7 } } });
    o.unpaid = (await placeTestOrder(c, client, gig.id)).orderId;
    o.delivered = (await paidTestOrder(c, client, gig.id)).orderId;
    expect((await deliverOrder(memberActor(seller), { orderId: o.delivered, message: "Your logo" }, { db })).ok).toBe(true);
    o.dueSoon = (await paidTestOrder(c, client, gig.id)).orderId;
    o.late = (await paidTestOrder(c, client, gig.id)).orderId;
    o.disputed = (await paidTestOrder(c, client, gig.id)).orderId;
    o.later = (await paidTestOrder(c, client, gig.id)).orderId; // due in seven days: nothing to say yet
    dueSoonAt = new Date(Date.now() + DAY);
    lateAt = new Date(Date.now() - 2 * DAY);
    await db("orders").where({ id: o.dueSoon }).update({ due_at: dueSoonAt });
    await db("orders").where({ id: o.late }).update({ due_at: lateAt });
    expect((await openDispute(memberActor(client), { orderId: o.disputed, reason: "Nothing has started" }, { db })).ok).toBe(true);
    deliveredAt = (await db("orders").where({ id: o.delivered }).first("delivered_at")).delivered_at;

    // One conversation, about the gig: two messages from the seller (the client's unread), one from the client (the seller's).
    const started = await startConversation(memberActor(client), { gigId: gig.id }, { db });
    if (!started.ok) throw new Error(JSON.stringify(started));
    conversationId = started.value.conversationId;
    for (const [from, body] of [
      [seller, "Your logo is ready"],
      [seller, "Tell me what you think"],
      [client, "Thank you, looking now"],
    ] as const) {
      expect((await sendMessage(memberActor(from), { conversationId, body, clientId: randomBytes(8).toString("hex") }, { db })).ok).toBe(true);
    }

    // The seller's (whose activity has nothing else): five sign-ins in a row, then a profile change, then two more.
    const at = (minutes: number) => new Date(Date.now() - (60 - minutes) * 60_000);
    const rows = [
      ...[1, 2, 3, 4, 5].map((m) => ["signed_in", m] as const),
      ["profile_updated", 6] as const,
      ["signed_in", 7] as const,
      ["signed_in", 8] as const,
    ];
    for (const [kind, m] of rows) await db("activity").insert({ user_id: seller.id, kind, details: "{}", created_at: at(m) });
  });

  it("leads a client to the order to pay, the delivery to answer, the dispute and the unread messages, each link working", async () => {
    const { page, close } = await dashboardOf(mode, client);
    try {
      await expectLeads(page);
      expect(await items(page)).toEqual([
        { text: `“${title}” from ${seller.name} is waiting for your payment.`, links: [`Pay “${title}” → /orders/${o.unpaid}/pay`] },
        {
          text: `“${title}” was delivered by ${seller.name}. It completes by itself on ${formatDay(new Date(deliveredAt.getTime() + AUTO_COMPLETE_MS))} unless you ask for changes.`,
          links: [`Review the delivery “${title}” → /orders/${o.delivered}`],
        },
        { text: `“${title}” is in dispute: an admin will decide what happens to the payment.`, links: [`See the dispute “${title}” → /orders/${o.disputed}`] },
        { text: "2 unread messages", links: [`${seller.name} about “${title}”: 2 new → /messages/${conversationId}`] },
      ]);

      // Each link leads where it says.
      await attention(page)
        .getByRole("link", { name: `Pay “${title}”` })
        .click();
      await page.waitForURL(appUrl(`/orders/${o.unpaid}/pay`));
      await page.goBack();
      await waitForHydration(page, mode);
      await attention(page)
        .getByRole("link", { name: `Review the delivery “${title}”` })
        .click();
      await page.waitForURL(appUrl(`/orders/${o.delivered}`));
      await page.getByRole("heading", { level: 1 }).waitFor();
      await page.goBack();
      await waitForHydration(page, mode);
      await attention(page)
        .getByRole("link", { name: new RegExp(`^${seller.name} about`) })
        .click();
      await page.waitForURL(appUrl(`/messages/${conversationId}`));
      await page.getByText("Tell me what you think").waitFor();
    } finally {
      await close();
    }
  }, 60_000);

  it("leads a freelancer to the work due soon and late, with their due days, the dispute and the unread message", async () => {
    const { page, close } = await dashboardOf(mode, seller);
    try {
      await expectLeads(page);
      expect(await items(page)).toEqual([
        { text: `“${title}” for ${client.name} is late: it was due ${formatDay(lateAt)}.`, links: [`Deliver “${title}” → /orders/${o.late}`] },
        { text: `“${title}” for ${client.name} is due ${formatDay(dueSoonAt)}.`, links: [`Deliver “${title}” → /orders/${o.dueSoon}`] },
        { text: `“${title}” is in dispute: an admin will decide what happens to the payment.`, links: [`See the dispute “${title}” → /orders/${o.disputed}`] },
        { text: "1 unread message", links: [`${client.name} about “${title}”: 1 new → /messages/${conversationId}`] },
      ]);
      await attention(page)
        .getByRole("link", { name: `Deliver “${title}”` })
        .first()
        .click();
      await page.waitForURL(appUrl(`/orders/${o.late}`));
      await page.getByRole("heading", { level: 1 }).waitFor();
    } finally {
      await close();
    }
  }, 60_000);

  it("says so when nothing needs the member", async () => {
    const fresh = await createUser(e2eDb(), { role: "client", name: `Fresh Member ${tag}` });
    const { page, close } = await dashboardOf(mode, fresh);
    try {
      await expectLeads(page);
      await attention(page).getByText("Nothing needs your attention right now.", { exact: false }).waitFor();
      expect(await attention(page).getByRole("list").count()).toBe(0);
      expect(await attention(page).getByRole("link").count()).toBe(0);
    } finally {
      await close();
    }
  });

  it("shows sign-ins in a row as one line of the activity", async () => {
    const { page, close } = await dashboardOf(mode, seller);
    try {
      const rows = await page.getByRole("list", { name: "Recent activity" }).locator(":scope > li").allInnerTexts();
      const signIns = await e2eDb()("activity").where({ user_id: seller.id, kind: "signed_in" }).orderBy("created_at", "desc").select("created_at");
      // The newest two sign-ins, the profile change, the five before it.
      expect(rows.map((r) => r.replace(/\s+/g, " ").trim())).toEqual([
        `Signed in 2 times, last on ${formatDayTime(signIns[0]!.created_at)}`,
        expect.stringMatching(/^You updated your profile /),
        `Signed in 5 times, last on ${formatDayTime(signIns[2]!.created_at)}`,
      ]);
    } finally {
      await close();
    }
  });
});
