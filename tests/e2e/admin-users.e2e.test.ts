/**
 * The admin portal's user management, as an admin uses it on the admin host with JavaScript on and off: a member
 * found by search and suspended, whose open page is signed out at once (with JavaScript it goes to sign-in
 * by itself as its live connection ends; either way their next request meets the sign-in page); a selection activated in
 * bulk (and refused with its message when nothing is selected); a member deleted after its
 * question; the audit log listing what was done.
 */
import { randomBytes } from "node:crypto";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { DELETE_CONFIRMATION, NOTHING_SELECTED } from "~/schemas/admin";
import { adminUrl, allowConsoleErrors, allowStatus, appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";
import { DEMO_ADMIN, newPerson, signIn, type Person } from "../support/e2e-orders";
import { createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";
import { words } from "../support/words";

describeBothModes("Admin user management", (mode) => {
  const tag = randomBytes(4).toString("hex");
  let page: Page;
  let member: Person;
  let target: TestUser;
  let sleepers: TestUser[];

  beforeAll(async () => {
    const db = e2eDb();
    target = await createUser(db, { name: `Wanjiru Usr ${tag}`, username: `wanjiru_${tag}`, role: "client" });
    sleepers = [
      await createUser(db, { name: `Sleeper One ${tag}`, username: `sleeper1_${tag}`, status: "suspended" }),
      await createUser(db, { name: `Sleeper Two ${tag}`, username: `sleeper2_${tag}`, status: "banned" }),
    ];
    // The member, signed in on the main site with a page open.
    member = await newPerson(mode);
    await member.page.goto(appUrl("/messages"));
    await signIn(member.page, mode, { email: target.email, password: DEFAULT_PASSWORD }, "Messages");
    if (mode.js) await member.page.getByRole("status").getByText("Connected", { exact: true }).waitFor();

    await mode.context().clearCookies();
    page = await mode.page();
    await page.goto(adminUrl("/users"));
    await waitForHydration(page, mode);
    await signIn(page, mode, DEMO_ADMIN, "User management");
  });
  afterAll(async () => {
    await member?.close();
  });

  /** Searches the list: with JavaScript the form reloads by itself a moment after typing; without, by its button. */
  async function search(q: string) {
    await page.getByLabel("Search").fill(q);
    if (!mode.js) await page.getByRole("button", { name: "Search" }).click();
    await page.waitForURL((url) => url.searchParams.get("q") === q);
  }

  it("finds a member by search and suspends them; their open page is signed out at once", async () => {
    allowConsoleErrors(
      /status of 401 \(Unauthorized\) \(from http:\/\/[^/]+\/notifications\/counts\)$/,
      "suspended, the member's open page asks whether its session is still on and is told no",
    );
    await search(`wanjiru_${tag}`);
    const rows = page.getByRole("table").getByRole("row");
    await expect.poll(() => rows.count()).toBe(2);
    await page
      .getByRole("row", { name: new RegExp(target.name) })
      .getByText("Active", { exact: true })
      .waitFor();
    await page.getByRole("button", { name: `Suspend ${target.name}` }).click();
    await page.getByText(`${target.name} was suspended.`).waitFor();
    await page
      .getByRole("row", { name: new RegExp(target.name) })
      .getByText("Suspended", { exact: true })
      .waitFor();
    expect(await e2eDb()("users").where({ id: target.id }).first("status")).toEqual({ status: "suspended" });

    if (mode.js) {
      // With JavaScript the member's open page is signed out there and then: the server ends its live
      // connection and the page goes to sign-in by itself, to come back where it was.
      await member.page.getByRole("heading", { level: 1, name: "Welcome back", exact: true }).waitFor();
      expect(new URL(member.page.url())).toMatchObject({ pathname: "/login", search: "?redirectTo=%2Fmessages" });
    }
    // Their next request meets the sign-in page.
    await member.page.goto(appUrl("/dashboard"));
    await member.page.getByRole("heading", { level: 1, name: "Welcome back", exact: true }).waitFor();
    expect(new URL(member.page.url()).pathname).toBe("/login");
  });

  it("refuses a bulk action with nothing selected, then activates a selection", async () => {
    allowStatus(400, "a bulk action is sent with nothing selected");
    await search(tag);
    await page.getByRole("button", { name: "Activate selected" }).click();
    await page.getByText(words(NOTHING_SELECTED)).waitFor();
    for (const s of sleepers) await page.getByRole("checkbox", { name: `Select ${s.name}` }).check();
    await page.getByRole("checkbox", { name: `Select ${target.name}` }).check();
    await page.getByRole("button", { name: "Activate selected" }).click();
    await page.getByText("3 members activated.").waitFor();
    const statuses = await e2eDb()("users")
      .whereIn("id", [target.id, ...sleepers.map((s) => s.id)])
      .pluck("status");
    expect(statuses).toEqual(["active", "active", "active"]);
  });

  it("deletes a member after asking first", async () => {
    await search(`sleeper2_${tag}`);
    await page.getByRole("link", { name: `Delete ${sleepers[1]!.name}` }).click();
    await page.getByText(words(DELETE_CONFIRMATION)).waitFor();
    await page.getByRole("button", { name: "Delete user" }).click();
    await page.getByText("The member was deleted.").waitFor();
    await page.getByText("No users found").waitFor();
    const row = await e2eDb()("users").where({ id: sleepers[1]!.id }).first("name", "deleted_at");
    expect(row.name).toBe("Deleted member");
    expect(row.deleted_at).not.toBeNull();
  });

  it("lists what was done in the audit log, newest first, the member linked", async () => {
    await page.goto(adminUrl("/audit"));
    await page.getByRole("heading", { level: 1, name: "Audit log" }).waitFor();
    await waitForHydration(page, mode);
    const newest = page.getByRole("table").getByRole("row").nth(1);
    await newest.getByText("Deleted a member").waitFor();
    await newest.getByRole("link", { name: `Deleted member (#${sleepers[1]!.id})` }).click();
    await page.getByRole("heading", { level: 1, name: "User management" }).waitFor();
    await page
      .getByRole("row", { name: /Deleted member/ })
      .getByText("Deleted", { exact: true })
      .waitFor();
    expect(new URL(page.url()).pathname).toBe("/users");
  });
});
