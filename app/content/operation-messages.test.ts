/**
 * Operations fail with codes, and this module has the words (ADR 035): every code an operation file names
 * has words, no operation file puts a sentence in a failure, and a limit's words are its limiter's own.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { failureMessage, LIMIT_MESSAGES, messageOf, OPERATION_MESSAGES } from "~/content/operation-messages";
import { LIMITS } from "~/server/rate-limit.server";

const root = path.resolve(__dirname, "../..");

/** Every file that makes failures: the operations, and the few outside app/operations that build them. */
const sources = [
  ...readdirSync(path.join(root, "app/operations"))
    .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
    .map((name) => `app/operations/${name}`),
  "app/analytics/pipeline-replay.server.ts",
  "app/server/files/upload-quota.server.ts",
  "app/server/files/storage.server.ts",
  "app/server/files/order-files.server.ts",
  "app/server/files/message-files.server.ts",
].map((file) => ({ file, text: readFileSync(path.join(root, file), "utf8") }));

const CALL = /\b(notFound|forbidden|conflict|issue|InvalidImageError|InvalidOrderFileError)\(\s*(?:\{\s*code:\s*)?(["'`])([^"'`]*)\2/g;

describe("operation failure codes", () => {
  it("every code an operation names has words", () => {
    const named = new Set<string>();
    for (const { text } of sources) for (const match of text.matchAll(CALL)) named.add(match[3]!);
    expect(named.size).toBeGreaterThan(50);
    const missing = [...named].filter((code) => !(code in OPERATION_MESSAGES));
    expect(missing).toEqual([]);
  });

  it("no operation puts a sentence in a failure", () => {
    const sentences: string[] = [];
    for (const { file, text } of sources) {
      for (const match of text.matchAll(CALL)) if (/\s/.test(match[3]!)) sentences.push(`${file}: ${match[0]}`);
      // Field issues as bare strings: invalid({ field: ["Words"] }) or invalid({ field: [`Words ${x}`] }).
      for (const match of text.matchAll(/\binvalid\(\{[^)]*\[\s*(["'`])[^"'`]*\1/g)) sentences.push(`${file}: ${match[0]}`);
    }
    expect(sentences).toEqual([]);
  });

  it("says a limit in its limiter's own words, with when to try again for sign-in", () => {
    for (const [name, limit] of Object.entries(LIMITS)) expect(LIMIT_MESSAGES[name as keyof typeof LIMITS], name).toBe(limit.key);
    expect(messageOf({ code: "limit.exceeded", params: { limit: "signIn", retryAfter: 90 } })).toBe(
      "Too many sign-in attempts for this account from your network. Please try again in 2 minutes.",
    );
    expect(messageOf({ code: "limit.exceeded", params: { limit: "signInDevice", retryAfter: 1 } })).toBe(
      "Too many sign-in attempts for this account from this browser. Please try again in 1 second.",
    );
    expect(messageOf({ code: "limit.exceeded", params: { limit: "join", retryAfter: 90 } })).toBe(LIMITS.join.message);
  });

  it("words a code's parameters as the pages always did", () => {
    expect(messageOf({ code: "order.not_allowed_now", params: { status: "delivered" } })).toBe(
      "This order is delivered, so that cannot be done now. Reload the page to see where it stands.",
    );
    expect(messageOf({ code: "payout.below_minimum", params: { minUgx: 5000 } })).toBe("The smallest withdrawal is UGX 5,000.");
    expect(messageOf({ code: "upload.storage_full", params: { storedBytes: 1000 * 1024 * 1024, maxBytes: 1024 * 1024 * 1024 } })).toBe(
      "These files would take you past the 1 GB of files one member may keep on Soko (yours take 1 GB now).",
    );
    expect(messageOf({ code: "image.wrong_type", params: { file: "cat.gif" } })).toBe("cat.gif: Upload a JPEG, PNG or WebP image");
    expect(messageOf({ code: "admin.last_admin", params: { batch: true } })).toBe(
      "That is the last active admin: the platform must keep one. Nothing was changed.",
    );
    expect(failureMessage({ error: "invalid", issues: { amountUgx: [{ code: "schema", message: "Enter an amount" }] } })).toBe("Enter an amount");
  });

  it("says a refusal in the reader's language, English unless asked (ADR 047)", () => {
    const coded = { code: "order.not_allowed_now", params: { status: "delivered" } } as const;
    expect(messageOf(coded, "en")).toBe(messageOf(coded));
    expect(messageOf(coded, "sw")).toBe("Agizo hili limewasilishwa, kwa hiyo hilo haliwezi kufanyika sasa. Pakia upya ukurasa uone hali yake.");
    expect(messageOf({ code: "limit.exceeded", params: { limit: "signIn", retryAfter: 90 } }, "lg")).toMatch(/^Okugezaako .* ddakiika 2\.$/);
    expect(messageOf({ code: "payout.below_minimum", params: { minUgx: 5000 } }, "sw")).toContain("UGX 5");
    // A schema's keyed message (app/i18n/message-key.ts) is said through the catalogue; words stay as they are.
    expect(failureMessage({ error: "invalid", issues: { file: [{ code: "schema", message: "ops.upload.noFile" }] } }, "en")).toBe("Choose a file to upload");
    expect(failureMessage({ error: "invalid", issues: { file: [{ code: "schema", message: "ops.upload.noFile" }] } }, "lg")).toBe("Mulonde fayiro gye muteeka");
    expect(failureMessage({ error: "invalid", issues: { form: [{ code: "schema", message: "Plain words" }] } }, "sw")).toBe("Plain words");
  });
});
