/**
 * Notifications in the browser, with JavaScript on and off, for an order event and a message: a buyer's page is open while the seller delivers the order (a form post to the server) and
 * then writes to the buyer (the seller's own socket.io client): the header's bell and Messages link count
 * them, live with JavaScript and after a reload without; /notifications lists them, each linking to what it
 * is about; "Mark read" and "Mark all read" bring the bell back to no count. The order is placed and paid
 * beforehand through the operations (checkout has its own specs).
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { appUrl, describeBothModes, e2eDb, type Mode } from "../support/e2e";
import { open } from "../support/e2e-orders";
import { createGig, createSession, createUser, type TestUser } from "../support/factories";
import { paidTestOrder, testProviders } from "../support/orders";

let providers: ReturnType<typeof testProviders>;
beforeAll(() => {
  providers = testProviders();
});
afterAll(async () => {
  await providers?.close();
});

/** A session cookie header for `who` (the server is plain http: the cookie has no __Host- prefix). */
const cookieOf = async (who: TestUser) => `soko_session=${await createSession(e2eDb(), who.id)}`;

/** The seller delivers through the order page's form, as their browser would post it. */
async function deliver(seller: TestUser, orderId: number) {
  const form = new FormData();
  form.set("intent", "deliver");
  form.set("message", "Your poster, ready to print.");
  const res = await fetch(appUrl(`/orders/${orderId}`), {
    method: "POST",
    redirect: "manual",
    headers: { Cookie: await cookieOf(seller), Origin: new URL(appUrl()).origin },
    body: form,
  });
  expect(res.status).toBe(303);
}

/** The seller writes to the buyer from their own live connection (create_conversation, then send_message). */
async function write(seller: TestUser, buyer: TestUser, body: string): Promise<string> {
  const socket = connect(new URL(appUrl()).origin, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    extraHeaders: { origin: new URL(appUrl()).origin, cookie: await cookieOf(seller) },
  });
  try {
    const started = await socket.timeout(5_000).emitWithAck("create_conversation", { userId: buyer.id });
    expect(started).toMatchObject({ ok: true });
    const sent = await socket
      .timeout(5_000)
      .emitWithAck("send_message", { conversationId: started.conversationId, body, clientId: randomBytes(8).toString("hex") });
    expect(sent).toMatchObject({ ok: true });
    return started.conversationId as string;
  } finally {
    socket.close();
  }
}

/** A link of the header's navigation (the dashboard has its own Messages link), by its whole name. */
const bell = (page: Page, name: string) => page.getByRole("navigation", { name: "Main" }).getByRole("link", { name, exact: true });

/** With JavaScript the header moves by itself; without, the member reloads to see it. */
async function expectHeader(page: Page, mode: Mode, { notifications, messages }: { notifications: string; messages?: string }) {
  if (!mode.js) await page.reload();
  await bell(page, notifications).waitFor();
  if (messages) await bell(page, messages).waitFor();
}

describeBothModes("Notifications", (mode) => {
  let seller: TestUser;
  let buyer: TestUser;
  let orderId: number;

  beforeAll(async () => {
    const db = e2eDb();
    const tag = randomBytes(4).toString("hex");
    seller = await createUser(db, { role: "freelancer", name: `Nambi Prints ${tag}`, username: `nambi_${tag}` });
    buyer = await createUser(db, { role: "client", name: `Opio Buyer ${tag}`, username: `opio_${tag}` });
    const gig = await createGig(db, {
      sellerId: seller.id,
      category: "graphics-design",
      title: `Event poster ${tag}`,
      packages: { basic: { priceUgx: 40_000, deliveryDays: 3, revisions: 1 } },
    });
    ({ orderId } = await paidTestOrder({ db, providers: providers.providers, sandbox: providers.sandbox }, buyer, gig.id));
    await mode.context().clearCookies();
    await mode.context().addCookies([{ name: "soko_session", value: (await cookieOf(buyer)).split("=")[1]!, url: appUrl("/") }]);
  });

  it("the bell counts an order step and a message, /notifications lists them, and marking them read clears the count", async () => {
    const page = await mode.page();
    await open(page, mode, "/dashboard");
    // Paying told the buyer their money is held in escrow.
    await bell(page, "Notifications, 1 unread").waitFor();
    await bell(page, "Messages").waitFor();
    // With JavaScript, the page's live connection is up before anything happens.
    if (mode.js) await page.locator('a.header-bell[data-live="connected"]').waitFor();

    await deliver(seller, orderId);
    await expectHeader(page, mode, { notifications: "Notifications, 2 unread" });
    const conversationId = await write(seller, buyer, "Tell me if the colours need changing");
    await expectHeader(page, mode, { notifications: "Notifications, 3 unread", messages: "Messages, 1 unread" });
    // A screen reader hears what is new, politely.
    if (mode.js)
      await page
        .getByRole("status")
        .filter({ hasText: `New message from ${seller.name}` })
        .waitFor({ state: "attached" });

    await bell(page, "Notifications, 3 unread").click();
    await page.getByRole("heading", { level: 1, name: "Notifications" }).waitFor();
    const list = page.getByRole("list", { name: "Your notifications" });
    const links = list.getByRole("link");
    expect(await links.allInnerTexts()).toEqual([
      `New message from ${seller.name}`,
      expect.stringMatching(/^Your order “Event poster \w+” was delivered$/),
      expect.stringMatching(/is held in escrow$/),
    ]);
    expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute("href")))).toEqual([
      `/messages/${conversationId}`,
      `/orders/${orderId}`,
      `/orders/${orderId}`,
    ]);
    expect(await list.getByText("Unread", { exact: true }).count()).toBe(3);
    await page.getByText("3 unread", { exact: true }).waitFor();

    // One read: in place with JavaScript, by a form and a redirect without.
    await page.getByRole("button", { name: `Mark read: Your order “Event poster` }).click();
    await page.getByText("2 unread", { exact: true }).waitFor();
    await bell(page, "Notifications, 2 unread").waitFor();
    expect(await list.getByText("Unread", { exact: true }).count()).toBe(2);

    if (mode.js) {
      // In place, saying it is busy while the answer is on its way.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route("**/notifications.data*", async (route) => {
        if (route.request().method() === "POST") await held;
        await route.continue();
      });
      await page.getByRole("button", { name: "Mark all read" }).click();
      const pending = page.getByRole("button", { name: "Marking all read…" });
      await pending.waitFor();
      expect(await pending.isDisabled()).toBe(true);
      // What is being marked shows read at once.
      expect(await list.getByText("Unread", { exact: true }).count()).toBe(0);
      release();
    } else {
      await page.getByRole("button", { name: "Mark all read" }).click();
    }
    await page.getByText("All read", { exact: true }).waitFor();
    expect(new URL(page.url()).pathname).toBe("/notifications");
    await bell(page, "Notifications").waitFor();
    expect(await list.getByText("Unread", { exact: true }).count()).toBe(0);
    expect(await page.getByRole("button", { name: "Mark all read" }).count()).toBe(0);
    expect(await e2eDb()("notifications").where({ user_id: buyer.id }).whereNull("read_at").count<{ n: string }[]>({ n: "*" })).toEqual([{ n: 0 }]);
    // The message itself is still unread until the buyer opens the conversation.
    await bell(page, "Messages, 1 unread").waitFor();
    await page.close();
  });
});
