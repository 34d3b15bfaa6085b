/**
 * parseEvent's plain-function check of the hot events (ADR 021) must give what the zod schema gives: the
 * same output for everything it accepts, and the schema's answer for everything else. Compared here on
 * thousands of events made from valid ones with fields changed to values near and across each rule.
 */
import { describe, expect, it } from "vitest";
import { ActionEvent, ActionPageviewEvent, parseEvent, PageviewEvent, quickParse } from "~/analytics/events";

const valid = {
  action: {
    event_id: "3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c",
    session_id: "1764000000000-k3j9x2",
    timestamp: 1_764_000_000_000,
    platform: "web",
    action_type: "click",
    page: "/gig/12",
    element_id: "continue",
    element_class: "btn btn-primary",
    element_tag: "button",
    element_text: "Continue (UGX 150,000)",
    x: 420,
    y: 1380,
  },
  pageview: {
    event_id: "3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7c",
    session_id: "1764000000000-k3j9x2",
    timestamp: 1_764_000_000_000,
    page: "/browse",
    title: "Browse",
    url: "http://localhost/browse?q=logo",
    referrer: "",
  },
};

/** Values that sit on either side of some rule of some field. */
const CANDIDATES: unknown[] = [
  undefined,
  null,
  true,
  0,
  -1,
  1.5,
  42,
  100_000,
  100_001,
  1_000_000,
  1e9,
  1e9 + 1,
  Number.MAX_SAFE_INTEGER,
  Infinity,
  Number.NaN,
  "",
  "x",
  "x".repeat(40),
  "x".repeat(5_000),
  "click",
  "pageview",
  "scroll",
  "Click",
  "3F1C2A9E-8B7D-4C6E-9A1B-2D3E4F5A6B7C",
  "3f1c2a9e-8b7d-4c6e-9a1b-2d3e4f5a6b7",
  "1764000000000-k3j9x2",
  "176400000-k3j9x2",
  "2026-11-26T09:00:00Z",
  "2026-11-26T09:00:00+03:00",
  "2026-11-26 09:00",
  [],
  {},
  ["click"],
];

/** A deterministic pseudo-random sequence, so a failure can be reproduced. */
function random(seed: number) {
  let s = seed;
  return () => {
    s = (s * 1_103_515_245 + 12_345) % 2 ** 31;
    return s / 2 ** 31;
  };
}

const cases = [
  { name: "ActionEvent", schema: ActionEvent, base: valid.action, extra: ["value", "error_message", "error_stack"] },
  { name: "PageviewEvent", schema: PageviewEvent, base: valid.pageview, extra: [] },
  { name: "ActionPageviewEvent", schema: ActionPageviewEvent, base: { ...valid.pageview, action_type: "pageview" }, extra: [] },
];

describe("parseEvent", () => {
  it.each(cases)("$name: the same answer as the schema, for the valid event and 5,000 changed ones", ({ schema, base, extra }) => {
    const next = random(7);
    const fields = [...Object.keys(base), ...extra, "unknown_field"];
    const events: Record<string, unknown>[] = [{ ...base }];
    for (const field of fields) for (const value of CANDIDATES) events.push({ ...base, [field]: value });
    while (events.length < 5_000) {
      const event: Record<string, unknown> = { ...base };
      for (let i = 0; i < 1 + Math.floor(next() * 3); i++) {
        event[fields[Math.floor(next() * fields.length)]!] = CANDIDATES[Math.floor(next() * CANDIDATES.length)];
      }
      events.push(event);
    }
    let fastAccepted = 0;
    for (const event of events) {
      const expected = schema.safeParse(event);
      const got = parseEvent(schema, event);
      expect(got.success, JSON.stringify(event)).toBe(expected.success);
      if (expected.success) expect(got.data, JSON.stringify(event)).toEqual(expected.data);
      else {
        const said = (issues: { path: (string | number)[]; message: string }[]) => issues.map((i) => `${i.path.join(".")}: ${i.message}`);
        expect(said(got.error!.issues)).toEqual(said(expected.error.issues));
      }
      const quick = quickParse(schema, event);
      if (quick) {
        fastAccepted += 1;
        expect(expected.success, JSON.stringify(event)).toBe(true);
        expect(quick).toEqual(expected.data);
      }
    }
    // The fast check really answers for the plain events (not only a few that happen to pass).
    expect(quickParse(schema, { ...base })).toEqual(schema.parse(base));
    expect(fastAccepted).toBeGreaterThan(100);
  });

  it("cuts long texts as the schema does and drops fields the schema does not know", () => {
    const event = { ...valid.action, element_text: "é".repeat(300), page: "/p".repeat(400), extra: "dropped" };
    expect(quickParse(ActionEvent, event)).not.toBeNull();
    const got = parseEvent(ActionEvent, event);
    expect(got.success).toBe(true);
    expect(got.data).toEqual(ActionEvent.parse(event));
    expect((got.data as { element_text: string }).element_text).toHaveLength(100);
    expect(got.data).not.toHaveProperty("extra");
  });
});
