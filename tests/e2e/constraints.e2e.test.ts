/**
 * Every Conform form carries its schema's rules as HTML constraints (required, minlength, maxlength, min,
 * max), so the browser checks a form before sending it even without JavaScript; with JavaScript, Conform
 * checks it with the same schema and says why beside the field.
 */
import type { Locator, Page } from "playwright-core";
import { expect, it } from "vitest";
import { appUrl, describeBothModes, e2eDb, waitForHydration } from "../support/e2e";

const DEMO_PASSWORD = "soko-demo-2026";

/** The constraint attributes of the element a label names, as the browser has them. */
async function constraints(page: Page | Locator, label: string | RegExp) {
  return page
    .getByLabel(label, { exact: typeof label === "string" })
    .evaluate((el) =>
      Object.fromEntries(
        ["required", "minlength", "maxlength", "min", "max", "pattern", "multiple"].filter((a) => el.hasAttribute(a)).map((a) => [a, el.getAttribute(a)]),
      ),
    );
}

it("serves the join form with its rules on its inputs", async () => {
  const html = await (await fetch(appUrl("/register"))).text();
  const input = (name: string) => new RegExp(`<input[^>]*\\bname="${name}"[^>]*>`).exec(html)?.[0] ?? "";
  for (const [name, rules] of [
    ["name", ["required", 'minLength="2"', 'maxLength="100"']],
    ["email", ["required", 'maxLength="254"']],
    ["password", ["required", 'minLength="8"', 'maxLength="200"']],
    ["confirmPassword", ["required"]],
  ] as const) {
    for (const rule of rules) expect(input(name).toLowerCase(), `${name}: ${rule}`).toContain(rule.toLowerCase());
  }
  // Not `novalidate` (Conform's default until hydration), or the browser would check nothing without JavaScript.
  expect(/<form[^>]*\bid="register"[^>]*>/.exec(html)?.[0]).not.toMatch(/novalidate/i);
});

describeBothModes("Forms checked by the browser", (mode) => {
  it("gives each field of the account forms its schema's rules", async () => {
    const page = await mode.page();
    await page.goto(appUrl("/register"));
    expect(await constraints(page, "Full name")).toEqual({ required: "", minlength: "2", maxlength: "100" });
    expect(await constraints(page, "Email")).toEqual({ required: "", maxlength: "254" });
    expect(await constraints(page, "Password")).toEqual({ required: "", minlength: "8", maxlength: "200" });
    await page.goto(appUrl("/freelancer/register"));
    expect(await constraints(page, "Skills")).toEqual({ required: "", maxlength: "600" });
    expect(await constraints(page, "Years of experience")).toEqual({ min: "0", max: "60" });
    expect(await constraints(page, "Portfolio URL (optional)")).toEqual({ maxlength: "300" });
    expect(await constraints(page, "Professional description")).toEqual({ maxlength: "2000" });
    expect(await constraints(page, /I agree to the/)).toEqual({ required: "" });
    await page.goto(appUrl("/login"));
    expect(await constraints(page, "Email")).toEqual({ required: "", maxlength: "254" });
    expect(await constraints(page, "Password")).toEqual({ required: "", maxlength: "200" });
    await page.goto(appUrl("/forgot-password"));
    expect(await constraints(page, "Email")).toEqual({ required: "", maxlength: "254" });
    await page.close();
  });

  it("gives the settings tabs their rules, and the mobile-money number none that refuses how people type it", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.goto(appUrl("/login?redirectTo=/settings"));
    await waitForHydration(page, mode);
    await page.getByLabel("Email").fill("client@soko.test");
    await page.getByLabel("Password", { exact: true }).fill(DEMO_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByRole("button", { name: "Save profile" }).waitFor();
    expect(await constraints(page, "Full name")).toEqual({ required: "", minlength: "2", maxlength: "100" });
    expect(await constraints(page, "Bio")).toEqual({ maxlength: "2000" });
    expect(await constraints(page, "Location")).toEqual({ maxlength: "100" });
    await page.goto(appUrl("/settings?tab=security"));
    // The password form's own (Security also has the email change, which asks for the current password too).
    const passwordForm = page.locator("form").filter({ has: page.getByLabel("New password", { exact: true }) });
    expect(await constraints(passwordForm, "Current password")).toEqual({ required: "", maxlength: "200" });
    expect(await constraints(page, "New password")).toEqual({ required: "", minlength: "8", maxlength: "200" });
    await page.goto(appUrl("/settings?tab=billing"));
    // Typed with spaces ("+256 772 123456"), which the server takes: a pattern would refuse it.
    expect(await constraints(page, "Mobile-money number")).toEqual({ required: "", maxlength: "30" });
    await page.close();
  });

  it("does not send a join form with an empty required field", async () => {
    await mode.context().clearCookies();
    const page = await mode.page();
    await page.goto(appUrl("/register"));
    await waitForHydration(page, mode);
    const posts: string[] = [];
    page.on("request", (r) => (r.method() === "POST" ? posts.push(r.url()) : undefined));
    const email = `constraint.${mode.js ? "on" : "off"}@example.ug`;
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Password", { exact: true }).fill("a-long-password");
    await page.getByLabel("Confirm password").fill("a-long-password");
    await page.getByRole("button", { name: "Create account" }).click();
    if (mode.js) {
      // Conform checks with the schema and says why, beside the field.
      await page.getByText("Enter your full name").waitFor();
    } else {
      // The browser stops the form itself: the empty field is invalid and nothing is sent.
      await page.waitForTimeout(500); // a POST that must not be sent is a non-event: the time it would take
      expect(await page.getByLabel("Full name").evaluate((el) => (el as HTMLInputElement).validity.valueMissing)).toBe(true);
      expect(await page.locator("input:invalid").count()).toBe(1);
    }
    expect(posts).toEqual([]);
    expect(new URL(page.url()).pathname).toBe("/register");
    expect(await e2eDb()("users").where({ email }).first()).toBeUndefined();
    await page.close();
  });
});
