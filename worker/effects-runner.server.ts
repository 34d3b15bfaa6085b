/**
 * Carries out the operations layer's after-commit effects (ADR 012), at least once: each due row is leased,
 * handled by its kind, and marked done; a failure is retried after a pause that doubles (1 s, 2 s … at most
 * 10 minutes), twelve attempts in all, then given up and kept with its error. Handlers are idempotent (a
 * file already gone is gone; a conversion has a fixed event id that ClickHouse keeps once), since an effect
 * whose worker died after doing it but before marking it is carried out again.
 */
import type { Knex } from "knex";
import { serverConversionEvent } from "../app/analytics/conversions.server";
import { createIngest, type Ingest } from "../app/analytics/ingest.server";
import { systemActor, type Effect } from "../app/operations/core.server";
import { claimDueEffects, markEffectDone, markEffectFailed, type DueEffect } from "../app/operations/effects.server";
import { mailUnreadMessages } from "../app/operations/messages.server";
import { recomputeSellerLevel } from "../app/operations/seller-levels.server";
import { notifySavedSellerGig } from "../app/operations/saved.server";
import { deliverSms } from "../app/operations/sms.server";
import { textUnreadMessage } from "../app/operations/sms-alerts.server";
import { createSmsProvider } from "../app/sms/registry.server";
import type { SmsProvider } from "../app/sms/provider.server";
import { createDb } from "../app/server/db.server";
import { log } from "../app/server/log.server";
import { jobDuration, jobRuns } from "../app/server/metrics.server";
import type { Env } from "../app/server/env.server";
import { maskUrlCredentials } from "../app/utils/mask-url";
import { fileStore } from "../app/server/files/file-store.server";
import { deleteOrderFile } from "../app/server/files/order-files.server";
import { deleteImage } from "../app/server/files/storage.server";
import { retryDelay } from "../app/utils/backoff";
import { startDrain } from "./drain.server";

export type EffectsOptions = {
  db?: Knex;
  smsProvider?: SmsProvider;
  pollMs?: number;
  retryInitialMs?: number;
  retryMaxMs?: number;
  maxAttempts?: number;
  leaseMs?: number;
};
export type EffectsRunner = { close: () => Promise<void> };

const actor = systemActor("effects");

/** What each kind of effect does. */
function handlers(
  env: Env,
  ingest: () => Ingest,
  dbOf: () => Knex,
  sms: SmsProvider,
): { [K in Effect["kind"]]: (effect: Extract<Effect, { kind: K }>) => Promise<void> } {
  return {
    // In this worker's file store (its env's S3_BUCKET or UPLOAD_DIR), as the housekeeping does.
    delete_image: (effect) => deleteImage(effect.key, fileStore(env)),
    conversion: async (effect) => ingest().enqueue([serverConversionEvent(effect.fact)]),
    // Idempotent: a file already gone is gone (the store's delete says nothing of a missing file).
    delete_file: ({ key }) => deleteOrderFile(key, fileStore(env)),
    // A refusal (not the platform) cannot happen here; a throw is retried like any failed effect.
    message_mail: async ({ conversationId, userId, round }) => {
      await mailUnreadMessages(actor, { conversationId, userId, round }, { db: dbOf() });
    },
    // A member deleted meanwhile has no level to keep; any other refusal is a bug, retried like a failure.
    recompute_level: async ({ userId }) => {
      const result = await recomputeSellerLevel(actor, { userId }, { db: dbOf() });
      if (!result.ok && result.error !== "not_found") throw new Error(`recompute_level refused: ${result.error}`);
    },
    // At most once per member and gig, however often it runs (notifySavedSellerGig checks what it wrote).
    saved_seller_gig: async ({ gigId }) => {
      const result = await notifySavedSellerGig(actor, { gigId }, { db: dbOf() });
      if (!result.ok) throw new Error(`saved_seller_gig refused: ${result.error}`);
    },
    // At least once: a text the gateway did not clearly take is tried again (the throw); one it took is not.
    send_sms: async ({ smsId }) => {
      const delivered = await deliverSms(actor, { smsId, provider: sms }, { db: dbOf() });
      if (delivered.ok && delivered.value.status === "retry") throw new Error(`SMS #${smsId} not sent: ${delivered.value.reason}`);
    },
    sms_unread: async ({ conversationId, userId, lastRead }) => {
      await textUnreadMessage(actor, { conversationId, userId, lastRead }, { db: dbOf() });
    },
  };
}

export function startEffects(env: Env, options: EffectsOptions = {}): EffectsRunner {
  const { pollMs = 500, retryInitialMs = 1_000, retryMaxMs = 10 * 60_000, maxAttempts = 12, leaseMs = 60_000 } = options;
  const ownDb = options.db ? undefined : createDb(env.DATABASE_URL, { min: 0, max: 2 });
  const db = options.db ?? ownDb!;
  let ingest: Ingest | undefined;
  const handle = handlers(
    env,
    () => (ingest ??= createIngest({ redisUrl: env.REDIS_URL, prefix: env.QUEUE_PREFIX })),
    () => db,
    options.smsProvider ?? createSmsProvider(env),
  );

  // One log line per effect run, with its outcome and the id of the request that queued it (ADR 057).
  async function carryOut({ id, effect, attempts, requestId }: DueEffect) {
    const started = performance.now();
    const job = `effect:${effect.kind}`;
    const line = { job, effect: id, attempt: attempts, ...(requestId ? { reqId: requestId } : {}) };
    try {
      await (handle[effect.kind] as (e: Effect) => Promise<void>)(effect);
      await markEffectDone(actor, id, db);
      const ms = performance.now() - started;
      jobRuns.inc({ job, outcome: "ok" });
      jobDuration.observe({ job }, ms / 1000);
      log.info({ ...line, outcome: "ok", ms: Math.round(ms) }, `[effects] #${id} ${effect.kind} done`);
    } catch (error) {
      const message = maskUrlCredentials((error as Error).message);
      const retryInMs = retryDelay(attempts, { initialMs: retryInitialMs, maxMs: retryMaxMs, maxAttempts });
      await markEffectFailed(actor, id, { error: message, retryInMs }, db);
      jobRuns.inc({ job, outcome: "failed" });
      log.error(
        { ...line, outcome: "failed", ms: Math.round(performance.now() - started), err: error },
        `[effects] #${id} ${effect.kind} failed (attempt ${attempts}): ${message}; ${retryInMs === null ? "given up" : `retrying in ${Math.round(retryInMs / 1000)} s`}`,
      );
    }
  }

  const drain = startDrain("effects", { pollMs, logEveryFailures: 60 }, async () => {
    const due = await claimDueEffects(actor, { limit: 20, leaseMs }, db);
    if (!due.ok) return 0;
    for (const item of due.value) await carryOut(item);
    return due.value.length;
  });

  return {
    close: async () => {
      await drain.close();
      await ingest?.close();
      await ownDb?.destroy();
    },
  };
}
