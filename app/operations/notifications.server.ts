/**
 * Notifications (ADR 012): the order steps that concern a member (written by the order operations beside
 * each step), which the member reads on their dashboard and marks read.
 */
import type { Knex } from "knex";
import { markAllRead } from "~/models/notification.server";
import { forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";

/** A member marks all their notifications read (only their own: the member is the actor). */
export async function markNotificationsRead(actor: Actor, { db }: { db?: Knex } = {}): Promise<Result<{ marked: number }>> {
  if (actor.kind !== "member") return forbidden("Sign in to do that.");
  const userId = actor.user.id;
  return transact(actor, async (tx) => ok({ marked: await markAllRead(tx.trx, userId) }), { db });
}
