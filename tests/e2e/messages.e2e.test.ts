/**
 * Chat between two people, each a browser of their own, with JavaScript on and off: a client
 * presses Contact Seller on a freelancer's gig and writes; the freelancer finds the conversation in
 * Messages with its unread count, opens it and replies. With JavaScript the reply appears in the client's
 * open thread without a reload, the client's mark goes Sent → Delivered → Read as the freelancer's page
 * receives and opens it, an unread count grows live, and a dropped connection shows, disables the send box
 * (keeping what was typed) and recovers. Without JavaScript the same by forms and reloads. Both modes: the
 * off-platform warning under the sender's own message.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import sharp from "sharp";
import { afterAll, beforeAll, expect, it } from "vitest";
import { OFF_PLATFORM_WARNING } from "~/domain/off-platform";
import { words } from "../support/words";
import { createGig } from "../support/factories";
import { describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { joinAsClient, joinAsFreelancer, newPerson, open, type Person } from "../support/e2e-orders";

/** A small real PNG (message images are decoded before they are kept: a signature alone is refused); made before the specs. */
let PNG: Buffer;
beforeAll(async () => {
  PNG = await sharp({ create: { width: 48, height: 32, channels: 3, background: "#d35400" } })
    .png()
    .toBuffer();
});

/** A message in the open thread, by its text. */
const bubble = (page: Page, body: string) => page.locator("li.chat-message", { hasText: body });
/** The mark under one of my messages (Sending…, Sent, Delivered, Read). */
const markOf = (page: Page, body: string, mark: string) => bubble(page, body).getByText(mark, { exact: true });
/** The conversation with `name` in the list. */
const listed = (page: Page, name: string) => page.getByRole("navigation", { name: "Conversations" }).getByRole("link", { name: new RegExp(name) });

/** Writes and sends a message in the open thread; with JavaScript, waits for its mark from the server. */
async function send(page: Page, js: boolean, body: string) {
  await page.getByLabel("Message", { exact: true }).fill(body);
  await page.getByRole("button", { name: "Send", exact: true }).click();
  await markOf(page, body, "Sent")
    .or(markOf(page, body, "Delivered"))
    .or(markOf(page, body, "Read"))
    .first()
    .waitFor();
  if (!js) await waitForHydration(page, { js });
}

describeBothModes("Messages", (mode) => {
  const tag = randomBytes(4).toString("hex");
  const password = `chat-${tag}`;
  const clientWho = { name: `Aisha Chat ${tag}`, email: `aisha.chat.${tag}@example.ug`, password };
  const sellerWho = {
    name: `Brian Chat ${tag}`,
    email: `brian.chat.${tag}@example.ug`,
    password,
    skills: "Logo design",
    description: "Logos for shops and stalls in Kampala.",
  };
  let client: Person;
  let seller: Person;
  let gig: { id: number; title: string };

  beforeAll(async () => {
    client = await newPerson(mode);
    seller = await newPerson(mode);
    await joinAsClient(client.page, mode, clientWho);
    await joinAsFreelancer(seller.page, mode, sellerWho);
    const sellerId = Number((await e2eDb()("users").where({ email: sellerWho.email }).first("id")).id);
    gig = await createGig(e2eDb(), { sellerId, category: "graphics-design", title: `I will letter your shop sign ${tag}` });
  });
  afterAll(async () => {
    await client?.close();
    await seller?.close();
  });

  it("a client contacts a seller from the gig, the seller reads and replies, and the marks follow", async () => {
    const c = client.page;
    const s = seller.page;
    await open(c, mode, `/gig/${gig.id}`);
    await c.getByRole("button", { name: "Contact Seller" }).click();
    await c.waitForURL(/\/messages\/conv_[a-z0-9]+$/);
    await c.getByRole("heading", { level: 2, name: sellerWho.name }).waitFor();
    await waitForHydration(c, mode);
    const thread = new URL(c.url()).pathname;
    if (mode.js) await c.getByText("Connected", { exact: true }).waitFor();

    const hello = `Hello, can you letter a sign for my juice stall? ${tag}`;
    await send(c, mode.js, hello);
    await markOf(c, hello, "Sent").waitFor();

    // The seller's Messages: the conversation, one unread. Loading the page delivered the message.
    await open(s, mode, "/messages");
    await listed(s, clientWho.name).filter({ hasText: "1 unread" }).waitFor();
    if (mode.js) await markOf(c, hello, "Delivered").waitFor();

    // Opening the thread reads it.
    await listed(s, clientWho.name).click();
    await s.waitForURL((url) => url.pathname === thread);
    await bubble(s, hello).waitFor();
    await waitForHydration(s, mode);
    if (mode.js) {
      await markOf(c, hello, "Read").waitFor();
    } else {
      await c.reload();
      await markOf(c, hello, "Read").waitFor();
    }

    // The reply: live in the client's open thread with JavaScript, after a reload without.
    const reply = `Yes! Send me the shop's name and colours ${tag}`;
    if (mode.js) await s.getByText("Connected", { exact: true }).waitFor();
    await send(s, mode.js, reply);
    if (!mode.js) await c.reload();
    await bubble(c, reply).getByText(sellerWho.name).waitFor();

    // Payment talk before an order: the sender is warned under their own message (the seller is not).
    const offPlatform = `Pay me on mobile money 0772 123 456 and I start today ${tag}`;
    await send(s, mode.js, offPlatform);
    await bubble(s, offPlatform).getByText(words(OFF_PLATFORM_WARNING)).waitFor();
    if (!mode.js) await c.reload();
    await bubble(c, offPlatform).waitFor();
    expect(await bubble(c, offPlatform).getByText(words(OFF_PLATFORM_WARNING)).count()).toBe(0);
    const flagged = await e2eDb()("conversations")
      .where({ id: thread.split("/").pop() })
      .first("flagged_at");
    expect(flagged.flagged_at).not.toBeNull();

    // A picture goes with the form (with JavaScript too, posted in place); both see it as a link to the file.
    const withFile = `Here is my stall ${tag}`;
    await c.getByLabel("Message", { exact: true }).fill(withFile);
    await c.getByLabel("Attach files (optional)").setInputFiles({ name: "stall.png", mimeType: "image/png", buffer: PNG });
    await c.getByRole("button", { name: "Send", exact: true }).click();
    await bubble(c, withFile).getByRole("link", { name: "stall.png" }).waitFor();
    await waitForHydration(c, mode);
    // With JavaScript the bubble can arrive by the socket before the post's answer empties the box.
    await expect.poll(() => c.getByLabel("Message", { exact: true }).inputValue()).toBe("");
    if (!mode.js) await s.reload();
    const href = await bubble(s, withFile).getByRole("link", { name: "stall.png" }).getAttribute("href");
    expect(href).toMatch(new RegExp(`^${thread}/files/\\d+$`));
  }, 120_000);

  if (mode.js) {
    it("counts unread messages live on a thread not open, and survives a dropped connection", async () => {
      const c = client.page;
      const s = seller.page;
      // The seller is back on the list; the client writes again.
      await open(s, mode, "/messages");
      await s.getByText("Connected", { exact: true }).waitFor();
      const again = `And the sign is 2 metres wide ${tag}`;
      await send(c, true, again);
      await listed(s, clientWho.name).filter({ hasText: "1 unread" }).waitFor();
      await listed(s, clientWho.name).filter({ hasText: again }).waitFor();
      // The seller's page has it: delivered.
      await markOf(c, again, "Delivered").waitFor();

      // The client's connection drops: the indicator says so, the box is disabled and keeps the text.
      const typed = `Typed while the network was down ${tag}`;
      const box = c.getByLabel("Message", { exact: true });
      await box.fill(typed);
      await c.context().setOffline(true);
      await c.getByText("Disconnected — reconnecting…").waitFor();
      expect(await box.isDisabled()).toBe(true);
      expect(await c.getByRole("button", { name: "Send", exact: true }).isDisabled()).toBe(true);
      expect(await box.inputValue()).toBe(typed);

      await c.context().setOffline(false);
      await c.getByText("Connected", { exact: true }).waitFor({ timeout: 20_000 });
      expect(await box.inputValue()).toBe(typed);
      await c.getByRole("button", { name: "Send", exact: true }).click();
      await markOf(c, typed, "Sent")
        .or(markOf(c, typed, "Delivered"))
        .first()
        .waitFor();
      await listed(s, clientWho.name).filter({ hasText: "2 unread" }).waitFor();

      // A draft survives a reload (sessionStorage, per conversation).
      const draft = `A draft kept across a reload ${tag}`;
      await box.fill(draft);
      await c.reload();
      await waitForHydration(c, mode);
      await c.getByText("Connected", { exact: true }).waitFor();
      await c.waitForFunction((text) => (document.getElementById("chat-body") as HTMLTextAreaElement | null)?.value === text, draft);
    }, 90_000);
  }
});
