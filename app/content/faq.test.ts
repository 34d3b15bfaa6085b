import { describe, expect, it } from "vitest";
import { FAQ_QUERY_MAX_LENGTH, faqGroups, normalizeFaqQuery, searchFaq } from "./faq";

const allQuestions = faqGroups.flatMap((g) => g.items.map((i) => i.question));
const allText = faqGroups.flatMap((g) => g.items.map((i) => `${i.question} ${i.answer}`)).join("\n");

describe("FAQ content", () => {
  it("has four groups, each with questions, and unique ids", () => {
    expect(faqGroups.map((g) => g.title)).toEqual(["Getting started", "For clients: payments and fees", "For freelancers", "Orders and disputes"]);
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
  });
});

describe("searchFaq", () => {
  it("returns everything for an empty or blank query", () => {
    for (const q of ["", "   ", undefined, null]) {
      const result = searchFaq(q);
      expect(result.query).toBe("");
      expect(result.matchCount).toBe(allQuestions.length);
      expect(result.groups).toHaveLength(4);
    }
  });

  it("matches questions case-insensitively and drops groups without matches", () => {
    const result = searchFaq("  SERVICE FEE ");
    expect(result.query).toBe("SERVICE FEE");
    const questions = result.groups.flatMap((g) => g.items.map((i) => i.question));
    expect(questions).toContain("What is the freelancer service fee?");
    expect(result.groups.map((g) => g.title)).toEqual(["For freelancers"]);
    expect(result.matchCount).toBe(questions.length);
  });

  it("matches words in answers, and needs every word", () => {
    const escrow = searchFaq("escrow");
    expect(escrow.matchCount).toBeGreaterThanOrEqual(3);
    const both = searchFaq("escrow dispute");
    expect(both.matchCount).toBeGreaterThan(0);
    expect(both.matchCount).toBeLessThan(escrow.matchCount);
    for (const item of both.groups.flatMap((g) => g.items)) {
      const text = `${item.question} ${item.answer}`.toLowerCase();
      expect(text).toContain("escrow");
      expect(text).toContain("dispute");
    }
  });

  it("finds nothing for nonsense", () => {
    const result = searchFaq("zzxqv");
    expect(result.matchCount).toBe(0);
    expect(result.groups).toEqual([]);
  });

  it("treats regular-expression characters literally", () => {
    expect(searchFaq(".*").matchCount).toBe(0);
    expect(searchFaq("20%").matchCount).toBe(1);
  });

  it("caps the query at 200 characters and ignores values that are not strings", () => {
    expect(normalizeFaqQuery("a".repeat(10_000))).toHaveLength(FAQ_QUERY_MAX_LENGTH);
    expect(searchFaq("a".repeat(10_000)).matchCount).toBe(0);
    expect(normalizeFaqQuery(["x"])).toBe("");
    expect(normalizeFaqQuery(42)).toBe("");
    expect(normalizeFaqQuery("  fee\u0000\nescrow\t")).toBe("fee  escrow");
  });
});
