/**
 * Live chat at the edges a connection has (JavaScript on), as a member sees it and as it is stored:
 * - a send whose answer is lost (the connection drops after the server stored it) comes back into the box,
 *   and sending it again stores no second copy: the retry goes under the first try's client id, and the
 *   thread shows the message once;
 * - messages written to a page while it was offline appear after it reconnects, once each and in order;
 * - with one thread open, another conversation's unread count grows live in the list beside it;
 * - where the network refuses WebSockets, the page connects over HTTP long-polling and is just as live.
 * Both modes: a link in a message is shown as text, never as a link (live in the bubble with JavaScript).
 * The other member writes from their own socket.io client, as their phone would.
 */
import { randomBytes } from "node:crypto";
import type { Page, WebSocketRoute } from "playwright-core";
import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, expect, it } from "vitest";
import { findOrCreateConversation } from "~/models/conversation.server";
import { allowConsoleErrors, appUrl, describeBothModes, e2eDb, type Mode, waitForHydration } from "../support/e2e";
import { createSession, createUser, type TestUser } from "../support/factories";

/** A message in the open thread, by its text. */
const bubble = (page: Page, body: string) => page.locator("li.chat-message", { hasText: body });
/** The conversation with `name` in the list. */
const listed = (page: Page, name: string) => page.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: new RegExp(name) });
const box = (page: Page) => page.getByLabel("Message", { exact: true });

/** The other member's own live connection (their phone), signed in with a session of theirs. */
async function phoneOf(who: TestUser): Promise<Socket> {
  const origin = new URL(appUrl()).origin;
  const socket = connect(origin, {
    transports: ["websocket"],
    reconnection: false,
    forceNew: true,
    extraHeaders: { origin, cookie: `soko_session=${await createSession(e2eDb(), who.id)}` },
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("connect_error", reject);
  });
  return socket;
}

async function write(phone: Socket, conversationId: string, body: string) {
  const sent = await phone.timeout(5_000).emitWithAck("send_message", { conversationId, body, clientId: randomBytes(8).toString("hex") });
  expect(sent).toMatchObject({ ok: true });
}

/** How many rows the server stored with this text. */
async function storedCount(body: string): Promise<number> {
  const [row] = await e2eDb()("messages").where({ body }).count({ n: "*" });
  return Number(row!.n);
}

/** A new member's browser page (a context of its own, as the pass has JavaScript), signed in. */
async function pageOf(mode: Mode, who: TestUser, viewport = { width: 412, height: 900 }) {
  const browser = mode.context().browser()!;
  const context = await browser.newContext({ javaScriptEnabled: mode.js, viewport });
  context.setDefaultTimeout(10_000);
  await context.addCookies([{ name: "soko_session", value: await createSession(e2eDb(), who.id), url: appUrl("/") }]);
  return { page: await context.newPage(), close: () => context.close() };
}

async function openThread(page: Page, mode: Mode, conversationId: string) {
  await page.goto(appUrl(`/messages/${conversationId}`));
  await waitForHydration(page, mode);
  if (mode.js) await page.getByText("Connected", { exact: true }).waitFor();
}

describeBothModes("Messages at the connection's edges", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let client: TestUser;
  let seller: TestUser;
  let other: TestUser;
  let withSeller: string;
  let withOther: string;
  /** What a test opened, closed after the file even if the test failed half way. */
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    const db = e2eDb();
    client = await createUser(db, { name: `Grace Live ${tag}` });
    seller = await createUser(db, { name: `Peter Live ${tag}`, role: "freelancer" });
    other = await createUser(db, { name: `Joan Live ${tag}` });
    withSeller = (await findOrCreateConversation(db, { a: client.id, b: seller.id, createdBy: client.id })).id;
    withOther = (await findOrCreateConversation(db, { a: other.id, b: seller.id, createdBy: other.id })).id;
  });
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it("shows a link in a message as text, not as a link", async () => {
    const { page, close } = await pageOf(mode, seller);
    closers.push(close);
    await openThread(page, mode, withSeller);
    const phone = await phoneOf(client);
    closers.push(async () => phone.close());

    const theirs = `Pay here instead: https://evil.example/pay?o=1 or www.evil.example ${tag}`;
    await write(phone, withSeller, theirs);
    // With JavaScript the bubble comes live; without, on the next load.
    if (!mode.js) await page.reload();
    await bubble(page, theirs).waitFor();
    expect(await bubble(page, theirs).locator("a").count()).toBe(0);
    expect(await bubble(page, theirs).locator(".chat-message-body").innerText()).toBe(theirs);

    // My own message too, as my page shows it (the live bubble with JavaScript, the redirect's page without).
    const mine = `My portfolio: https://evil.example/me ${tag}`;
    await box(page).fill(mine);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await bubble(page, mine)
      .getByText(/^(Sent|Delivered|Read)$/)
      .waitFor();
    expect(await bubble(page, mine).locator("a").count()).toBe(0);
    expect(await bubble(page, mine).locator(".chat-message-body").innerText()).toBe(mine);
    phone.close();
    await close();
  }, 60_000);

  if (!mode.js) return;

  it("stores a send once when its answer was lost and it is sent again", async () => {
    const { page, close } = await pageOf(mode, client);
    closers.push(close);
    // The page's WebSocket goes through here. Armed, the next send_message frame reaches the server but nothing
    // the server says comes back on that connection (the answer, the live copy): the answer is lost.
    let armed = false;
    let lost: { page: WebSocketRoute; server: WebSocketRoute } | null = null;
    await page.routeWebSocket(/\/socket\.io\//, (ws) => {
      const server = ws.connectToServer();
      let swallowing = false;
      ws.onMessage((frame) => {
        if (armed && typeof frame === "string" && frame.startsWith("42") && frame.includes('"send_message"')) {
          armed = false;
          swallowing = true;
          lost = { page: ws, server };
        }
        server.send(frame);
      });
      server.onMessage((frame) => {
        if (!swallowing) ws.send(frame);
      });
    });
    await openThread(page, mode, withSeller);

    const body = `Can you start on Monday? ${tag}`;
    armed = true;
    await box(page).fill(body);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    // The server stored it; the page has had no answer and still shows its own "Sending…" bubble.
    await expect.poll(() => storedCount(body), { timeout: 10_000 }).toBe(1);
    await bubble(page, body).getByText("Sending…").waitFor();

    // Then the connection drops: the text comes back into the box; on reconnecting, the page gets what it
    // missed, the stored message, once.
    const cut = lost as { page: WebSocketRoute; server: WebSocketRoute } | null;
    expect(cut).not.toBeNull();
    await cut!.page.close();
    await cut!.server.close();
    await page.getByText(/Not sent: the connection dropped/).waitFor();
    await page.getByText("Connected", { exact: true }).waitFor({ timeout: 20_000 });
    await bubble(page, body)
      .getByText(/^(Sent|Delivered|Read)$/)
      .waitFor();
    expect(await box(page).inputValue()).toBe(body);
    expect(await bubble(page, body).count()).toBe(1);

    // The member cannot tell it went through, and presses Send again: still one message, stored and shown.
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await expect.poll(() => box(page).inputValue()).toBe("");
    await expect(page.getByText(/Not sent/).count()).resolves.toBe(0);
    await bubble(page, body)
      .getByText(/^(Sent|Delivered|Read)$/)
      .waitFor();
    expect(await storedCount(body)).toBe(1);
    expect(await bubble(page, body).count()).toBe(1);
    await page.reload();
    await bubble(page, body).waitFor();
    expect(await bubble(page, body).count()).toBe(1);
    expect(await storedCount(body)).toBe(1);
    await close();
  }, 60_000);

  it("shows messages written while the page was offline once each, in order, after it reconnects", async () => {
    const { page, close } = await pageOf(mode, seller);
    closers.push(close);
    await openThread(page, mode, withSeller);
    const phone = await phoneOf(client);
    closers.push(async () => phone.close());

    allowConsoleErrors(/ERR_INTERNET_DISCONNECTED/, "the page's network is cut while it tries to reconnect");
    await page.context().setOffline(true);
    await page.getByText("Disconnected — reconnecting…").waitFor();
    const missed = [1, 2, 3].map((n) => `While you were away, number ${n} ${tag}`);
    for (const body of missed) await write(phone, withSeller, body);

    await page.context().setOffline(false);
    await page.getByText("Connected", { exact: true }).waitFor({ timeout: 20_000 });
    for (const body of missed) await bubble(page, body).waitFor();
    // Let a late second copy (the revalidation after the merge) have its chance to show.
    await page.waitForLoadState("networkidle");
    const shown = await page.locator("li.chat-message .chat-message-body").allInnerTexts();
    expect(shown.filter((text) => missed.includes(text))).toEqual(missed);
    // The open thread read them once it had them.
    await expect.poll(async () => (await e2eDb()("messages").whereIn("body", missed).pluck("status")).join()).toBe("read,read,read");
    phone.close();
    await close();
  }, 60_000);

  it("is live over HTTP long-polling where the network refuses WebSockets", async () => {
    const { page, close } = await pageOf(mode, seller);
    closers.push(close);
    // Every WebSocket the page opens for its live connection is refused before it is open, as behind a proxy
    // that does not carry them: its upgrade goes to a path no WebSocket is served on, which the server drops
    // (the browser's "error", then "close"). The polling requests go through.
    allowConsoleErrors(/^console error: WebSocket connection to 'ws:\/\/[^/]+\/no-websockets-here\/.*' failed/, "the page's WebSockets are refused on purpose");
    await page.addInitScript(() => {
      const Native = window.WebSocket;
      window.WebSocket = class extends Native {
        constructor(url: string | URL, protocols?: string | string[]) {
          super(String(url).replace("/socket.io/", "/no-websockets-here/"), protocols);
          (window as unknown as { refusedSockets?: number }).refusedSockets = ((window as unknown as { refusedSockets?: number }).refusedSockets ?? 0) + 1;
        }
      };
    });
    const refusedSockets = () => page.evaluate(() => (window as unknown as { refusedSockets?: number }).refusedSockets ?? 0);
    const polls: string[] = [];
    const formPosts: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/socket.io/") && request.url().includes("transport=polling")) polls.push(request.method());
      else if (request.method() === "POST") formPosts.push(request.url());
    });
    const pollPosts = () => polls.filter((method) => method === "POST").length;
    await openThread(page, mode, withSeller);
    expect(await refusedSockets()).toBeGreaterThan(0);
    expect(polls.length).toBeGreaterThan(0);

    // The other member's message arrives without a reload, and the page's own send is answered.
    const phone = await phoneOf(client);
    closers.push(async () => phone.close());
    const theirs = `Sent while your network blocks WebSockets ${tag}`;
    await write(phone, withSeller, theirs);
    await bubble(page, theirs).waitFor();
    const mine = `Answered over polling ${tag}`;
    const postsBefore = pollPosts();
    await box(page).fill(mine);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    await bubble(page, mine)
      .getByText(/^(Sent|Delivered|Read)$/)
      .waitFor();
    await expect.poll(() => box(page).inputValue()).toBe("");
    expect(await storedCount(mine)).toBe(1);
    // The send went as a socket.io event over polling (a POST of its own), not as the page's form.
    expect(pollPosts()).toBeGreaterThan(postsBefore);
    expect(formPosts).toEqual([]);
    expect(new URL(page.url()).pathname).toBe(`/messages/${withSeller}`);
    phone.close();
    await close();
  }, 60_000);

  it("counts another conversation's unread messages live while a thread is open", async () => {
    // Wide enough for the list beside the thread.
    const { page, close } = await pageOf(mode, seller, { width: 1280, height: 800 });
    closers.push(close);
    await openThread(page, mode, withSeller);
    await page.getByRole("heading", { level: 2, name: client.name }).waitFor();
    const phone = await phoneOf(other);
    closers.push(async () => phone.close());

    const first = `Are you free this week? ${tag}`;
    await write(phone, withOther, first);
    await listed(page, other.name).filter({ hasText: "1 unread" }).waitFor();
    await listed(page, other.name).filter({ hasText: first }).waitFor();
    const second = `I need a menu board too ${tag}`;
    await write(phone, withOther, second);
    await listed(page, other.name).filter({ hasText: "2 unread" }).waitFor();

    // The open thread is still the client's, with nothing of the other conversation in it, and its count stays 0.
    expect(new URL(page.url()).pathname).toBe(`/messages/${withSeller}`);
    expect(await bubble(page, first).count()).toBe(0);
    expect(await listed(page, client.name).getByTestId("unread-count").count()).toBe(0);
    // Delivered, not read: the member has not opened that thread.
    await expect.poll(async () => (await e2eDb()("messages").whereIn("body", [first, second]).pluck("status")).join()).toBe("delivered,delivered");
    phone.close();
    await close();
  }, 60_000);
});
