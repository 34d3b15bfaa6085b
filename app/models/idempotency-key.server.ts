/**
 * Idempotency keys of the JSON API (ADR 041): a member's key, the call and body it was first used with, and
 * the answer that call got, so that a repeat (a phone that lost the answer on a bad network and sends again)
 * gets that answer rather than a second order, payout or message. Kept a day (housekeeping).
 */
import type { Db } from "~/server/db.server";

export const IDEMPOTENCY_KEEP_MS = 24 * 60 * 60 * 1000;

export type StoredAnswer = { status: number; body: unknown };

/**
 * Claims a key for a request: "claimed" when it is new (the caller answers, then saves the answer), the saved
 * answer when the same request was answered before, "busy" while that first request is still being answered,
 * "mismatch" when the key was used for another request. A claim left unanswered (its process died) is given up
 * after a minute: the operations behind idempotent calls are atomic, so at worst the repeat is refused by them
 * (a message's client id), or a new order is made for a request whose first answer was never sent.
 */
export async function claimKey(
  db: Db,
  { userId, key, request, requestHash }: { userId: number; key: string; request: string; requestHash: string },
): Promise<"claimed" | "busy" | "mismatch" | StoredAnswer> {
  const inserted = await db.raw<{ rows: { claimed: boolean }[] }>(
    `INSERT INTO idempotency_keys (user_id, key, request, request_hash) VALUES (?, ?, ?, ?)
     ON CONFLICT (user_id, key) DO UPDATE SET created_at = now(), request = EXCLUDED.request, request_hash = EXCLUDED.request_hash
       WHERE idempotency_keys.status IS NULL AND idempotency_keys.created_at < now() - interval '1 minute'
          OR idempotency_keys.created_at < now() - interval '${IDEMPOTENCY_KEEP_MS} milliseconds'
     RETURNING true AS claimed`,
    [userId, key, request, requestHash],
  );
  if (inserted.rows.length) return "claimed";
  const row = await db("idempotency_keys").where({ user_id: userId, key }).first("request", "request_hash", "status", "body");
  if (!row) return "busy";
  if (row.request !== request || row.request_hash !== requestHash) return "mismatch";
  return row.status === null ? "busy" : { status: row.status, body: row.body };
}

export async function saveAnswer(db: Db, { userId, key, status, body }: { userId: number; key: string } & StoredAnswer): Promise<null> {
  await db("idempotency_keys")
    .where({ user_id: userId, key })
    .update({ status, body: JSON.stringify(body) });
  return null;
}

/** A claim whose request failed before any operation ran (a thrown error): the key may be used again. */
export async function releaseKey(db: Db, { userId, key }: { userId: number; key: string }): Promise<null> {
  await db("idempotency_keys").where({ user_id: userId, key }).whereNull("status").delete();
  return null;
}
