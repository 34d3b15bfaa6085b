/**
 * The journal templates (ADR 034) without a database: each balances, names the accounts and amounts ADR 014
 * lists for it, locks every account it posts to, and refuses parameters that are not what it declares. And
 * nothing else in the app writes ledger entries: only the ledger and its templates call the ledger's writer.
 * The state machine's map (the header of app/operations/order-machine.server.ts) names every transition and journal.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { TRANSITIONS } from "~/domain/order-rules";
import { accountCode } from "~/models/ledger.server";
import { JOURNALS, journalAccounts, journalPostings, JournalParamsError, type JournalName, type JournalParams } from "~/models/ledger-journals.server";

const order = { orderId: 12, buyerId: 7, sellerId: 5, priceUgx: 100_000, buyerFeeUgx: 5_000, sellerFeeUgx: 20_000 };

/** Parameters for each template, and the entries (account code → amount) it must post for them. */
const CASES: { [N in JournalName]: { params: JournalParams<N>; entries: Record<string, number>; key: string; links: object } } = {
  payment_captured: {
    params: { ...order, paidUgx: 105_000 },
    entries: { provider_clearing: -105_000, "escrow:order:12": 100_000, "buyer_fee_held:order:12": 5_000 },
    key: "order:12:captured",
    links: { orderId: 12 },
  },
  payment_returned: {
    params: { paymentId: 9, orderId: 12, buyerId: 7, paidUgx: 105_000 },
    entries: { provider_clearing: -105_000, "refund_due:user:7": 105_000 },
    key: "payment:9:returned",
    links: { orderId: 12 },
  },
  escrow_released: {
    params: order,
    entries: {
      "escrow:order:12": -100_000,
      "buyer_fee_held:order:12": -5_000,
      "seller_pending:user:5": 80_000,
      platform_seller_fees: 20_000,
      platform_buyer_fees: 5_000,
    },
    key: "order:12:released",
    links: { orderId: 12 },
  },
  earnings_cleared: {
    params: order,
    entries: { "seller_pending:user:5": -80_000, "seller_available:user:5": 80_000 },
    key: "order:12:cleared",
    links: { orderId: 12 },
  },
  order_refunded: {
    params: { ...order, paidUgx: 105_000 },
    entries: { "escrow:order:12": -100_000, "buyer_fee_held:order:12": -5_000, "refund_due:user:7": 105_000 },
    key: "order:12:refunded",
    links: { orderId: 12 },
  },
  // UGX 40,000 of the price back to the buyer: the seller's 60,000 less its 20% (12,000), and 60% of the buyer's fee kept.
  dispute_split: {
    params: { ...order, refundUgx: 40_000 },
    entries: {
      "escrow:order:12": -100_000,
      "buyer_fee_held:order:12": -5_000,
      "refund_due:user:7": 42_000,
      "seller_pending:user:5": 48_000,
      platform_seller_fees: 12_000,
      platform_buyer_fees: 3_000,
    },
    key: "order:12:split",
    links: { orderId: 12 },
  },
  payout_sent: {
    params: { payoutId: 3, userId: 5, payoutKind: "withdrawal", amountUgx: 50_000 },
    entries: { "seller_available:user:5": -50_000, "payout_in_transit:user:5": 50_000 },
    key: "payout:3:sent",
    links: { payoutId: 3 },
  },
  payout_paid: {
    params: { payoutId: 3, userId: 5, amountUgx: 50_000 },
    entries: { "payout_in_transit:user:5": -50_000, provider_clearing: 50_000 },
    key: "payout:3:paid",
    links: { payoutId: 3 },
  },
  payout_returned: {
    params: { payoutId: 4, userId: 7, payoutKind: "refund", amountUgx: 105_000 },
    entries: { "payout_in_transit:user:7": -105_000, "refund_due:user:7": 105_000 },
    key: "payout:4:returned",
    links: { payoutId: 4 },
  },
};

const names = Object.keys(JOURNALS) as JournalName[];
const entriesOf = (name: JournalName) => {
  const { postings } = journalPostings(name, CASES[name].params as never);
  return Object.fromEntries(postings.map((p) => [accountCode(p.account), p.amountUgx]));
};

describe("each journal template", () => {
  it.each(names)("%s balances and posts the accounts and amounts it declares, under its key", (name) => {
    const { key, links, postings } = journalPostings(name, CASES[name].params as never);
    expect(postings.reduce((sum, p) => sum + p.amountUgx, 0)).toBe(0);
    expect(entriesOf(name)).toEqual(CASES[name].entries);
    expect(key).toBe(CASES[name].key);
    expect(links).toEqual(CASES[name].links);
  });

  it.each(names)("%s locks every account it posts to, knowing only whose they are", (name) => {
    const parties = Object.fromEntries(JOURNALS[name].parties.map((k) => [k, (CASES[name].params as Record<string, unknown>)[k]]));
    const locked = journalAccounts(name, parties as never)
      .map(accountCode)
      .sort();
    expect(locked).toEqual(Object.keys(CASES[name].entries).sort());
  });

  it.each(names)("%s refuses a parameter missing, fractional, negative or not an id", (name) => {
    const params = CASES[name].params as Record<string, unknown>;
    for (const key of Object.keys(JOURNALS[name].params)) {
      const field = (JOURNALS[name].params as Record<string, unknown>)[key];
      const bad = field === "id" ? [undefined, 0, -1, 1.5, "12"] : field === "ugx" ? [undefined, -1, 0.5, Number.NaN, "100"] : [undefined, "other"];
      for (const value of bad) {
        expect(() => journalPostings(name, { ...params, [key]: value } as never), `${key} = ${String(value)}`).toThrow(JournalParamsError);
      }
    }
  });

  it("refuses what breaks a precondition: paid less than the price, a seller fee above it, a payout of nothing", () => {
    expect(() => journalPostings("payment_captured", { orderId: 1, priceUgx: 100_000, paidUgx: 99_999 })).toThrow(/less than the price/);
    expect(() => journalPostings("order_refunded", { orderId: 1, buyerId: 2, priceUgx: 100_000, paidUgx: 99_999 })).toThrow(/less than the price/);
    expect(() => journalPostings("escrow_released", { ...order, sellerFeeUgx: 100_001 })).toThrow(/seller fee/);
    expect(() => journalPostings("earnings_cleared", { ...order, sellerFeeUgx: 100_001 })).toThrow(/seller fee/);
    expect(() => journalPostings("payout_sent", { payoutId: 1, userId: 2, payoutKind: "refund", amountUgx: 0 })).toThrow(JournalParamsError);
    for (const refundUgx of [0, 100_000, 100_001]) {
      expect(() => journalPostings("dispute_split", { ...order, refundUgx }), String(refundUgx)).toThrow(/between 1 and the price/);
    }
    expect(() => journalPostings("nothing_such" as JournalName, {} as never)).toThrow(JournalParamsError);
  });

  it("takes a payout from, and returns it to, a seller's available balance or a buyer's refund due by the payout's kind", () => {
    const codes = (name: "payout_sent" | "payout_returned", payoutKind: "withdrawal" | "refund") =>
      journalPostings(name, { payoutId: 9, userId: 3, payoutKind, amountUgx: 1_000 }).postings.map((p) => `${accountCode(p.account)} ${p.amountUgx}`);
    expect(codes("payout_sent", "withdrawal")).toEqual(["seller_available:user:3 -1000", "payout_in_transit:user:3 1000"]);
    expect(codes("payout_sent", "refund")).toEqual(["refund_due:user:3 -1000", "payout_in_transit:user:3 1000"]);
    expect(codes("payout_returned", "withdrawal")).toEqual(["payout_in_transit:user:3 -1000", "seller_available:user:3 1000"]);
    expect(codes("payout_returned", "refund")).toEqual(["payout_in_transit:user:3 -1000", "refund_due:user:3 1000"]);
  });
});

describe("the ledger's writer", () => {
  it("is called only by the ledger and its templates: no other source writes entries or locks accounts", () => {
    const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (/\.(ts|tsx)$/.test(name) && !/\.test\.tsx?$/.test(name)) files.push(path);
      }
    };
    walk(join(root, "app"));
    walk(join(root, "worker"));
    files.push(join(root, "server.ts"));
    const writers = files
      .filter((f) =>
        /\b(postEntries|lockAccounts)\s*[(,}]|\("ledger_(entries|journals)"\)\s*\.insert|into ledger_(entries|journals)/i.test(readFileSync(f, "utf8")),
      )
      .map((f) => relative(root, f))
      .sort();
    expect(writers).toEqual(["app/models/ledger-journals.server.ts", "app/models/ledger.server.ts"]);
  });
});

describe("the state machine's map", () => {
  it("names every transition of the table and every journal", () => {
    const path = join(dirname(fileURLToPath(import.meta.url)), "..", "operations", "order-machine.server.ts");
    const source = readFileSync(path, "utf8");
    const header = source.slice(0, source.indexOf("*/"));
    for (const name of [...Object.keys(TRANSITIONS), ...Object.keys(JOURNALS)]) expect(header, name).toMatch(new RegExp(`\\b${name}\\b`));
  });
});
