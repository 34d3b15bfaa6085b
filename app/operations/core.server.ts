/**
 * The shape every operation shares (ADR 012). An operation is `(actor, input) → Result`: `input` already
 * parsed by the shared zod schema, the actor's right checked inside, every write in one transaction
 * (`transact`) together with its activity row and its after-commit effects, which the worker carries out
 * at least once (app/operations/effects.server.ts, worker/effects-runner.server.ts). Routes, socket events, worker
 * timers and the JSON API call operations and map the Result to their own kind of answer; nothing else
 * writes to Postgres.
 */
import type { Knex } from "knex";
import { recordActivity, type ActivityKind } from "~/models/activity.server";
import type { SessionUser } from "~/models/session.server";
import { getDb, prepared } from "~/server/db.server";
import { log } from "~/server/log.server";
import { getTokenCache } from "~/server/token-cache.server";
import { sendLive, type LivePush } from "~/realtime/live.server";
import { dropCachedPages } from "~/server/page-cache.server";
import type { Limited } from "~/server/rate-limit.server";
import type { Coded, FailureCode, FailureParams, FieldIssue, Issues } from "~/operations/failure-codes";

/**
 * The client behind a door: its address and software, and whether it allows analytics (ADR 007); for a call of
 * the JSON API, the platform its token was issued to (server-side conversions are tagged with it).
 */
/** `requestId`: the HTTP request acting (its X-Request-Id, ADR 057), written on the rows the operation writes; null for a socket event. */
export type Client = {
  ip: string;
  userAgent: string;
  analyticsConsent: boolean;
  tabSessionId: string | null;
  platform?: "android" | "ios" | "api";
  requestId?: string | null;
};

/**
 * Who acts: a visitor, a signed-in member (each with the client they act from), or the platform itself (a
 * worker timer, the seed, a script). app/server/auth.server.ts makes them from any door: getActor (pages and
 * the API), getSocketActor (socket.io), actorOf (anything with headers).
 */
export type Actor =
  { kind: "anonymous"; client: Client } | { kind: "member"; user: SessionUser; client: Client } | { kind: "system"; name: string; requestId?: string | null };

/** The request behind an actor, if any (ADR 057): a door's client's, or the one a worker's effect was queued by. */
export const requestIdOfActor = (actor: Actor): string | null => (actor.kind === "system" ? actor.requestId : actor.client.requestId) ?? null;

export const systemActor = (name: string): Actor => ({ kind: "system", name });

export type { Coded, FailureCode, FailureParams, FieldIssue, Issues } from "~/operations/failure-codes";

/**
 * Why an operation refused: a kind (which says the status) and a stable code with plain parameters, never a
 * sentence (ADR 035). The doors turn codes into words with app/content/operation-messages.ts; the JSON API
 * hands them on.
 */
export type Failure =
  | ({ ok: false; error: "not_found" } & Coded)
  | ({ ok: false; error: "forbidden" } & Coded)
  | ({ ok: false; error: "conflict" } & Coded)
  | { ok: false; error: "invalid"; issues: Issues }
  /** Over a rate limit (429), or the limit could not be counted because Redis is away (503). */
  | ({ ok: false; error: "limited"; status: 429 | 503; retryAfter: number } & Coded<"limit.exceeded" | "limit.unavailable">);
export type Result<T> = { ok: true; value: T } | Failure;

/** A code's parameters as the rest of a call: optional when the code has none. */
type ParamsOf<C extends FailureCode> = Record<string, never> extends FailureParams[C] ? [params?: FailureParams[C]] : [params: FailureParams[C]];

const coded = <C extends FailureCode>(code: C, params: FailureParams[C] | undefined) => ({ code, params: params ?? {} }) as Coded;

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const notFound = <C extends FailureCode = "record.not_found">(code: C = "record.not_found" as C, ...[params]: ParamsOf<C>): Failure => ({
  ok: false,
  error: "not_found",
  ...coded(code, params),
});
export const forbidden = <C extends FailureCode = "access.denied">(code: C = "access.denied" as C, ...[params]: ParamsOf<C>): Failure => ({
  ok: false,
  error: "forbidden",
  ...coded(code, params),
});
export const conflict = <C extends FailureCode>(code: C, ...[params]: ParamsOf<C>): Failure => ({ ok: false, error: "conflict", ...coded(code, params) });
export const invalid = (issues: Issues): Failure => ({ ok: false, error: "invalid", issues });
/** One issue beside a field, by its code. */
export const issue = <C extends FailureCode>(code: C, ...[params]: ParamsOf<C>): FieldIssue => coded(code, params);
/** A rate limit's refusal as a failure: the limit's name becomes the code's parameter, its message stays behind. */
export const limitedBy = (limited: Limited): Failure =>
  limited.status === 503 || !limited.limit || limited.limit === "unavailable"
    ? {
        ok: false,
        error: "limited",
        status: limited.status,
        retryAfter: limited.retryAfter,
        code: "limit.unavailable",
        params: { retryAfter: limited.retryAfter },
      }
    : {
        ok: false,
        error: "limited",
        status: limited.status,
        retryAfter: limited.retryAfter,
        code: "limit.exceeded",
        params: { limit: limited.limit, retryAfter: limited.retryAfter },
      };

/**
 * What must happen once an operation has committed, and not before (a file deleted while the row that
 * names it might still roll back would be a broken image). Each kind has its handler in the worker.
 */
export type Effect =
  | { kind: "delete_image"; key: string }
  | { kind: "conversion"; fact: import("~/analytics/conversions.server").ConversionFact }
  | { kind: "message_mail"; conversationId: string; userId: number; round: number }
  /** A stored file (a message's or an order's attachment, order-files/<key> in the file store) whose row is gone. */
  | { kind: "delete_file"; key: string }
  /** A seller's level and response time measured again (app/operations/seller-levels.server.ts, ADR 049). */
  | { kind: "recompute_level"; userId: number }
  /** A seller's gig was published for the first time: tell the members who saved the seller (app/operations/saved.server.ts). */
  | { kind: "saved_seller_gig"; gigId: number }
  /** A text by SMS (app/operations/sms.server.ts, ADR 050): the sms_messages row to send. */
  | { kind: "send_sms"; smsId: number }
  /** A message unread since `lastRead`: texted in 15 minutes if still unread (app/operations/sms-alerts.server.ts). */
  | { kind: "sms_unread"; conversationId: string; userId: number; lastRead: number };

export type Tx = {
  trx: Knex.Transaction;
  actor: Actor;
  /** An activity row for a member's dashboard, committed with the change it describes. */
  activity: (userId: number, kind: ActivityKind, details?: Record<string, unknown>) => Promise<void>;
  /**
   * An effect to carry out after the commit; with `dedupeKey`, recording it again is a no-op; with
   * `runAfterMs`, not before that long from now.
   */
  effect: (effect: Effect, dedupeKey?: string, runAfterMs?: number) => Promise<void>;
  /**
   * A live event for members' open pages (socket.io), sent once the transaction has committed and only if
   * it did: what it announces is stored first. Best effort by design: a page that was not connected
   * catches up from the database when it reconnects (app/realtime/live.server.ts).
   */
  live: (push: LivePush) => void;
  /**
   * An admin_audit_log row (who, what, whom, from which address), committed with the change it describes.
   * For admin operations: the actor must be an admin member (or the platform, named as such).
   */
  audit: (entry: AuditEntry) => Promise<void>;
  /**
   * This change shows on pages anyone may see (a gig, a price, a review, a seller's public profile, the
   * exchange rate): once it has committed, every web process drops its cached anonymous pages before the
   * operation returns (app/server/page-cache.server.ts, ADR 019), so the next request sees it.
   */
  pagesChanged: () => void;
};

/** What an admin did (or read), to whom: `user.suspend` on `user` 12, `conversation.read` on `conversation` conv_…. */
export type AuditEntry = { action: string; targetType: string; targetId?: string | number | null; details?: Record<string, unknown> };

export async function recordEffect(db: Knex | Knex.Transaction, effect: Effect, dedupeKey?: string, runAfterMs = 0, requestId: string | null = null) {
  const { kind, ...payload } = effect;
  const runAfter = runAfterMs > 0 ? db.raw("now() + ?::interval", [`${Math.round(runAfterMs)} milliseconds`]) : db.fn.now();
  const query = db("effects").insert({
    kind,
    payload: JSON.stringify(payload),
    dedupe_key: dedupeKey ?? null,
    run_after: runAfter,
    request_id: requestId,
  });
  await prepared(dedupeKey ? query.onConflict("dedupe_key").ignore() : query);
}

export async function recordAudit(db: Knex | Knex.Transaction, actor: Actor, entry: AuditEntry) {
  await db("admin_audit_log").insert({
    admin_id: actor.kind === "member" ? actor.user.id : null,
    admin_name: actor.kind === "member" ? actor.user.name : actor.kind === "system" ? `platform (${actor.name})` : "visitor",
    action: entry.action,
    target_type: entry.targetType,
    target_id: entry.targetId === undefined || entry.targetId === null ? null : String(entry.targetId),
    details: JSON.stringify(entry.details ?? {}),
    ip: actor.kind === "system" ? "" : actor.client.ip,
    request_id: requestIdOfActor(actor),
  });
}

/** The admin behind an actor (an admin member), or null: the check every admin operation starts with. */
export function adminOf(actor: Actor): SessionUser | null {
  return actor.kind === "member" && actor.user.role === "admin" ? actor.user : null;
}

const ROLLBACK = Symbol("rollback");

/**
 * Runs an operation's body in one transaction. An `ok` result commits everything it wrote (rows, activity,
 * effects); any other result, or a throw, rolls all of it back, so an operation that refuses has changed
 * nothing. A transaction Postgres undoes to break a deadlock is run again (its body must only read and
 * write the database: calls to the outside world belong after the commit). `db` is for tests and scripts that hold their own knex instance.
 */
export async function transact<T>(actor: Actor, body: (tx: Tx) => Promise<Result<T>>, { db = getDb() }: { db?: Knex } = {}): Promise<Result<T>> {
  return retried(actor, () => transactOnce(actor, body, db));
}

/** Runs `attempt` again when Postgres undid it to break a deadlock or a serialization failure (see transact). */
async function retried<T>(actor: Actor, attempt: () => Promise<T>): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (error) {
      // Postgres chose this transaction to undo (a deadlock, a serialization failure): nothing of it was
      // written, so the whole body runs again on what is there now, a few times before giving up.
      const code = (error as { code?: string }).code;
      if ((code !== "40P01" && code !== "40001") || n >= RETRIES) throw error;
      // Said aloud: a retry is a lock-order mistake somewhere, which should be found rather than absorbed.
      log.warn(`[transact] ${actor.kind === "system" ? actor.name : actor.kind} retried after ${code === "40P01" ? "a deadlock" : "a serialization failure"}`);
      await new Promise((resolve) => setTimeout(resolve, 10 * n + Math.random() * 20));
    }
  }
}

const RETRIES = 4;

async function transactOnce<T>(actor: Actor, body: (tx: Tx) => Promise<Result<T>>, db: Knex): Promise<Result<T>> {
  let failure: Failure | undefined;
  const pushes: LivePush[] = [];
  let pagesChanged = false;
  try {
    const result = await db.transaction(async (trx) => {
      const tx: Tx = {
        trx,
        actor,
        activity: (userId, kind, details = {}) => recordActivity(trx, userId, kind, details, requestIdOfActor(actor)),
        effect: (effect, dedupeKey, runAfterMs) => recordEffect(trx, effect, dedupeKey, runAfterMs, requestIdOfActor(actor)),
        live: (push) => void pushes.push(push),
        audit: (entry) => recordAudit(trx, actor, entry),
        pagesChanged: () => void (pagesChanged = true),
      };
      const result = await body(tx);
      if (!result.ok) {
        failure = result;
        throw ROLLBACK;
      }
      return result;
    });
    publish(pushes);
    if (pagesChanged) await dropCachedPages();
    return result;
  } catch (error) {
    if (error === ROLLBACK && failure) return failure;
    throw error;
  }
}

/** A committed change's live events go out. */
function publish(pushes: LivePush[]) {
  // A member whose sessions this change ended (or a session it ended) loses this process's held lookups now, not
  // when Postgres's notice of it arrives (other processes still wait for that notice, ADR 042).
  for (const push of pushes) {
    if ("disconnect" in push) getTokenCache().drop(push.disconnect);
    else if ("disconnectSession" in push) getTokenCache().dropSession(push.disconnectSession);
  }
  if (pushes.length) sendLive(pushes);
}

/** What an operation of one statement gets (writeOnce): the database, who acts, and its live events. */
export type OneStatement = { db: Knex; actor: Actor; requestId: string | null; live: (push: LivePush) => void };

/**
 * Runs an operation whose whole change is one SQL statement (a chat message's send, a read mark), with no BEGIN
 * and COMMIT of its own: Postgres runs a single statement atomically, in a transaction of its own, so the two
 * round trips would buy nothing, and they were two of a message's few (ADR 016). The statement writes its
 * activity or effect rows itself. `body` may read before it (what it reads is not locked: a check that must hold
 * at the write belongs in the statement) and after it (to explain a statement that wrote nothing); its live events
 * go out once it has returned, and only if it returned `ok`. Undone by a deadlock, it runs again, as transact's.
 */
export async function writeOnce<T>(actor: Actor, body: (w: OneStatement) => Promise<Result<T>>, { db = getDb() }: { db?: Knex } = {}): Promise<Result<T>> {
  return retried(actor, async () => {
    const pushes: LivePush[] = [];
    const result = await body({ db, actor, requestId: requestIdOfActor(actor), live: (push) => void pushes.push(push) });
    if (result.ok) publish(pushes);
    return result;
  });
}

/** The member behind an actor, or null for a visitor or the platform. */
export function memberOf(actor: Actor): SessionUser | null {
  return actor.kind === "member" ? actor.user : null;
}

/**
 * Zod issues beside their fields, in the schema's own words (`schema` issues, ADR 035): the path names the
 * field (`basic.price` for nested ones).
 */
export function issuesOf(error: { issues: { path: (string | number)[]; message: string }[] }): Issues {
  const issues: Issues = {};
  for (const { path, message } of error.issues) {
    const field = path.length ? path.join(".") : "form";
    (issues[field] ??= []).push({ code: "schema", message });
  }
  return issues;
}
