import { setupI18n } from "@lingui/core";
import { describe, expect, it } from "vitest";
import { messagesFor } from "~/i18n/catalog.server";
import { INTL_LOCALES, type Locale } from "~/i18n/locales";
import { FAQ_QUERY_MAX_LENGTH, SUPPORT_EMAIL, SUPPORT_PHONE, faqGroups, faqText, normalizeFaqQuery, searchFaq, type Translate } from "./faq";

/** The `legal` namespace's words in one language, as the help page's loader and components say them. */
function wordsOf(locale: Locale): Translate {
  const i18n = setupI18n({ locale, locales: INTL_LOCALES[locale], messages: { [locale]: messagesFor(locale, ["legal"]) } });
  return i18n._.bind(i18n);
}
const en = wordsOf("en");
const lg = wordsOf("lg");
const sw = wordsOf("sw");

const textsIn = (t: Translate) => faqGroups.flatMap((g) => g.items.map((i) => faqText(i, t)));
const allQuestions = textsIn(en).map((i) => i.question);
const allText = textsIn(en)
  .map((i) => `${i.question} ${i.answer}`)
  .join("\n");
const titlesOf = (groups: typeof faqGroups, t: Translate) => groups.map((g) => t(g.title));

describe("FAQ content", () => {
  it("has four groups, each with questions, and unique ids", () => {
    expect(titlesOf(faqGroups, en)).toEqual(["Getting started", "For clients: payments and fees", "For freelancers", "Orders and disputes"]);
    for (const group of faqGroups) expect(group.items.length).toBeGreaterThan(0);
    const ids = faqGroups.flatMap((g) => g.items.map((i) => i.id));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("states the product's facts: fees, escrow, payout delay and support hours", () => {
    expect(allText).toContain("service fee of 20%");
    expect(allText).toContain("processing fee of 5% of the order price, with a minimum of UGX 1,000");
    expect(allText).toContain("held in escrow until the work is approved");
    expect(allText).toContain("about 14 days after completion");
    expect(allText).toContain("Monday to Friday, 9 AM to 6 PM East Africa Time");
    expect(allText).toContain(`Email ${SUPPORT_EMAIL} or call ${SUPPORT_PHONE};`);
  });

  it("says every question and answer in Luganda and Swahili, with the same figures and contacts", () => {
    for (const t of [lg, sw]) {
      const texts = textsIn(t);
      texts.forEach((text, i) => {
        expect(text.question).not.toBe(allQuestions[i]);
        expect(text.answer).not.toMatch(/\{|legal\./);
      });
      const all = texts.map((i) => `${i.question} ${i.answer}`).join("\n");
      for (const fact of ["20%", "5%", "UGX 1,000", "14", "escrow", SUPPORT_EMAIL, SUPPORT_PHONE, "(EAT)"]) expect(all).toContain(fact);
      expect(titlesOf(faqGroups, t)).not.toContain("Getting started");
    }
  });
});

describe("searchFaq", () => {
  it("returns everything for an empty or blank query", () => {
    for (const q of ["", "   ", undefined, null]) {
      const result = searchFaq(q, en);
      expect(result.query).toBe("");
      expect(result.matchCount).toBe(allQuestions.length);
      expect(result.groups).toHaveLength(4);
    }
  });

  it("matches questions case-insensitively and drops groups without matches", () => {
    const result = searchFaq("  SERVICE FEE ", en);
    expect(result.query).toBe("SERVICE FEE");
    const questions = result.groups.flatMap((g) => g.items.map((i) => faqText(i, en).question));
    expect(questions).toContain("What is the freelancer service fee?");
    expect(titlesOf(result.groups, en)).toEqual(["For freelancers"]);
    expect(result.matchCount).toBe(questions.length);
  });

  it("matches words in answers, and needs every word", () => {
    const escrow = searchFaq("escrow", en);
    expect(escrow.matchCount).toBeGreaterThanOrEqual(3);
    const both = searchFaq("escrow dispute", en);
    expect(both.matchCount).toBeGreaterThan(0);
    expect(both.matchCount).toBeLessThan(escrow.matchCount);
    for (const item of both.groups.flatMap((g) => g.items)) {
      const { question, answer } = faqText(item, en);
      const text = `${question} ${answer}`.toLowerCase();
      expect(text).toContain("escrow");
      expect(text).toContain("dispute");
    }
  });

  it("searches in the reader's language", () => {
    // The words of the search box's own examples in each language: "fees" and "escrow".
    for (const [t, fee, dispute] of [
      [lg, "ebisale", "enkaayana"],
      [sw, "ada", "mzozo"],
    ] as const) {
      expect(searchFaq(fee, t).matchCount).toBeGreaterThan(0);
      expect(searchFaq("escrow", t).matchCount).toBeGreaterThanOrEqual(3);
      const found = searchFaq(`escrow ${dispute}`, t);
      expect(found.matchCount).toBeGreaterThan(0);
      for (const item of found.groups.flatMap((g) => g.items)) {
        const { question, answer } = faqText(item, t);
        expect(`${question} ${answer}`.toLowerCase()).toContain(dispute);
      }
      // English words are not in the translation: the page searches what the reader sees.
      expect(searchFaq("freelancer", t).matchCount).toBe(0);
    }
  });

  it("finds nothing for nonsense", () => {
    const result = searchFaq("zzxqv", en);
    expect(result.matchCount).toBe(0);
    expect(result.groups).toEqual([]);
  });

  it("treats regular-expression characters literally", () => {
    expect(searchFaq(".*", en).matchCount).toBe(0);
    expect(searchFaq("20%", en).matchCount).toBe(1);
  });

  it("caps the query at 200 characters and ignores values that are not strings", () => {
    expect(normalizeFaqQuery("a".repeat(10_000))).toHaveLength(FAQ_QUERY_MAX_LENGTH);
    expect(searchFaq("a".repeat(10_000), en).matchCount).toBe(0);
    expect(normalizeFaqQuery(["x"])).toBe("");
    expect(normalizeFaqQuery(42)).toBe("");
    expect(normalizeFaqQuery("  fee\u0000\nescrow\t")).toBe("fee  escrow");
  });
});
