import { describe, expect, it } from "vitest";
import { dateTimeFormat, formattingLocale, numberFormat, relativeTimeFormat } from "~/i18n/format";
import { msg, parseKey, sayMessage } from "~/i18n/message-key";
import { negotiateLocale, visitorLocale } from "~/i18n/negotiate.server";
import { i18nOf, sayOf } from "~/i18n/react";
import { compileMessage } from "@lingui/message-utils/compileMessage";
import { formatUgx, formatPrice } from "~/domain/money";
import { formatDate } from "~/utils/dates";

describe("which language a visitor gets", () => {
  it("takes the first language of Accept-Language that Soko speaks, regional tags counting as their language", () => {
    expect(negotiateLocale("sw-KE,sw;q=0.9,en;q=0.8")).toBe("sw");
    expect(negotiateLocale("sw-TZ")).toBe("sw");
    expect(negotiateLocale("lg-UG,en-GB;q=0.7")).toBe("lg");
    expect(negotiateLocale("fr-FR,fr;q=0.9,sw;q=0.5,en;q=0.4")).toBe("sw");
    expect(negotiateLocale("en-GB;q=0.5,lg;q=0.8")).toBe("lg");
    expect(negotiateLocale("fr,de")).toBeNull();
    expect(negotiateLocale("")).toBeNull();
    expect(negotiateLocale(null)).toBeNull();
  });

  it("puts the switcher's cookie before Accept-Language, and falls back to English", () => {
    expect(visitorLocale("soko_lang=lg; other=1", "sw-KE")).toBe("lg");
    expect(visitorLocale("soko_lang=fr", "sw-KE")).toBe("sw");
    expect(visitorLocale("", "fr-FR")).toBe("en");
    expect(visitorLocale(null, null)).toBe("en");
  });

  it("reads only the start of a huge Accept-Language header", () => {
    expect(negotiateLocale(`${"xx;q=0.1,".repeat(5000)}sw`)).toBeNull();
  });
});

describe("formatting in each language", () => {
  it("formats with each language's Ugandan locale, and English's forms where the runtime lacks one", () => {
    expect(formattingLocale("sw")).toBe("sw-UG");
    expect(formattingLocale("lg")).toBe("lg-UG");
    expect(formattingLocale("en")).toBe("en-GB");
    // A runtime without Luganda data (small ICU): English's forms, not a crash or root's.
    expect(formattingLocale("lg", () => [])).toBe("en-GB");
  });

  it("says dates in the reader's language and time zone", () => {
    const when = new Date("2026-12-07T22:30:00Z");
    expect(formatDate(when, "EAT", "en")).toBe("8 December 2026");
    expect(formatDate(when, "UTC", "en")).toBe("7 December 2026");
    expect(formatDate(when, "EAT", "sw")).toBe("8 Desemba 2026");
    expect(formatDate(when, "EAT", "lg")).toMatch(/^8 \p{L}+ 2026$/u);
    expect(formatDate(when, "EAT", "lg")).not.toContain("December");
    expect(dateTimeFormat("sw", { month: "long", timeZone: "UTC" }).format(when)).toBe("Desemba");
  });

  it("groups shillings and dollars in every language", () => {
    expect(formatUgx(1234567, "en")).toBe("UGX 1,234,567");
    expect(formatUgx(1234567, "sw")).toMatch(/^UGX 1[,.\u00a0]234[,.\u00a0]567$/);
    expect(formatPrice(75000, { code: "USD", ugxPerUsd: 3700 }, "lg")).toMatch(/^USD 20[.,]27$/);
    expect(numberFormat("en").format(1234.5)).toBe("1,234.5");
  });

  it("has Intl's relative times in English and Swahili, and none for Luganda, whose catalogue says them", () => {
    expect(relativeTimeFormat("en")?.format(-2, "hour")).toBe("2 hours ago");
    expect(relativeTimeFormat("sw")?.format(-2, "hour")).toMatch(/saa 2/);
    expect(relativeTimeFormat("lg")).toBeNull();
  });
});

describe("messages that travel as keys", () => {
  it("carries a key with its values and says it in the reader's language", () => {
    const i18n = i18nOf("sw", [{ "orders.form.tooLong": compileMessage("Usizidishe herufi {max, number}") }]);
    const t = i18n._.bind(i18n);
    expect(parseKey(msg("orders.form.tooLong", { max: 1200 }))).toEqual({ key: "orders.form.tooLong", values: { max: 1200 } });
    expect(sayMessage(t, msg("orders.form.tooLong", { max: 1200 }))).toBe("Usizidishe herufi 1,200");
  });

  it("leaves words already written as they are", () => {
    const t = i18nOf("en", [])._;
    expect(parseKey("Enter your name.")).toBeNull();
    expect(parseKey("e.g. 5")).toBeNull();
    expect(parseKey("orders.form.x|not json")).toBeNull();
    expect(sayMessage(t, "Already said.")).toBe("Already said.");
  });
});

describe("the short way to say a message", () => {
  it("says every message of every catalogue as Lingui's own `_` does, with and without values", async () => {
    const { LOCALES } = await import("~/i18n/locales");
    const { messagesFor, namespaces } = await import("~/i18n/catalog.server");
    // Every plural category in each language, an exact case (0), and grouping (1,500) for `#`.
    const numbers = [0, 1, 2, 3, 5, 11, 21, 1500];
    const valuesOf = (k: number) => ({
      ...{ count: k, n: k, days: k, revisions: k, max: k, allowed: k, wait: k, left: k },
      ...{ name: "Nakato", amount: "UGX 50,000", title: "Logo design" },
    });
    // Each case of every select in a message, as its value.
    const selectCases = (tokens: unknown, found: [string, string][] = []): [string, string][] => {
      if (Array.isArray(tokens)) {
        if (tokens[1] === "select" && tokens[2] && typeof tokens[2] === "object")
          for (const key of Object.keys(tokens[2])) found.push([tokens[0] as string, key]);
        for (const t of tokens) selectCases(t, found);
      } else if (tokens && typeof tokens === "object") for (const t of Object.values(tokens)) selectCases(t, found);
      return found;
    };
    let shortWay = 0;
    for (const locale of LOCALES) {
      const i18n = i18nOf(locale, [messagesFor(locale, namespaces())]);
      const say = sayOf(i18n);
      for (const [id, message] of Object.entries(i18n.messages)) {
        for (const k of numbers) expect(say(id, valuesOf(k)), `${locale} ${id} ${k}`).toBe(i18n._(id, valuesOf(k)));
        for (const [name, key] of selectCases(message)) {
          const chosen = { ...valuesOf(2), [name]: key };
          expect(say(id, chosen), `${locale} ${id} ${name}=${key}`).toBe(i18n._(id, chosen));
        }
        expect(say(id)).toBe(i18n._(id));
        if ((message as unknown[]).every((t) => typeof t === "string" || (Array.isArray(t) && t.length === 1))) shortWay++;
      }
    }
    // Most messages take the short way (the point of it); a missing id is Lingui's answer, the id itself.
    expect(shortWay).toBeGreaterThan(1000);
    expect(sayOf(i18nOf("sw", []))("no.such.key")).toBe("no.such.key");
  });
});
