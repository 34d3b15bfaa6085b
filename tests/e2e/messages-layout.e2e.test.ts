/**
 * The /messages panel's size (docs/product.md, Messages): 700 px tall on a wide screen, the list and the thread
 * side by side; on a phone one screen at a time, and a thread fills the screen (the site's header one scroll
 * up), its messages scrolling inside it and the send box at the bottom of the screen, from the smallest phone
 * (320×568) up, under the privacy banner too. Layout is CSS, so both modes.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { findOrCreateConversation } from "~/models/conversation.server";
import { insertMessage } from "~/models/message.server";
import { appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { createSession, createUser, type TestUser } from "../support/factories";

const box = async (page: Page, selector: string) => {
  const found = await page.locator(selector).boundingBox();
  if (!found) throw new Error(`${selector} is not shown`);
  return found;
};

describeBothModes("Messages layout", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let member: TestUser;
  let conversationId: string;
  let page: Page;

  beforeAll(async () => {
    const db = e2eDb();
    member = await createUser(db, { name: `Ruth Layout ${tag}` });
    const other = await createUser(db, { name: `Sam Layout ${tag}`, role: "freelancer" });
    conversationId = (await findOrCreateConversation(db, { a: member.id, b: other.id, createdBy: member.id })).id;
    // More messages than any screen holds: they must scroll inside the panel, not stretch it.
    for (let n = 1; n <= 30; n++) {
      const from = n % 2 ? other : member;
      await insertMessage(db, {
        conversationId,
        senderId: from.id,
        recipientId: from === other ? member.id : other.id,
        body: `Message ${n} about the sign: the letters, the colours and the size of the board ${tag}`,
        offPlatform: false,
        attachments: [],
      });
    }
    // A member who has answered the privacy question (its banner would sit above the page until then).
    await mode.context().addCookies([
      { name: "soko_session", value: await createSession(db, member.id), url: appUrl("/") },
      { name: "soko_consent", value: "denied", url: appUrl("/") },
    ]);
    page = await mode.page();
  });
  afterAll(async () => {
    await page?.close();
  });

  async function visit(path: string, viewport: { width: number; height: number }) {
    await page.setViewportSize(viewport);
    await page.goto(appUrl(path));
    await waitForHydration(page, mode);
    if (mode.js) await page.getByText("Connected", { exact: true }).waitFor();
  }

  it("is 700 px tall on a wide screen, the list beside the thread", async () => {
    await visit(`/messages/${conversationId}`, { width: 1280, height: 800 });
    expect((await box(page, ".chat-panel")).height).toBeCloseTo(700, 0);
    const list = await box(page, ".chat-list");
    const thread = await box(page, ".chat-thread");
    expect(list.x + list.width).toBeLessThanOrEqual(thread.x + 1);
    expect(list.height).toBeCloseTo(thread.height, 0);

    await visit("/messages", { width: 1280, height: 800 });
    expect((await box(page, ".chat-panel")).height).toBeCloseTo(700, 0);
  });

  /** Where a box meets the screen: its visible part's height (0 when off screen). */
  const visibleHeight = (b: { y: number; height: number }, screenHeight: number) => Math.max(0, Math.min(b.y + b.height, screenHeight) - Math.max(b.y, 0));

  // The smallest phone we serve, two common ones (the second with the browser's bars taking room), each with
  // the privacy banner (shown until a choice is made) and without.
  const phones = [
    { width: 320, height: 568 },
    { width: 360, height: 640 },
    { width: 360, height: 740 },
  ];
  for (const phone of phones) {
    for (const banner of [true, false]) {
      it(`shows the newest messages and the send box on one ${phone.width}×${phone.height} screen ${banner ? "under the privacy banner" : "after the privacy choice"}`, async () => {
        if (banner) await mode.context().clearCookies({ name: "soko_consent" });
        await visit(`/messages/${conversationId}`, phone);
        // The privacy question waits for another page: a thread never shows it.
        expect(await page.getByRole("region", { name: "Your privacy choice" }).count()).toBe(0);
        if (banner) await mode.context().addCookies([{ name: "soko_consent", value: "denied", url: appUrl("/") }]);

        // Nothing scrolled by the test: what the member sees as the page opens.
        const screen = await page.evaluate(() => ({ width: innerWidth, height: innerHeight, scrollWidth: document.scrollingElement!.scrollWidth }));
        expect(screen.scrollWidth).toBeLessThanOrEqual(screen.width);
        const inScreen = (b: { x: number; y: number; width: number; height: number }) => {
          expect(b.y).toBeGreaterThanOrEqual(0);
          expect(b.y + b.height).toBeLessThanOrEqual(screen.height + 0.5);
          expect(b.x).toBeGreaterThanOrEqual(0);
          expect(b.x + b.width).toBeLessThanOrEqual(screen.width + 0.5);
        };
        const textarea = await box(page, "#chat-body");
        const send = await box(page, ".chat-send button[type=submit]");
        inScreen(textarea);
        inScreen(send);
        expect(send.height).toBeGreaterThanOrEqual(44);
        // The messages take most of the screen: at least half of it is the list.
        const log = await box(page, "[role=log]");
        expect(visibleHeight(log, screen.height)).toBeGreaterThanOrEqual(screen.height / 2);
        // The newest message is in view, in the list, above the send box.
        const newest = await box(page, `li.chat-message:has-text("Message 30 about")`);
        expect(newest.y).toBeGreaterThanOrEqual(Math.max(log.y, 0));
        expect(newest.y + newest.height).toBeLessThanOrEqual(Math.min(log.y + log.height, textarea.y));
      });
    }
  }

  it("keeps the list a named, focusable log", async () => {
    await visit(`/messages/${conversationId}`, { width: 360, height: 640 });
    const log = page.getByRole("log", { name: `Messages with Sam Layout ${tag}` });
    expect(await log.getAttribute("tabindex")).toBe("0");
    await log.focus();
    expect(await page.evaluate(() => document.activeElement?.getAttribute("role"))).toBe("log");
  });

  it("sends a message on the smallest phone and shows it above the box", async () => {
    const phone = { width: 320, height: 568 };
    await visit(`/messages/${conversationId}`, phone);
    // The box and Send are on the screen as it opens (typing and pressing them must not need a scroll first).
    for (const part of ["#chat-body", ".chat-send button[type=submit]"]) {
      const b = await box(page, part);
      expect(b.y).toBeGreaterThanOrEqual(0);
      expect(b.y + b.height).toBeLessThanOrEqual(phone.height);
    }
    // The box grows with longer text (three lines here), and Send stays on the screen.
    const emptyHeight = (await box(page, "#chat-body")).height;
    await page.getByLabel("Message", { exact: true }).fill("A first line\na second line\na third line");
    expect((await box(page, "#chat-body")).height).toBeGreaterThan(emptyHeight + 20);
    const sendBelowText = await box(page, ".chat-send button[type=submit]");
    expect(sendBelowText.y + sendBelowText.height).toBeLessThanOrEqual(phone.height);
    const words = `Sent from a small phone ${tag}`;
    await page.getByLabel("Message", { exact: true }).fill(words);
    await page.getByRole("button", { name: "Send", exact: true }).click();
    const sent = page.locator("li.chat-message", { hasText: words });
    await sent.waitFor();
    if (mode.js) await sent.getByText("Sent", { exact: true }).waitFor();
    else await page.waitForURL(appUrl(`/messages/${conversationId}`));
    const bubble = await box(page, `li.chat-message:has-text("${words}")`);
    const textarea = await box(page, "#chat-body");
    expect(bubble.y).toBeGreaterThanOrEqual(0);
    expect(bubble.y + bubble.height).toBeLessThanOrEqual(textarea.y);
    const sendButton = await box(page, ".chat-send button[type=submit]");
    expect(sendButton.y + sendButton.height).toBeLessThanOrEqual(phone.height + 0.5);
    expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("");
  });

  it("makes the open thread a screen of its own on a phone, the site's header one scroll up", async () => {
    const phone = { width: 375, height: 667 };
    await visit(`/messages/${conversationId}`, phone);
    expect(await page.getByRole("navigation", { name: "Conversations" }).isVisible()).toBe(false);
    await page.getByRole("link", { name: "Back to conversations" }).waitFor();

    // The panel ends at the screen's bottom; the document does not scroll, the messages do, inside the panel.
    const panel = await box(page, ".chat-panel");
    expect(Math.abs(panel.y + panel.height - phone.height)).toBeLessThanOrEqual(2);
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBeLessThanOrEqual(phone.height + 1);
    expect(await page.getByRole("log").evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    // The site's header is still there, above the thread: moving to its first link brings it into view.
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Search" }).focus();
    const header = await box(page, ".site-header");
    expect(header.y).toBeGreaterThanOrEqual(-1);
    expect(header.y + header.height).toBeLessThanOrEqual(phone.height);

    // The list page on a phone: the list, and no thread beside it.
    await visit("/messages", phone);
    const open = page.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: new RegExp(`Sam Layout ${tag}`) });
    await open.waitFor();
    expect(await page.locator(".chat-main").isVisible()).toBe(false);

    // Opening the thread from the list (in place with JavaScript) lands on the thread screen, newest message last.
    await open.click();
    await page.waitForURL(appUrl(`/messages/${conversationId}`));
    await page.locator("#chat-body").waitFor();
    const send = await box(page, ".chat-send button[type=submit]");
    expect(send.y).toBeGreaterThanOrEqual(0);
    expect(send.y + send.height).toBeLessThanOrEqual(phone.height);
    const newest = await box(page, "li.chat-message:last-child");
    expect(newest.y).toBeGreaterThanOrEqual(0);
    expect(newest.y + newest.height).toBeLessThanOrEqual((await box(page, "#chat-body")).y);
  });
});
