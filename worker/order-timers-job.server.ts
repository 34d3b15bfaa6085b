/**
 * The order timers, every ORDER_TIMERS_EVERY_MS (a scheduled job, worker/scheduled.server.ts): payment
 * polls (a callback comes once or never) and the 30-minute expiry of unpaid orders, payout polls, the
 * auto-completion of deliveries nobody answered for 3 days, and the clearance of earnings 14 days after
 * completion. Each is an idempotent operation: an order is locked and checked again, and every journal is
 * keyed, so a round run twice, or run again after a worker was killed in the middle, moves nothing twice.
 */
import type { Redis } from "ioredis";
import type { Knex } from "knex";
import { systemActor } from "../app/operations/core.server";
import { runOrderTimers } from "../app/operations/orders.server";
import { pollPayments, pollPayouts, type PaymentOptions } from "../app/operations/payments.server";
import { textAutoCompleteWarnings } from "../app/operations/sms-alerts.server";
import { createDb } from "../app/server/db.server";
import type { Env } from "../app/server/env.server";
import { startScheduledJob, type Scheduled } from "./scheduled.server";
import { log } from "../app/server/log.server";

export const ORDER_TIMERS_QUEUE = "order-timers";
export const ORDER_TIMERS_SCHEDULER = "order-timers-every";

const actor = systemActor("order-timers");

/** One round of every order timer; what it did. */
export async function runOrderRound(options: PaymentOptions & { db: Knex }) {
  const payments = await pollPayments(actor, options);
  const payouts = await pollPayouts(actor, options);
  const timers = await runOrderTimers(actor, options);
  // Buyers whose delivery completes by itself within a day are texted once (ADR 050).
  const warned = await textAutoCompleteWarnings(actor, { db: options.db, now: options.now?.() });
  return {
    payments: payments.ok ? payments.value.settled : 0,
    payouts: payouts.ok ? payouts.value.settled : 0,
    completed: timers.ok ? timers.value.completed : 0,
    cleared: timers.ok ? timers.value.cleared : 0,
    warned: warned.ok ? warned.value : 0,
  };
}

export async function startOrderTimers(
  env: Env,
  redis: Redis,
  { everyMs = env.ORDER_TIMERS_EVERY_MS, ...options }: PaymentOptions & { everyMs?: number } = {},
): Promise<Scheduled> {
  const ownDb = options.db ? undefined : createDb(env.DATABASE_URL, { min: 0, max: 2 });
  const db = options.db ?? ownDb!;
  return startScheduledJob(env, redis, {
    queue: ORDER_TIMERS_QUEUE,
    scheduler: ORDER_TIMERS_SCHEDULER,
    everyMs,
    label: "order-timers",
    keep: 10,
    run: async () => {
      const done = await runOrderRound({ ...options, db });
      const did = Object.entries(done).filter(([, n]) => n > 0);
      if (did.length) log.info(`[order-timers] ${did.map(([what, n]) => `${what} ${n}`).join(", ")}`);
      return done;
    },
    onClose: async () => {
      await ownDb?.destroy();
    },
  });
}
