/**
 * The /messages panel's size (issue 12, product-spec §2 Messages): 700 px tall on a wide screen, the list and
 * the thread side by side; on a phone one screen at a time, and a thread fills the screen below the header,
 * its messages scrolling inside it and the send box at the bottom of the screen. Layout is CSS, so both modes.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { findOrCreateConversation } from "~/models/conversation.server";
import { insertMessage } from "~/models/message.server";
import { appUrl, describeBothModes, e2eDb, waitForHydration, type Mode } from "../support/e2e";
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

  it("fills a phone's screen below the header with the open thread, the list hidden", async () => {
    const phone = { width: 375, height: 667 };
    await visit(`/messages/${conversationId}`, phone);
    expect(await page.getByRole("navigation", { name: "Conversations" }).isVisible()).toBe(false);
    await page.getByRole("link", { name: "Back to conversations" }).waitFor();

    const header = await box(page, ".site-header");
    const panel = await box(page, ".chat-panel");
    expect(panel.y).toBeGreaterThanOrEqual(header.y + header.height);
    expect(Math.abs(panel.y + panel.height - phone.height)).toBeLessThanOrEqual(2);
    // The page itself does not scroll: the messages do, inside the panel, and the send box is on the screen.
    expect(await page.evaluate(() => document.scrollingElement!.scrollHeight)).toBeLessThanOrEqual(phone.height + 1);
    const send = await box(page, ".chat-send button[type=submit]");
    expect(send.y + send.height).toBeLessThanOrEqual(phone.height);
    const scroller = page.locator(".chat-scroll");
    expect(await scroller.evaluate((el) => el.scrollHeight > el.clientHeight)).toBe(true);
    // The newest message is in view (the thread starts at the end).
    const newest = await box(page, `li.chat-message:has-text("Message 30 about")`);
    expect(newest.y).toBeGreaterThanOrEqual(panel.y);
    expect(newest.y + newest.height).toBeLessThanOrEqual(send.y);

    // The list page on a phone: the list, and no thread beside it.
    await visit("/messages", phone);
    await page.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: new RegExp(`Sam Layout ${tag}`) }).waitFor();
    expect(await page.locator(".chat-main").isVisible()).toBe(false);
  });
});
