/**
 * What is waiting, for the operator's gauges (worker/gauges-job.server.ts, ADR 057): money that has been
 * pending too long, and rows of work not yet done. Counts only, each on a partial index or a small table.
 */
import type { Db } from "~/server/db.server";

/** Payments still pending, and payouts still in transit, created more than `olderThanMs` ago. */
export async function moneyStuck(db: Db, olderThanMs: number): Promise<{ payments: number; payouts: number }> {
  const before = db.raw("now() - ?::interval", [`${Math.round(olderThanMs)} milliseconds`]);
  const [payments, payouts] = await Promise.all([
    db("payments").where("status", "pending").andWhere("created_at", "<", before).count({ n: "*" }).first(),
    db("payouts").where("status", "in_transit").andWhere("created_at", "<", before).count({ n: "*" }).first(),
  ]);
  return { payments: Number(payments?.n ?? 0), payouts: Number(payouts?.n ?? 0) };
}

/** After-commit effects not yet done nor given up, and mail in the outbox still to be sent. */
export async function workWaiting(db: Db): Promise<{ effects: number; mailOutbox: number }> {
  const [effects, mail] = await Promise.all([
    db("effects").whereNull("done_at").whereNull("failed_at").count({ n: "*" }).first(),
    db("outbox").whereNotNull("next_attempt_at").count({ n: "*" }).first(),
  ]);
  return { effects: Number(effects?.n ?? 0), mailOutbox: Number(mail?.n ?? 0) };
}
