/**
 * The escrow ledger (ADR 014): double-entry, in whole UGX. Money moves only as a journal, a set of entries
 * that sums to zero (the database refuses one that does not, at commit), posted once per idempotency key.
 * A balance is never stored: it is the sum of an account's entries. Which journals exist, and what each
 * moves, is declared in ledger-journals.server.ts (ADR 034); this module only writes and reads entries.
 *
 * Sign: an entry adds to the account it names. Accounts that hold money for somebody (escrow, a seller's
 * pending and available balances, refunds due, payouts in transit) are never negative; `postEntries` checks
 * them under their row locks inside the caller's transaction. The outside world (`provider_clearing`) goes
 * negative as money comes in and back up as it leaves; the platform's fee accounts only grow.
 */
import type { Db } from "~/server/db.server";

export type AccountKind =
  | "provider_clearing"
  | "platform_seller_fees"
  | "platform_buyer_fees"
  | "escrow"
  | "buyer_fee_held"
  | "seller_pending"
  | "seller_available"
  | "refund_due"
  | "payout_in_transit";

/** An account by what it is, and whose: the platform's, an order's, or a member's. */
export type AccountRef =
  | { kind: "provider_clearing" | "platform_seller_fees" | "platform_buyer_fees" }
  | { kind: "escrow" | "buyer_fee_held"; orderId: number }
  | { kind: "seller_pending" | "seller_available" | "refund_due" | "payout_in_transit"; userId: number };

const OUTSIDE: ReadonlySet<AccountKind> = new Set(["provider_clearing"]);

export function accountCode(ref: AccountRef): string {
  if ("orderId" in ref) return `${ref.kind}:order:${ref.orderId}`;
  if ("userId" in ref) return `${ref.kind}:user:${ref.userId}`;
  return ref.kind;
}

export const platform = {
  clearing: { kind: "provider_clearing" } as const,
  sellerFees: { kind: "platform_seller_fees" } as const,
  buyerFees: { kind: "platform_buyer_fees" } as const,
};
export const escrow = (orderId: number) => ({ kind: "escrow", orderId }) as const;
export const buyerFeeHeld = (orderId: number) => ({ kind: "buyer_fee_held", orderId }) as const;
export const sellerPending = (userId: number) => ({ kind: "seller_pending", userId }) as const;
export const sellerAvailable = (userId: number) => ({ kind: "seller_available", userId }) as const;
export const refundDue = (userId: number) => ({ kind: "refund_due", userId }) as const;
export const payoutInTransit = (userId: number) => ({ kind: "payout_in_transit", userId }) as const;

/** The account's id, created on first use (two transactions creating it at once get the same row). */
async function accountId(db: Db, ref: AccountRef): Promise<number> {
  const code = accountCode(ref);
  const existing = await db("ledger_accounts").where({ code }).first("id");
  if (existing) return Number(existing.id);
  await db("ledger_accounts")
    .insert({
      code,
      kind: ref.kind,
      user_id: "userId" in ref ? ref.userId : null,
      order_id: "orderId" in ref ? ref.orderId : null,
    })
    .onConflict("code")
    .ignore();
  const row = await db("ledger_accounts").where({ code }).first("id");
  return Number(row!.id);
}

/**
 * Locks the accounts (in code order, so two journals over the same accounts cannot deadlock) for the rest of
 * the transaction: a balance read after this stays true until commit. A transaction that posts several
 * journals locks the union of their accounts in one call first: locks taken journal by journal are not in
 * one order across the whole transaction, and two such transactions can deadlock.
 */
export async function lockAccounts(db: Db, refs: AccountRef[]): Promise<Map<string, number>> {
  const codes = [...new Set(refs.map(accountCode))].sort();
  const ids = new Map<string, number>();
  for (const code of codes) {
    const ref = refs.find((r) => accountCode(r) === code)!;
    ids.set(code, await accountId(db, ref));
  }
  await db("ledger_accounts")
    .whereIn("id", [...ids.values()])
    .orderBy("code")
    .forUpdate()
    .select("id");
  return ids;
}

/** The balance of an account: the sum of its entries (0 for an account never used). */
export async function balanceOf(db: Db, ref: AccountRef): Promise<number> {
  const row = await db("ledger_entries as e")
    .join("ledger_accounts as a", "a.id", "e.account_id")
    .where("a.code", accountCode(ref))
    .sum<{ total: string | null }[]>({ total: "e.amount_ugx" })
    .first();
  return Number(row?.total ?? 0);
}

export class UnbalancedJournalError extends Error {}
export class NegativeBalanceError extends Error {
  constructor(readonly code: string) {
    super(`ledger account ${code} would go negative`);
  }
}

export type Posting = { account: AccountRef; amountUgx: number };

/**
 * Writes a journal's entries in the caller's transaction: returns true when it was posted, false when a
 * journal with this key already exists (the same money has moved already, and nothing moves again). Throws,
 * rolling the caller back, if the postings do not sum to zero or would leave an account that holds money
 * negative. Operations never call this: they post a journal by name (ledger-journals.server.ts, ADR 034),
 * whose template says the key, the accounts and the amounts.
 */
export async function postEntries(db: Db, journal: { key: string; kind: string; orderId?: number; payoutId?: number; postings: Posting[] }): Promise<boolean> {
  const postings = journal.postings.filter((p) => p.amountUgx !== 0);
  const sum = postings.reduce((total, p) => total + p.amountUgx, 0);
  if (sum !== 0 || postings.some((p) => !Number.isSafeInteger(p.amountUgx))) {
    throw new UnbalancedJournalError(`journal ${journal.key} does not balance`);
  }
  const ids = await lockAccounts(
    db,
    postings.map((p) => p.account),
  );
  const [inserted] = await db("ledger_journals")
    .insert({ idempotency_key: journal.key, kind: journal.kind, order_id: journal.orderId ?? null, payout_id: journal.payoutId ?? null })
    .onConflict("idempotency_key")
    .ignore()
    .returning("id");
  if (!inserted) return false;
  if (postings.length === 0) throw new UnbalancedJournalError(`journal ${journal.key} moves nothing`);
  await db("ledger_entries").insert(postings.map((p) => ({ journal_id: inserted.id, account_id: ids.get(accountCode(p.account)), amount_ugx: p.amountUgx })));
  for (const p of postings) {
    if (p.amountUgx > 0 || OUTSIDE.has(p.account.kind)) continue;
    if ((await balanceOf(db, p.account)) < 0) throw new NegativeBalanceError(accountCode(p.account));
  }
  return true;
}

/** A member's money on the platform, as their dashboard shows it. */
export async function memberBalances(db: Db, userId: number) {
  const rows = await db("ledger_accounts as a")
    .leftJoin("ledger_entries as e", "e.account_id", "a.id")
    .where("a.user_id", userId)
    .groupBy("a.kind")
    .select("a.kind", db.raw("coalesce(sum(e.amount_ugx), 0) as total"));
  const by = new Map(rows.map((r) => [r.kind as AccountKind, Number(r.total)]));
  return {
    pendingUgx: by.get("seller_pending") ?? 0,
    availableUgx: by.get("seller_available") ?? 0,
    inTransitUgx: by.get("payout_in_transit") ?? 0,
    refundDueUgx: by.get("refund_due") ?? 0,
  };
}

/** What is held in escrow for a seller's paid orders not yet completed or cancelled: their prices, before the seller fee. */
export async function sellerEscrow(db: Db, userId: number): Promise<number> {
  const row = await db("ledger_entries as e")
    .join("ledger_accounts as a", "a.id", "e.account_id")
    .join("orders as o", "o.id", "a.order_id")
    .where({ "a.kind": "escrow", "o.seller_id": userId })
    .sum<{ total: string | null }[]>({ total: "e.amount_ugx" })
    .first();
  return Number(row?.total ?? 0);
}

/** What a seller has earned: everything ever credited to their pending balance (the price less the fee). */
export async function sellerEarnings(db: Db, userId: number): Promise<number> {
  const row = await db("ledger_entries as e")
    .join("ledger_accounts as a", "a.id", "e.account_id")
    .where({ "a.code": accountCode(sellerPending(userId)) })
    .where("e.amount_ugx", ">", 0)
    .sum<{ total: string | null }[]>({ total: "e.amount_ugx" })
    .first();
  return Number(row?.total ?? 0);
}
