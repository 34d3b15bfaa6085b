/**
 * End-to-end helpers for specs that follow orders through several people at once: each person is a browser
 * context of their own (their own cookies, so nobody signs out for the other to act), with JavaScript as the
 * pass has it, and signs in or joins through the pages a person uses.
 */
import type { Page } from "playwright-core";
import { appUrl, waitForHydration, type Mode } from "./e2e";

/** The demo admin the seed creates (README's demo logins). */
export const DEMO_ADMIN = { email: "admin@soko.test", password: "soko-demo-2026" };

export type Person = { page: Page; close: () => Promise<void> };

/** A new person in this pass's browser: a context of their own, set up like the pass's own (see describeBothModes). */
export async function newPerson(mode: Mode): Promise<Person> {
  const browser = mode.context().browser();
  if (!browser) throw new Error("The pass's context has no browser to open another in");
  const context = await browser.newContext({ javaScriptEnabled: mode.js, viewport: { width: 412, height: 900 } });
  context.setDefaultTimeout(10_000);
  return { page: await context.newPage(), close: () => context.close() };
}

/** Goes to `path` and, with JavaScript, waits until the page has hydrated so clicks reach Remix. */
export async function open(page: Page, mode: Mode, path: string) {
  await page.goto(appUrl(path));
  await waitForHydration(page, mode);
}

/** Signs in on the sign-in page the browser is on (where a protected page sent it), and waits for `heading`. */
export async function signIn(page: Page, mode: Mode, who: { email: string; password: string }, heading: string | RegExp = /^Welcome back, /) {
  await waitForHydration(page, mode);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
  await waitForHydration(page, mode);
}

export type NewMember = { name: string; email: string; password: string };

/** Joins as a client through /register, and waits for the dashboard that greets them. */
export async function joinAsClient(page: Page, mode: Mode, who: NewMember) {
  await open(page, mode, "/register");
  await page.getByLabel("Full name").fill(who.name);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByLabel("Confirm password").fill(who.password);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByRole("heading", { level: 1, name: `Welcome back, ${who.name.split(" ")[0]}!` }).waitFor();
  await waitForHydration(page, mode);
}

/** Joins as a seller through /freelancer/register (skills, experience, terms), and waits for the seller's dashboard. */
export async function joinAsFreelancer(page: Page, mode: Mode, who: NewMember & { skills: string; description: string }) {
  await open(page, mode, "/freelancer/register");
  await page.getByLabel("Full name").fill(who.name);
  await page.getByLabel("Email").fill(who.email);
  await page.getByLabel("Password", { exact: true }).fill(who.password);
  await page.getByLabel("Confirm password").fill(who.password);
  await page.getByLabel("Skills").fill(who.skills);
  await page.getByLabel("Years of experience").fill("2");
  await page.getByLabel("Professional description").fill(who.description);
  await page.getByLabel(/I agree to the/).check();
  await page.getByRole("button", { name: "Join as a seller" }).click();
  await page.getByText("Manage your gigs, orders and earnings").waitFor();
  await waitForHydration(page, mode);
}

/** An order page's timeline. */
export const timeline = (page: Page) => page.getByRole("list", { name: "Timeline" });

/**
 * The buyer approves a delivery on its order's page (the page is open): "Approve delivery…" opens the
 * confirmation, which must name the amount released and the seller, and "Yes, release" confirms it.
 * Approving is never one tap: the confirmation is what the server asks for.
 */
export async function approveDelivery(page: Page, mode: Mode, { amount, seller }: { amount: string; seller: string }) {
  await page.getByRole("link", { name: "Approve delivery…" }).click();
  await page.getByText(`Release ${amount} to ${seller}? This cannot be undone.`).waitFor();
  await waitForHydration(page, mode);
  await page.getByRole("button", { name: `Yes, release ${amount}` }).click();
}
