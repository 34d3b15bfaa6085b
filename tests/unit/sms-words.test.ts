/**
 * Every text's words (the `notify.sms.*` messages, ADR 050) in every language fit one SMS: at most 160 GSM-7
 * characters (one character outside GSM-7 would make the whole text UCS-2, 70 characters a part), said with
 * realistic values at their longest: a title cut to 40 characters (shortText), a name to 30, six digits of code.
 */
import { describe, expect, it } from "vitest";
import { sayIn } from "~/content/operation-messages";
import { readSourceCatalogues } from "~/i18n/catalog.server";
import { LOCALES } from "~/i18n/locales";
import { shortText } from "~/operations/sms.server";
import { gsm7Length } from "../support/gsm7";

const VALUES = {
  code: "482913",
  title: shortText("I will design a modern logo for your shop, brand and social media pages"),
  name: shortText("Nakato Nabukenya Margaret Florence", 30),
  hours: 23,
};

const keys = Object.keys(readSourceCatalogues().en.notify ?? {}).filter((k) => k.startsWith("notify.sms."));

describe("SMS words", () => {
  it("are there (the texts queueSms sends)", () => {
    expect(keys).toEqual(expect.arrayContaining(["notify.sms.code", "notify.sms.newOrder", "notify.sms.unreadMessage"]));
  });

  for (const locale of LOCALES) {
    it(`fit one SMS of 160 GSM-7 characters in ${locale}`, () => {
      const say = sayIn(locale);
      const tooLong = keys
        .map((key) => ({ key, text: say(key, VALUES) }))
        .map(({ key, text }) => ({ key, text, length: gsm7Length(text) }))
        .filter(({ length }) => length === null || length > 160);
      expect(tooLong).toEqual([]);
    });
  }

  it("counts as GSM-7 what is, and refuses curly quotes and Luganda's ŋ", () => {
    expect(gsm7Length('Soko: "Logo" [x]')).toBe(18);
    expect(gsm7Length("Soko: “Logo”")).toBeNull();
    expect(gsm7Length("okwaŋŋanga")).toBeNull();
  });
});

describe("shortText", () => {
  it("gives a phone keyboard's curly quotes, dashes and ellipsis their GSM-7 lookalikes", () => {
    expect(shortText("I’ll design “Juice” logos – fast…")).toBe(`I'll design "Juice" logos - fast...`);
    expect(gsm7Length(shortText("Nakato’s “best” logo — 2 days"))).not.toBeNull();
  });

  it("cuts a long title to 40 characters without splitting an emoji", () => {
    const cut = shortText(`${"a".repeat(36)}🎨🎨 shop logo`);
    expect(cut).toBe(`${"a".repeat(36)}🎨...`);
    expect(Array.from(cut)).toHaveLength(40);
  });
});
