/**
 * Every journal the ledger accepts, declared once (ADR 034): its name (stored as `ledger_journals.kind`),
 * its parameters, the accounts it touches as functions of the order, payout and member ids, the money it
 * moves between them as functions of the amounts, its idempotency key, and what must hold before it posts.
 * Operations post a journal by name, `postJournal(trx, "escrow_released", {...})`, and never name an account
 * or an amount themselves; ledger.server.ts below writes the entries, keeps accounts that hold somebody's
 * money from going negative, and the database refuses a journal that does not sum to zero (ADR 014).
 *
 * A journal is a list of moves, `send(amount, from, to)`: each takes the amount from one account and adds it
 * to another, so a template balances by construction. The moves are summed per account into the entries
 * (one per account, as the ledger has always stored them).
 *
 *   journal            key                     moves
 *   payment_captured   order:N:captured        clearing → escrow (price); clearing → fee held (paid − price)
 *   payment_returned   payment:P:returned      clearing → refund due (paid): a second payment of one order (ADR 043)
 *   escrow_released    order:N:released        escrow → seller pending (price − seller fee); escrow → platform
 *                                              seller fees (seller fee); fee held → platform buyer fees (buyer fee)
 *   earnings_cleared   order:N:cleared         seller pending → seller available (price − seller fee)
 *   order_refunded     order:N:refunded        escrow → refund due (price); fee held → refund due (paid − price)
 *   dispute_split      order:N:split           escrow → refund due (the refunded part); fee held → refund due (the
 *                                              buyer fee's refunded share); escrow → seller pending (released part
 *                                              less its seller fee); escrow → platform seller fees (that fee);
 *                                              fee held → platform buyer fees (the buyer fee's kept share)
 *   payout_sent        payout:P:sent           seller available, or refund due for a refund → in transit (amount)
 *   payout_paid        payout:P:paid           in transit → clearing (amount)
 *   payout_returned    payout:P:returned       in transit → back where it was sent from (amount)
 *
 * The fees are the platform's from the release on (there is no separate fee journal), and a payment that
 * lands after its order was given up is captured, refunded and sent back: payment_captured, order_refunded
 * and payout_sent, as app/operations/order-machine.server.ts composes them.
 */
import type { Db } from "~/server/db.server";
import { sellerNetUgx, splitShares } from "~/domain/fees";
import {
  accountCode,
  buyerFeeHeld,
  escrow,
  lockAccounts,
  payoutInTransit,
  platform,
  postEntries,
  refundDue,
  sellerAvailable,
  sellerPending,
  type AccountRef,
  type Posting,
} from "~/models/ledger.server";

/** What a parameter is: an id (a positive integer), an amount in whole UGX (0 or more), or one of some words. */
type Field = "id" | "ugx" | readonly string[];
type Spec = Record<string, Field>;
type ValueOf<F extends Field> = F extends "id" | "ugx" ? number : F extends readonly (infer W)[] ? W : never;
type ParamsOfSpec<S extends Spec> = { [K in keyof S]: ValueOf<S[K]> };

/** One move of money: the amount leaves `from` and arrives in `to`. */
export type Move = { amountUgx: number; from: AccountRef; to: AccountRef };
const send = (amountUgx: number, from: AccountRef, to: AccountRef): Move => ({ amountUgx, from, to });

type Template<S extends Spec, Party extends keyof S, A extends Record<string, AccountRef>> = {
  /** What the journal is, in a sentence. */
  summary: string;
  params: S;
  /** The parameters that say whose accounts these are (enough to lock them before the amounts are known). */
  parties: readonly Party[];
  accounts: (p: Pick<ParamsOfSpec<S>, Party>) => A;
  key: (p: ParamsOfSpec<S>) => string;
  /** What the journal row points at. */
  links: (p: ParamsOfSpec<S>) => { orderId?: number; payoutId?: number };
  /** A precondition: null when it holds, else what is wrong. */
  requires?: (p: ParamsOfSpec<S>) => string | null;
  moves: (a: A, p: ParamsOfSpec<S>) => Move[];
};

/** Declares a template (the identity, for the types: each function is typed from `params`). */
function template<const S extends Spec, Party extends keyof S, A extends Record<string, AccountRef>>(t: Template<S, Party, A>) {
  return t;
}

const payoutKinds = ["withdrawal", "refund"] as const;
/** Where a payout's money is taken from, and goes back to if it fails: a seller's available balance, or a buyer's refund due. */
const payoutSource = (p: { userId: number; payoutKind: (typeof payoutKinds)[number] }) =>
  p.payoutKind === "withdrawal" ? sellerAvailable(p.userId) : refundDue(p.userId);

export const JOURNALS = {
  payment_captured: template({
    summary: "The buyer's money arrives: the price into the order's escrow, the buyer's fee held beside it.",
    params: { orderId: "id", priceUgx: "ugx", paidUgx: "ugx" },
    parties: ["orderId"],
    accounts: (p) => ({ clearing: platform.clearing, escrow: escrow(p.orderId), feeHeld: buyerFeeHeld(p.orderId) }),
    key: (p) => `order:${p.orderId}:captured`,
    links: (p) => ({ orderId: p.orderId }),
    requires: (p) => (p.paidUgx < p.priceUgx ? "the payment is less than the price" : null),
    moves: (a, p) => [send(p.priceUgx, a.clearing, a.escrow), send(p.paidUgx - p.priceUgx, a.clearing, a.feeHeld)],
  }),

  payment_returned: template({
    summary: "A payment taken after another payment of its order was taken: it never counts for the order and is all due back to the buyer.",
    params: { paymentId: "id", orderId: "id", buyerId: "id", paidUgx: "ugx" },
    parties: ["buyerId"],
    accounts: (p) => ({ clearing: platform.clearing, refundDue: refundDue(p.buyerId) }),
    key: (p) => `payment:${p.paymentId}:returned`,
    links: (p) => ({ orderId: p.orderId }),
    requires: (p) => (p.paidUgx === 0 ? "a payment of nothing" : null),
    moves: (a, p) => [send(p.paidUgx, a.clearing, a.refundDue)],
  }),

  escrow_released: template({
    summary: "Completion: the escrow to the seller's pending balance less the seller fee; both fees to the platform.",
    params: { orderId: "id", sellerId: "id", priceUgx: "ugx", sellerFeeUgx: "ugx", buyerFeeUgx: "ugx" },
    parties: ["orderId", "sellerId"],
    accounts: (p) => ({
      escrow: escrow(p.orderId),
      feeHeld: buyerFeeHeld(p.orderId),
      pending: sellerPending(p.sellerId),
      sellerFees: platform.sellerFees,
      buyerFees: platform.buyerFees,
    }),
    key: (p) => `order:${p.orderId}:released`,
    links: (p) => ({ orderId: p.orderId }),
    requires: (p) => (p.sellerFeeUgx > p.priceUgx ? "the seller fee is more than the price" : null),
    moves: (a, p) => [
      send(sellerNetUgx(p.priceUgx, p.sellerFeeUgx), a.escrow, a.pending),
      send(p.sellerFeeUgx, a.escrow, a.sellerFees),
      send(p.buyerFeeUgx, a.feeHeld, a.buyerFees),
    ],
  }),

  earnings_cleared: template({
    summary: "Fourteen days after completion the seller's earnings become available to withdraw.",
    params: { orderId: "id", sellerId: "id", priceUgx: "ugx", sellerFeeUgx: "ugx" },
    parties: ["sellerId"],
    accounts: (p) => ({ pending: sellerPending(p.sellerId), available: sellerAvailable(p.sellerId) }),
    key: (p) => `order:${p.orderId}:cleared`,
    links: (p) => ({ orderId: p.orderId }),
    requires: (p) => (p.sellerFeeUgx > p.priceUgx ? "the seller fee is more than the price" : null),
    moves: (a, p) => [send(sellerNetUgx(p.priceUgx, p.sellerFeeUgx), a.pending, a.available)],
  }),

  order_refunded: template({
    summary: "Cancellation with money taken: everything the buyer paid (escrow and the fee held) becomes a refund due to them.",
    params: { orderId: "id", buyerId: "id", priceUgx: "ugx", paidUgx: "ugx" },
    parties: ["orderId", "buyerId"],
    accounts: (p) => ({ escrow: escrow(p.orderId), feeHeld: buyerFeeHeld(p.orderId), refundDue: refundDue(p.buyerId) }),
    key: (p) => `order:${p.orderId}:refunded`,
    links: (p) => ({ orderId: p.orderId }),
    requires: (p) => (p.paidUgx < p.priceUgx ? "the payment is less than the price" : null),
    moves: (a, p) => [send(p.priceUgx, a.escrow, a.refundDue), send(p.paidUgx - p.priceUgx, a.feeHeld, a.refundDue)],
  }),

  dispute_split: template({
    summary: "An admin splits a disputed order (ADR 044): part of the price back to the buyer, the rest released to the seller, each fee shared alike.",
    params: { orderId: "id", buyerId: "id", sellerId: "id", priceUgx: "ugx", sellerFeeUgx: "ugx", buyerFeeUgx: "ugx", refundUgx: "ugx" },
    parties: ["orderId", "buyerId", "sellerId"],
    accounts: (p) => ({
      escrow: escrow(p.orderId),
      feeHeld: buyerFeeHeld(p.orderId),
      refundDue: refundDue(p.buyerId),
      pending: sellerPending(p.sellerId),
      sellerFees: platform.sellerFees,
      buyerFees: platform.buyerFees,
    }),
    key: (p) => `order:${p.orderId}:split`,
    links: (p) => ({ orderId: p.orderId }),
    requires: (p) =>
      p.refundUgx < 1 || p.refundUgx >= p.priceUgx
        ? "a split refunds between 1 and the price less 1"
        : p.sellerFeeUgx > p.priceUgx
          ? "the seller fee is more than the price"
          : null,
    moves: (a, p) => {
      const s = splitShares(p, p.refundUgx);
      return [
        send(s.refundUgx, a.escrow, a.refundDue),
        send(s.buyerFeeRefundUgx, a.feeHeld, a.refundDue),
        send(s.sellerNetUgx, a.escrow, a.pending),
        send(s.sellerFeeUgx, a.escrow, a.sellerFees),
        send(s.buyerFeeKeptUgx, a.feeHeld, a.buyerFees),
      ];
    },
  }),

  payout_sent: template({
    summary: "A payout starts: its amount leaves the seller's available balance (or the buyer's refund due) and is in transit.",
    params: { payoutId: "id", userId: "id", payoutKind: payoutKinds, amountUgx: "ugx" },
    parties: ["userId", "payoutKind"],
    accounts: (p) => ({ source: payoutSource(p), transit: payoutInTransit(p.userId) }),
    key: (p) => `payout:${p.payoutId}:sent`,
    links: (p) => ({ payoutId: p.payoutId }),
    requires: (p) => (p.amountUgx === 0 ? "a payout of nothing" : null),
    moves: (a, p) => [send(p.amountUgx, a.source, a.transit)],
  }),

  payout_paid: template({
    summary: "The provider paid the payout: the money leaves the platform.",
    params: { payoutId: "id", userId: "id", amountUgx: "ugx" },
    parties: ["userId"],
    accounts: (p) => ({ transit: payoutInTransit(p.userId), clearing: platform.clearing }),
    key: (p) => `payout:${p.payoutId}:paid`,
    links: (p) => ({ payoutId: p.payoutId }),
    requires: (p) => (p.amountUgx === 0 ? "a payout of nothing" : null),
    moves: (a, p) => [send(p.amountUgx, a.transit, a.clearing)],
  }),

  payout_returned: template({
    summary: "The payout failed: the money goes back where it was sent from.",
    params: { payoutId: "id", userId: "id", payoutKind: payoutKinds, amountUgx: "ugx" },
    parties: ["userId", "payoutKind"],
    accounts: (p) => ({ transit: payoutInTransit(p.userId), source: payoutSource(p) }),
    key: (p) => `payout:${p.payoutId}:returned`,
    links: (p) => ({ payoutId: p.payoutId }),
    requires: (p) => (p.amountUgx === 0 ? "a payout of nothing" : null),
    moves: (a, p) => [send(p.amountUgx, a.transit, a.source)],
  }),
};

type Journals = typeof JOURNALS;
export type JournalName = keyof Journals;
type SpecOf<N extends JournalName> = Journals[N]["params"];
/** The parameters of a journal, as its template declares them. */
export type JournalParams<N extends JournalName> = ParamsOfSpec<SpecOf<N>>;
/** The parameters that name a journal's accounts. */
export type JournalParties<N extends JournalName> = Parameters<Journals[N]["accounts"]>[0];

/** Parameters a template refuses (a missing or fractional amount, an id that is not one, a precondition that fails). */
export class JournalParamsError extends Error {}

type AnyTemplate = Template<Spec, string, Record<string, AccountRef>>;
const templateOf = (name: JournalName) => JOURNALS[name] as unknown as AnyTemplate;

function checkParams(name: JournalName, t: AnyTemplate, p: Record<string, unknown>, keys: readonly string[]) {
  for (const key of keys) {
    const field = t.params[key];
    const value = p[key];
    const ok =
      field === undefined
        ? false
        : field === "id"
          ? Number.isSafeInteger(value) && (value as number) > 0
          : field === "ugx"
            ? Number.isSafeInteger(value) && (value as number) >= 0
            : typeof value === "string" && field.includes(value);
    if (!ok) throw new JournalParamsError(`journal ${name}: ${key} is ${JSON.stringify(value) ?? "missing"}`);
  }
}

/** The entries a journal would post: its moves summed per account (an account that nets to zero is left out by the ledger). */
export function journalPostings<N extends JournalName>(
  name: N,
  params: JournalParams<N>,
): { key: string; links: { orderId?: number; payoutId?: number }; postings: Posting[] } {
  const t = templateOf(name);
  if (!t) throw new JournalParamsError(`no journal named ${String(name)}`);
  const p = params as Record<string, unknown>;
  checkParams(name, t, p, Object.keys(t.params));
  const refused = t.requires?.(p as never);
  if (refused) throw new JournalParamsError(`journal ${name}: ${refused}`);
  const postings: Posting[] = [];
  const add = (account: AccountRef, amountUgx: number) => {
    const same = postings.find((x) => accountCode(x.account) === accountCode(account));
    if (same) same.amountUgx += amountUgx;
    else postings.push({ account, amountUgx });
  };
  for (const move of t.moves(t.accounts(p as never), p as never)) {
    if (!Number.isSafeInteger(move.amountUgx) || move.amountUgx < 0) throw new JournalParamsError(`journal ${name}: a move of ${move.amountUgx}`);
    add(move.from, -move.amountUgx);
    add(move.to, move.amountUgx);
  }
  return { key: t.key(p as never), links: t.links(p as never), postings };
}

/**
 * Posts a journal by name in the caller's transaction: true when posted, false when its key was posted
 * already (the money moved before, and nothing moves again). Throws, rolling the caller back, when the
 * parameters are refused, or the ledger refuses the entries (an account holding money would go negative).
 */
export async function postJournal<N extends JournalName>(db: Db, name: N, params: JournalParams<N>): Promise<boolean> {
  const { key, links, postings } = journalPostings(name, params);
  return postEntries(db, { key, kind: name, ...links, postings });
}

/** The accounts a journal touches, from the ids alone (the amounts may not be known yet). */
export function journalAccounts<N extends JournalName>(name: N, parties: JournalParties<N>): AccountRef[] {
  const t = templateOf(name);
  checkParams(name, t, parties as Record<string, unknown>, t.parties);
  return Object.values(t.accounts(parties as never));
}

/** One journal a transaction is about to post, by name and whose accounts. */
export type JournalToLock = { [N in JournalName]: [N, JournalParties<N>] }[JournalName];

/**
 * Locks every account of the journals a transaction will post, in one call (ledger.server.ts, lockAccounts:
 * one sorted order across the whole transaction, so two such transactions cannot deadlock); a balance read
 * after it stays true until commit.
 */
export async function lockJournalAccounts(db: Db, journals: JournalToLock[]): Promise<void> {
  await lockAccounts(
    db,
    journals.flatMap(([name, parties]) => journalAccounts(name, parties as never)),
  );
}
