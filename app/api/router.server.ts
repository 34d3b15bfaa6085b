/**
 * The JSON API under /api/v1 (ADR 041), as one Express router made from the list of calls (app/api/calls.server.ts).
 * For each request, in order: CORS (only for API_CORS_ORIGINS), the Bearer token (an app's session: never the
 * cookie), the rate limits per member and per address, the body (JSON within 1 MB, or multipart for the upload
 * calls), the path, query and body against the call's schemas, its Idempotency-Key, then the call's handler, whose
 * Result becomes the answer (answers.server.ts). The tracking endpoints under /api/v1/analytics are answered
 * before this router (app/analytics/router.server.ts).
 */
import { REQUEST_ID_HEADER } from "~/server/request-context.server";
import { createHash } from "node:crypto";
import compression from "compression";
import express, { Router, type Request, type RequestHandler, type Response } from "express";
import { z, type ZodTypeAny } from "zod";
import { getSessionUser, type SessionUser } from "~/models/session.server";
import { keepSessionAlive } from "~/operations/accounts.server";
import { endReusedToken } from "~/operations/app-sessions.server";
import { claimIdempotencyKey, releaseIdempotencyKey, saveIdempotentAnswer } from "~/operations/idempotency.server";
import { issuesOf, limitedBy, type Actor, type Client } from "~/operations/core.server";
import { FORM_BODY_LIMIT } from "~/server/body-limit.server";
import { getDb } from "~/server/db.server";
import { getEnv } from "~/server/env.server";
import { addressKey, consumeAll } from "~/server/rate-limit.server";
import { serveShared } from "~/server/page-cache-serving.server";
import { heldSessionUser } from "~/server/token-cache.server";
import { bearerTokenOf } from "~/server/auth.server";
import { apiLocale, failureAnswer, invalidBody, sendCoded, sendFailure } from "./answers.server";
import type { Locale } from "~/i18n/locales";
import { ANSWERED, expressPath, type Answer, type ApiCall } from "./route.server";
import { log } from "~/server/log.server";

export const API_PREFIX = "/api/v1";
/** A JSON body's cap: the same as any form's. */
export const API_JSON_LIMIT = FORM_BODY_LIMIT;

const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{8,100}$/;

/** The router of every call; static paths are matched before parameters (`/gigs/search` before `/gigs/{id}`). */
export function apiRouter(calls: readonly ApiCall[]): Router {
  const router = Router();
  router.use(API_PREFIX, cors());
  const ordered = [...calls].sort((a, b) => paramCount(a.path) - paramCount(b.path));
  // Answers are compressed by compression(), but for the shared reads', which the cache sends gzipped itself
  // (from a copy compressed once per answer), so that a hit sets up no compressor.
  const compress = compression();
  for (const call of ordered) {
    const handler: RequestHandler = (req, res, next) => void answer(call, req, res).catch(next);
    router[call.method](`${API_PREFIX}${expressPath(call.path)}`, ...(call.shared ? [] : [compress]), handler);
  }
  // A path we serve with another method is 405 with what it takes; any other path under /api/v1 is 404.
  router.all(`${API_PREFIX}/*`, (req, res) => {
    // Once each: a path can match a static call and a parameter one (`/users/profile` and `/users/{id}`).
    const allow = [...new Set(ordered.filter((c) => matches(c.path, req.path.slice(API_PREFIX.length))).map((c) => c.method.toUpperCase()))];
    const locale = apiLocale(req);
    if (allow.length)
      return sendCoded(res, 405, { code: "request.method_not_allowed", params: { allow: allow.join(", ") } }, { Allow: allow.join(", ") }, locale);
    sendCoded(res, 404, { code: "request.unknown_call", params: {} }, {}, locale);
  });
  router.use(API_PREFIX, ((error, req, res, _next) => {
    log.error({ err: error }, "[api] request failed");
    if (res.headersSent) return res.end();
    sendCoded(res, 500, { code: "request.server_error", params: {} }, {}, apiLocale(req));
  }) as express.ErrorRequestHandler);
  return router;
}

const paramCount = (path: string) => (path.match(/\{/g) ?? []).length;
const matches = (template: string, path: string) => new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}/?$`, "i").test(path);

/**
 * Cross-origin reads for the origins in API_CORS_ORIGINS only (a partner's web app); any other origin gets no
 * CORS headers, so its pages cannot read an answer. Preflights of listed origins are answered here.
 */
function cors(): RequestHandler {
  return (req, res, next) => {
    const origin = req.headers.origin;
    if (!origin || !getEnv().API_CORS_ORIGINS.includes(origin)) return next();
    res.setHeader("Access-Control-Allow-Origin", origin);
    res.setHeader("Vary", "Origin");
    res.setHeader("Access-Control-Expose-Headers", "Retry-After, Idempotent-Replayed");
    if (req.method !== "OPTIONS") return next();
    res.setHeader("Access-Control-Allow-Methods", "GET, POST, PUT, PATCH, DELETE");
    res.setHeader("Access-Control-Allow-Headers", "Authorization, Content-Type, Idempotency-Key, Accept-Language");
    res.setHeader("Access-Control-Max-Age", "600");
    res.status(204).end();
  };
}

/** Who calls, and the language they are answered in (apiLocale). */
type Caller = { actor: Actor; user: SessionUser | null; locale: Locale };

/** One call, from its token to its answer. */
async function answer(call: ApiCall, req: Request, res: Response) {
  res.setHeader("Cache-Control", "no-store");
  const caller = await authenticate(call, req, res);
  if (!caller) return;

  const ip = caller.actor.kind === "system" ? "" : caller.actor.client.ip;
  const uses: Parameters<typeof consumeAll>[0] = [{ name: "apiAddress", key: `ip:${addressKey(ip)}`, points: 1 }];
  if (caller.user) uses.push({ name: "apiToken", key: `user:${caller.user.id}`, points: 1 });
  // Both limits in one round trip; a refusal by either leaves both as they were.
  const limited = await consumeAll(uses);
  if (limited) {
    const { status, body, headers } = failureAnswer(limitedBy(limited), caller.locale);
    return sendFailure(res, status, body, headers);
  }

  const body = await readBody(call, req, res, caller.locale);
  if (body === NO_BODY) return;
  const parsed = parseParts(call, req, body);
  if (!parsed.ok) return sendFailure(res, 400, invalidBody(parsed.issues, caller.locale));

  if (call.shared && caller.actor.kind !== "system") return answerShared(call, caller, parsed, req, res);

  const idempotency = call.idempotent && caller.user ? await claimIdempotency(call, req, res, caller, body) : null;
  if (idempotency === "answered") return;
  try {
    const result = await run(call, caller, parsed, req, res);
    if (result === ANSWERED) return;
    const { status, payload } = result;
    // A refusal for now (a limit, an unavailable service) is not the request's answer: the key may be sent again.
    if (idempotency && (status === 429 || status === 503)) await releaseIdempotencyKey(caller.actor, { key: idempotency.key });
    else if (idempotency) await saveIdempotentAnswer(caller.actor, { key: idempotency.key, status, body: payload });
    send(res, result);
  } catch (error) {
    if (idempotency) await releaseIdempotencyKey(caller.actor, { key: idempotency.key }).catch(() => {});
    throw error;
  }
}

type Parsed = { params: unknown; query: unknown; body: unknown };
type Reply = { status: number; payload: unknown; headers: Record<string, string> };

/** The call's handler with this caller, its Result as the status, body and headers of the answer. */
async function run(call: ApiCall, caller: Caller, parsed: Parsed, req: Request, res: Response): Promise<Reply | typeof ANSWERED> {
  const result = await call.handle({ actor: caller.actor, ...parsed, sessionId: caller.user?.sessionId ?? null, locale: caller.locale, req, res });
  if (result === ANSWERED) return ANSWERED;
  if (result.ok) {
    const { value, status, message } = result as Answer<unknown>;
    return { status: status ?? call.status ?? 200, payload: message === undefined ? { data: value } : { data: value, message }, headers: {} };
  }
  const { status, body, headers } = failureAnswer(result, caller.locale);
  return { status, payload: body, headers };
}

function send(res: Response, { status, payload, headers }: Reply) {
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json(payload);
}

/**
 * A shared read (ApiCall.shared): the visitor's answer for these parameters, from the micro-cache or made now
 * with a visitor's actor (the caller's address and client, no member), so nothing of a member's can enter it.
 * The key is the call, the language its words are in (a refusal's `message`, ADR 047: the caller's, which the
 * visitor's answer is made in) and its parsed parameters (defaults filled in, so `?limit=20` and no limit share one).
 */
async function answerShared(call: ApiCall, caller: Caller, parsed: Parsed, req: Request, res: Response) {
  const visitor: Caller = { actor: { kind: "anonymous", client: (caller.actor as { client: Client }).client }, user: null, locale: caller.locale };
  const key = `api ${caller.locale} ${call.method} ${call.path} ${JSON.stringify(parsed.params)} ${JSON.stringify(parsed.query)}`;
  await serveShared(key, req, res, {
    async build() {
      const reply = await run(call, visitor, parsed, req, res);
      if (reply === ANSWERED) throw new Error(`${call.operationId} is shared but answered by itself`);
      const headers = new Headers({ ...reply.headers, "Content-Type": "application/json; charset=utf-8" });
      return new globalThis.Response(JSON.stringify(reply.payload), { status: reply.status, headers });
    },
    // A visitor's refusal (a 404 for a paused gig, a 429 counted against their address) is theirs to have; a
    // member gets their own answer, which may show more.
    builderMayUse: caller.user === null,
    async own() {
      const reply = await run(call, caller, parsed, req, res);
      if (reply !== ANSWERED) send(res, reply);
    },
    fill: { nonce: "", pageview: null },
    gzipMiss: true,
  });
}

/**
 * The token's member, or a visitor for a public call without one; null once it has answered 401 or 403. A
 * token that was replaced by a refresh and is presented again ends its whole family (ADR 041).
 */
async function authenticate(call: ApiCall, req: Request, res: Response): Promise<Caller | null> {
  const token = bearerTokenOf(req.headers.authorization);
  const client: Client = {
    ip: req.ip ?? "",
    userAgent: (req.headers["user-agent"] ?? "").slice(0, 512),
    analyticsConsent: false,
    tabSessionId: null,
    requestId: (req.headers[REQUEST_ID_HEADER] as string | undefined) ?? null,
  };
  const visitorLocale = apiLocale(req);
  if (!token) {
    if (call.access === "public") return { actor: { kind: "anonymous", client: { ...client, platform: "api" } }, user: null, locale: visitorLocale };
    sendCoded(res, 401, { code: "token.missing", params: {} }, { "WWW-Authenticate": 'Bearer realm="soko"' }, visitorLocale);
    return null;
  }
  const db = getDb();
  const user = getEnv().TOKEN_CACHE === "on" ? await heldSessionUser(db, token, "app") : await getSessionUser(db, token, "app");
  if (!user) {
    const ended = await endReusedToken({ kind: "anonymous", client }, { token }, { db });
    const reused = ended.ok && ended.value.reused;
    const error = reused ? 'error="invalid_token", error_description="token reused"' : 'error="invalid_token"';
    sendCoded(
      res,
      401,
      { code: reused ? "token.reused" : "token.invalid", params: {} },
      { "WWW-Authenticate": `Bearer realm="soko", ${error}` },
      visitorLocale,
    );
    return null;
  }
  if (call.access === "admin" && user.role !== "admin") {
    sendCoded(res, 403, { code: "token.admins_only", params: {} }, {}, apiLocale(req, user));
    return null;
  }
  const { renewalDue, ...member } = user;
  const actor: Actor = { kind: "member", user: member, client: { ...client, platform: user.platform ?? "api" } };
  // Its last use is noted at most every five minutes (keepSessionAlive); a failure to write only costs that note.
  if (renewalDue) await keepSessionAlive(actor, { db }).catch((error: Error) => log.error(`[api] could not note a token's use: ${error.message}`));
  return { actor, user: member, locale: apiLocale(req, member) };
}

const NO_BODY = Symbol("no body");
const JSON_TYPE = /^\s*application\/(?:[\w.+-]+\+)?json\s*(;|$)/i;
const MULTIPART_TYPE = /^\s*multipart\/form-data\s*(;|$)/i;
const jsonParser = express.json({ limit: API_JSON_LIMIT, strict: false, type: () => true });

/**
 * The call's body: parsed JSON (an empty body is `{}`), or for a multipart call nothing yet (its handler reads
 * the parts). NO_BODY once it has answered 413, 415 or 400.
 */
async function readBody(call: ApiCall, req: Request, res: Response, locale: Locale): Promise<unknown> {
  if (!call.body) return {};
  const type = req.headers["content-type"] ?? "";
  const hasBody = Number(req.headers["content-length"] ?? 0) > 0 || req.headers["transfer-encoding"] !== undefined;
  if (call.body === "multipart") {
    if (MULTIPART_TYPE.test(type)) return {};
    sendCoded(res, 415, { code: "request.unsupported_type", params: { expected: "multipart" } }, {}, locale);
    return NO_BODY;
  }
  if (!hasBody) return {};
  if (!JSON_TYPE.test(type)) {
    sendCoded(res, 415, { code: "request.unsupported_type", params: { expected: "json" } }, {}, locale);
    return NO_BODY;
  }
  return new Promise((resolve) => {
    jsonParser(req, res, (error?: unknown) => {
      if (!error) return resolve(req.body ?? {});
      const kind = (error as { type?: string }).type;
      if (kind === "entity.too.large")
        sendCoded(res, 413, { code: "request.too_large", params: { maxBytes: API_JSON_LIMIT } }, { Connection: "close" }, locale);
      else if (kind === "encoding.unsupported" || kind === "charset.unsupported")
        sendCoded(res, 415, { code: "request.unsupported_type", params: { expected: "json_utf8" } }, {}, locale);
      else if (kind === "request.aborted") res.destroy();
      else sendCoded(res, 400, { code: "request.malformed_json", params: {} }, {}, locale);
      resolve(NO_BODY);
    });
  });
}

/** Path, query and body through the call's schemas; issues are named `path.id`, `query.limit`, or the body's field. */
function parseParts(call: ApiCall, req: Request, body: unknown) {
  const parts: [prefix: string, schema: ZodTypeAny | undefined, value: unknown][] = [
    ["path.", call.params, req.params],
    ["query.", call.query, req.query],
    ["", call.body === "multipart" ? undefined : call.body, body],
  ];
  const values: unknown[] = [];
  const issues: Record<string, { code: "schema"; message: string }[]> = {};
  for (const [prefix, schema, value] of parts) {
    const parsed = (schema ?? z.any()).safeParse(value);
    if (parsed.success) values.push(parsed.data);
    else
      for (const [field, list] of Object.entries(issuesOf(parsed.error)))
        (issues[`${prefix}${field}`] ??= []).push(...(list as { code: "schema"; message: string }[]));
  }
  if (Object.keys(issues).length) return { ok: false as const, issues };
  return { ok: true as const, params: values[0], query: values[1], body: values[2] };
}

/**
 * An Idempotency-Key's claim: the key and member to save the answer under, or "answered" when this request
 * was answered here (a replay of the first answer, 409 while the first is still running or for a key used with
 * another request, 400 for a malformed key). Without the header, null: the call runs as any other.
 */
async function claimIdempotency(call: ApiCall, req: Request, res: Response, { actor, locale }: Caller, body: unknown) {
  const key = req.headers["idempotency-key"];
  if (key === undefined) return null;
  if (typeof key !== "string" || !IDEMPOTENCY_KEY.test(key)) {
    sendCoded(res, 400, { code: "idempotency.bad_key", params: {} }, {}, locale);
    return "answered" as const;
  }
  const request = `${call.method.toUpperCase()} ${req.path}`;
  const requestHash = createHash("sha256").update(JSON.stringify(body)).digest("hex");
  const claimed = await claimIdempotencyKey(actor, { key, request, requestHash });
  if (!claimed.ok) throw new Error(`idempotency key not claimed: ${claimed.error}`);
  const claim = claimed.value;
  if (claim === "claimed") return { key };
  if (claim === "busy" || claim === "mismatch") {
    sendCoded(res, 409, { code: claim === "busy" ? "idempotency.in_progress" : "idempotency.key_reused", params: {} }, {}, locale);
    return "answered" as const;
  }
  res.setHeader("Idempotent-Replayed", "true");
  res.status(claim.status).json(claim.body);
  return "answered" as const;
}
