/**
 * The server's own words reach the reader in their language (ADR 047, "No English left on a translated page"):
 * a body refused before the action, a file refused, the upload quota, a session's name, the admin forms'
 * shared refusals, and a failed payment's reason, each in Luganda or Swahili as the catalogue says it.
 */
import { describe, expect, it } from "vitest";
import { messageOf, sayStored, storedWords } from "~/content/operation-messages";
import { NAME_TAKEN, SPLIT_AMOUNT_REQUIRED } from "~/content/refusal-words";
import { failureIn, failureWords } from "~/payments/failure-words.server";
import { readFormData, readMultipartFormData } from "~/server/form-data.server";
import { InvalidOrderFileError, storeOrderFiles } from "~/server/files/order-files.server";
import { uploadRefusalIssue } from "~/server/files/upload-quota.server";
import { sessionLabel } from "~/server/member-sessions.server";
import { words } from "../support/words";

const CHROME_ANDROID = "Mozilla/5.0 (Linux; Android 13; TECNO KI7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/** What a reader gets back when a reader throws its answer. */
async function refusal(read: Promise<unknown>): Promise<{ status: number; text: string; language: string | null }> {
  const answer = await read.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  if (!(answer instanceof Response)) throw new Error("expected a Response to be thrown");
  return { status: answer.status, text: await answer.text(), language: answer.headers.get("Content-Language") };
}

describe("a body refused before the action", () => {
  it("says so in the visitor's language, with the same status", async () => {
    const json = new Request("http://soko.test/login", {
      method: "POST",
      headers: { "Content-Type": "application/json", "Accept-Language": "sw-KE,sw;q=0.9" },
      body: "{}",
    });
    expect(await refusal(readFormData(json))).toEqual({ status: 415, text: words("ops.form.notAForm", "sw"), language: "sw" });
    const plain = new Request("http://soko.test/settings", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: "soko_lang=lg" },
      body: "a=1",
    });
    expect(await refusal(readMultipartFormData(plain, { maxPartSize: 1024 }))).toEqual({
      status: 415,
      text: words("ops.form.notAFileForm", "lg"),
      language: "lg",
    });
    const many = new Request("http://soko.test/login", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: "soko_lang=lg" },
      body: Array.from({ length: 101 }, (_, i) => `f${i}=1`).join("&"),
    });
    const tooMany = await refusal(readFormData(many));
    expect(tooMany.status).toBe(413);
    expect(tooMany.text).toBe(words('ops.form.tooManyParts|{"max":100}', "lg"));
    expect(tooMany.text).not.toBe(words('ops.form.tooManyParts|{"max":100}', "en"));
  });
});

describe("a file refused", () => {
  it("is worded by the page in the reader's language, and nothing is stored", async () => {
    const refused = await storeOrderFiles([{ name: "tool.exe", bytes: new Uint8Array([0x4d, 0x5a, 0x00, 0x01]) }], { userId: 1 }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidOrderFileError);
    const error = refused as InvalidOrderFileError;
    expect(error.status).toBe(400);
    expect(error.words("lg")).toBe(words('ops.upload.fileWrongType|{"file":"tool.exe"}', "lg"));
    expect(error.words("en")).toMatch(/^tool\.exe is not a file we accept/);
    const six = await storeOrderFiles(
      Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, bytes: new TextEncoder().encode("hello") })),
      { userId: 1 },
    ).catch((e: unknown) => e);
    expect(six).toBeInstanceOf(InvalidOrderFileError);
    expect((six as InvalidOrderFileError).words("sw")).toBe(words('ops.upload.tooManyFiles|{"max":5}', "sw"));
  });

  it("over the storage cap, says the quota's words in the reader's language", () => {
    const issue = uploadRefusalIssue({ status: 400, storedBytes: 500 * 1024 * 1024 });
    expect(messageOf(issue, "sw")).toBe(words('ops.upload.storageFull|{"max":"1 GB","stored":"500 MB"}', "sw"));
    expect(messageOf(issue, "sw")).not.toBe(messageOf(issue, "en"));
  });
});

describe("a session's name", () => {
  it("keeps the browser's and OS's names and words the rest in the reader's language", () => {
    expect(sessionLabel({ kind: "browser", platform: null, userAgent: CHROME_ANDROID }, "en")).toBe("Mobile Chrome on Android");
    expect(sessionLabel({ kind: "browser", platform: null, userAgent: CHROME_ANDROID }, "sw")).toBe("Mobile Chrome kwenye Android");
    expect(sessionLabel({ kind: "browser", platform: null, userAgent: "" }, "lg")).toBe(words("ops.sessions.aBrowser", "lg"));
    expect(sessionLabel({ kind: "app", platform: "android", userAgent: null }, "lg")).toBe(words("ops.sessions.androidApp", "lg"));
  });
});

describe("the admin forms' shared refusals", () => {
  it("are keys the server says in the reader's language", () => {
    expect(messageOf({ code: "category.name_taken", params: {} }, "lg")).toBe(words(NAME_TAKEN, "lg"));
    expect(messageOf({ code: "dispute.split_amount_required", params: {} }, "sw")).toBe(words(SPLIT_AMOUNT_REQUIRED, "sw"));
    expect(words(NAME_TAKEN, "en")).toBe("Another category already has this name");
  });
});

describe("a failed payment's reason", () => {
  it("keeps the provider's English and is read in the reader's language", () => {
    const said = failureWords("The payer declined (APPROVAL_REJECTED)");
    expect(storedWords(said)).toEqual({ text: "The payer declined (APPROVAL_REJECTED)", key: "ops.reason.declined", values: "{}" });
    expect(sayStored("The payer declined (APPROVAL_REJECTED)", said, "lg")).toBe(words("ops.reason.declined", "lg"));
    expect(failureWords("Airtel Money refused our credentials (HTTP 401)").key).toBe("ops.reason.providerRefused");
    // A row from before the keys shows its stored words.
    expect(sayStored("Not paid within 30 minutes", null, "sw")).toBe("Not paid within 30 minutes");
    expect(sayStored("x", { key: "ops.reason.stars", values: { rating: 4 } }, "sw")).toBe(words('ops.reason.stars|{"rating":4}', "sw"));
  });

  it("of a transfer from before the keys is read from its English, as a new one is", () => {
    expect(failureIn("The payer declined (APPROVAL_REJECTED)", null, "sw")).toBe(words("ops.reason.declined", "sw"));
    expect(failureIn("Declined on the phone", null, "lg")).toBe(words("ops.reason.declined", "lg"));
    expect(failureIn("Airtel Money refused our credentials (HTTP 401)", null, "lg")).toBe(words("ops.reason.providerRefused", "lg"));
    expect(failureIn("x", { key: "ops.reason.noWallet" }, "sw")).toBe(words("ops.reason.noWallet", "sw"));
    expect(failureIn(null, null, "sw")).toBeNull();
  });
});
