/**
 * The JSON API's idempotency keys (ADR 041), as operations: a member's request claims its key, its answer is
 * saved under it, and a claim whose request failed before an answer is given back. The keys are the door's
 * bookkeeping, not the member's data: no activity row.
 */
import { claimKey, releaseKey, saveAnswer, type StoredAnswer } from "~/models/idempotency-key.server";
import { forbidden, memberOf, ok, transact, type Actor, type Result } from "~/operations/core.server";
import type { Options } from "./accounts.server";

type KeyInput = { key: string };

/** Claims the key for this request (see claimKey): "claimed", "busy", "mismatch", or the first answer to replay. */
export async function claimIdempotencyKey(
  actor: Actor,
  input: KeyInput & { request: string; requestHash: string },
  { db }: Options = {},
): Promise<Result<"claimed" | "busy" | "mismatch" | StoredAnswer>> {
  const user = memberOf(actor);
  if (!user) return forbidden("account.sign_in_required");
  return transact(actor, async (tx) => ok(await claimKey(tx.trx, { userId: user.id, ...input })), { db });
}

/** The answer the claimed request got, kept for its repeats. */
export async function saveIdempotentAnswer(actor: Actor, input: KeyInput & StoredAnswer, { db }: Options = {}): Promise<Result<null>> {
  const user = memberOf(actor);
  if (!user) return forbidden("account.sign_in_required");
  return transact(actor, async (tx) => ok(await saveAnswer(tx.trx, { userId: user.id, ...input })), { db });
}

/** A claim whose request threw before it was answered: the key may be used again. */
export async function releaseIdempotencyKey(actor: Actor, input: KeyInput, { db }: Options = {}): Promise<Result<null>> {
  const user = memberOf(actor);
  if (!user) return forbidden("account.sign_in_required");
  return transact(actor, async (tx) => ok(await releaseKey(tx.trx, { userId: user.id, ...input })), { db });
}
