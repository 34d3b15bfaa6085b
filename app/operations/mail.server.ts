/**
 * Mail delivery's bookkeeping, for the worker (worker/mail-sender.server.ts), which alone may take mail from the
 * outbox table: lease due mail, mark it sent, or count a failed attempt (ADR 011, ADR 012).
 */
import type { Knex } from "knex";
import { claimDueMail as claimRows, markMailFailed as failRow, markMailSent as sentRow, type OutgoingMail } from "~/models/outbox.server";
import { forbidden, ok, type Actor, type Result } from "~/operations/core.server";
import { getDb } from "~/server/db.server";

const onlySystem = (actor: Actor) => (actor.kind === "system" ? null : forbidden("access.platform_only", { task: "send_mail" }));

export async function claimDueMail(
  actor: Actor,
  options: { limit: number; leaseMs: number; maxAgeMs: number },
  { db = getDb() }: { db?: Knex } = {},
): Promise<Result<OutgoingMail[]>> {
  return onlySystem(actor) ?? ok(await claimRows(db, options));
}

export async function markMailSent(actor: Actor, id: number, { db = getDb() }: { db?: Knex } = {}): Promise<Result<null>> {
  const refused = onlySystem(actor);
  if (refused) return refused;
  await sentRow(db, id);
  return ok(null);
}

export async function markMailFailed(
  actor: Actor,
  id: number,
  outcome: { error: string; retryInMs: number | null },
  { db = getDb() }: { db?: Knex } = {},
): Promise<Result<null>> {
  const refused = onlySystem(actor);
  if (refused) return refused;
  await failRow(db, id, outcome);
  return ok(null);
}
