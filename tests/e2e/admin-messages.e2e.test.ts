/**
 * The admin portal's message monitoring and exchange rate, as an admin uses them on the admin host, with JavaScript
 * on and off: a conversation that messaging flagged (a phone number before any order) is listed first and
 * read, with its off-platform marker; another is flagged, unflagged and deleted after its question
 * (in place with JavaScript, a page of its own without); a new rate is refused out of bounds, then set, and
 * shows in the history.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { beforeAll, expect, it } from "vitest";
import { sendMessage, startConversation } from "~/operations/messages.server";
import { DELETE_CONVERSATION_CONFIRM, RATE_OUT_OF_BOUNDS } from "~/schemas/monitoring";
import { adminUrl, allowStatus, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { DEMO_ADMIN, signIn } from "../support/e2e-orders";
import { createUser, type TestUser } from "../support/factories";
import { memberActor } from "../support/orders";
import { words } from "../support/words";

async function conversation(a: TestUser, b: TestUser, bodies: string[]) {
  const started = await startConversation(memberActor(a), { userId: b.id }, { db: e2eDb() });
  if (!started.ok) throw new Error(JSON.stringify(started));
  let from = a;
  for (const body of bodies) {
    const sent = await sendMessage(memberActor(from), { conversationId: started.value.conversationId, body }, { db: e2eDb() });
    if (!sent.ok) throw new Error(JSON.stringify(sent));
    from = from === a ? b : a;
  }
  return started.value.conversationId;
}

/** Goes to an admin host page and waits for its heading (and hydration). */
async function go(page: Page, js: boolean, path: string, heading: string) {
  await page.goto(adminUrl(path));
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await waitForHydration(page, { js });
}

describeBothModes("Admin message monitoring and exchange rate", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let page: Page;
  let flagged: string;
  let other: string;
  const names = { a: `Akello Mon ${tag}`, b: `Okello Mon ${tag}`, c: `Nakato Mon ${tag}`, d: `Mugisha Mon ${tag}` };

  beforeAll(async () => {
    const db = e2eDb();
    const a = await createUser(db, { name: names.a, role: "client" });
    const b = await createUser(db, { name: names.b, role: "freelancer" });
    const c = await createUser(db, { name: names.c, role: "client" });
    const d = await createUser(db, { name: names.d, role: "freelancer" });
    other = await conversation(c, d, [`Is the banner ready? ${tag}`, "Tomorrow morning"]);
    flagged = await conversation(a, b, [`I need a menu board ${tag}`, "Call me on 0772 123456 and we agree"]);
    await mode.context().clearCookies();
    page = await mode.page();
    await page.goto(adminUrl(`/messages?q=${tag}`));
    await waitForHydration(page, mode);
    await signIn(page, mode, DEMO_ADMIN, "Message monitoring");
  });

  it("lists the off-platform flag first and reads that conversation, on the record", async () => {
    const rows = page.getByRole("list", { name: "Conversations" }).getByRole("listitem");
    await expect.poll(() => rows.count()).toBe(2);
    expect(await rows.first().innerText()).toContain("Off-platform: a phone number");
    expect(await rows.first().innerText()).toContain(`${names.b}: Call me on 0772 123456 and we agree`);
    await page.getByRole("link", { name: `Read the conversation between ${names.a} and ${names.b}` }).click();
    await page.getByRole("heading", { level: 2, name: `Conversation between ${names.a} and ${names.b}` }).waitFor();
    const messages = page.getByRole("list", { name: "Messages" });
    await messages.getByText(`I need a menu board ${tag}`).waitFor();
    expect(await messages.getByRole("listitem").last().innerText()).toMatch(/Off-platform payment talk[\s\S]*Call me on 0772 123456/);
    const reads = await e2eDb()("admin_audit_log").where({ action: "conversation.read", target_id: flagged }).select("admin_name");
    expect(reads).toHaveLength(1);
  });

  it("flags and unflags another conversation, then deletes it after asking first", async () => {
    await go(page, mode.js, `/messages?q=${tag}&conversation=${other}`, "Message monitoring");
    await page.getByRole("button", { name: "Flag for review" }).click();
    await page.getByText("Conversation flagged for review.").waitFor();
    await page.getByRole("article").getByText("Flagged by an admin").waitFor();
    expect(await e2eDb()("conversations").where({ id: other }).first("flag_reason")).toEqual({ flag_reason: "admin" });
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Remove flag" }).click();
    await page.getByText("Flag cleared.").waitFor();
    expect(await e2eDb()("conversations").where({ id: other }).first("flagged_at")).toEqual({ flagged_at: null });

    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Delete conversation" }).click();
    await page.getByText(words(DELETE_CONVERSATION_CONFIRM)).waitFor();
    // With JavaScript the question opens in place; without, it is a page of its own.
    expect(new URL(page.url()).searchParams.get("confirm")).toBe(mode.js ? null : "delete");
    await waitForHydration(page, mode);
    await page.getByRole("button", { name: "Yes, delete conversation" }).click();
    await page.getByText("Conversation deleted, with its messages and files.").waitFor();
    expect(await e2eDb()("conversations").where({ id: other }).first("id")).toBeUndefined();
    await expect.poll(() => page.getByRole("list", { name: "Conversations" }).getByRole("listitem").count()).toBe(1);
  });

  it("refuses a rate out of bounds, sets a new one and shows it in the history", async () => {
    allowStatus(400, "a rate out of bounds is sent");
    await go(page, mode.js, "/rates", "Exchange rate");
    const rate = mode.js ? "3,750" : "3760";
    await page.getByLabel("UGX per US dollar").fill("37.5");
    await page.getByRole("button", { name: "Set rate" }).click();
    await page.getByText(words(RATE_OUT_OF_BOUNDS)).waitFor();
    await waitForHydration(page, mode);
    await page.getByLabel("UGX per US dollar").fill(rate);
    await page.getByRole("button", { name: "Set rate" }).click();
    const shown = mode.js ? "3,750" : "3,760";
    await page.getByText(`The rate is now UGX ${shown} per US dollar.`).waitFor();
    expect(await page.getByTestId("current-rate").innerText()).toBe(`UGX ${shown}`);
    const admin = (await e2eDb()("users").where({ email: DEMO_ADMIN.email }).first("name")).name as string;
    const newest = page.getByRole("table", { name: "History" }).getByRole("row").nth(1);
    expect(await newest.innerText()).toMatch(new RegExp(`${shown}\\s+${admin}`));
  });
});
