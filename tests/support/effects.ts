import type { Knex } from "knex";

/**
 * A delayed after-commit effect made due now (its delay has passed), then waited for until the running effects
 * runner has carried it out; throws when it failed or took over 10 seconds.
 */
export async function runEffectNow(db: Knex, effect: { id: number }) {
  await db("effects").where({ id: effect.id }).update({ run_after: db.fn.now() });
  const deadline = Date.now() + 10_000;
  for (;;) {
    const row = await db("effects").where({ id: effect.id }).first("done_at", "failed_at", "last_error");
    if (row.done_at) return;
    if (row.failed_at || Date.now() > deadline) throw new Error(`effect #${effect.id} not done: ${row.last_error ?? "timed out"}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
