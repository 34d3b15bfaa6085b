/**
 * One call of the JSON API (ADR 041): its method and path, who may make it, the zod schemas of its path, query
 * and body (which validate the request and, the same objects, describe it in the OpenAPI document), the schema
 * of its answer's `data`, and its handler. A handler maps parsed input to an operation (or a model read, for
 * what only reads) with the token's actor and returns the operation's Result; the router does everything
 * else: the token, rate limits, the body, validation, idempotency and the answer's shape.
 */
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import type { ZodTypeAny, z } from "zod";
import type { Locale } from "~/i18n/locales";
import type { Actor, Result } from "~/operations/core.server";

/** Who may call: anyone (a token, if sent, must be valid and names the member), a member's token, an admin's. */
export type Access = "public" | "member" | "admin";

export type Method = "get" | "post" | "put" | "patch" | "delete";

/** What a handler is given: the actor (of the token, or a visitor), and the request's parts as its schemas parsed them. */
export type CallContext<P, Q, B> = {
  actor: Actor;
  params: P;
  query: Q;
  body: B;
  /** The token's session (for sign-out and refresh), when the call came with a valid token. */
  sessionId: string | null;
  /** The language the answer's words (`message`) are said in: the member's saved one, else Accept-Language (ADR 047). */
  locale: Locale;
  req: ExpressRequest;
  res: ExpressResponse;
};

/** A handler's success beyond plain data: another status (201 for what it created) or a message for people. */
export type Answer<T> = { ok: true; value: T; status?: 200 | 201 | 202; message?: string };

/** A handler that wrote its own answer (a file, a CSV stream) returns this. */
export const ANSWERED = Symbol("answered");

export type ApiCall<
  P extends ZodTypeAny = ZodTypeAny,
  Q extends ZodTypeAny = ZodTypeAny,
  B extends ZodTypeAny = ZodTypeAny,
  R extends ZodTypeAny = ZodTypeAny,
> = {
  method: Method;
  /** The path under /api/v1, with OpenAPI's `{name}` parameters: `/gigs/{id}`. */
  path: string;
  /** A stable name for generated clients: `listGigs`. */
  operationId: string;
  summary: string;
  description?: string;
  tag: string;
  access: Access;
  params?: P;
  query?: Q;
  /** A JSON body's schema (strict: unknown fields are refused), or "multipart" for file uploads (parsed by the handler). */
  body?: B | "multipart";
  /** The schema of the answer's `data`; with `produces`, of the whole body. */
  response: R;
  /**
   * A call whose handler writes its answer itself, not wrapped in `data`: a file (a CSV export), or a JSON
   * document of its own (the OpenAPI document). The document lists this type and `response` as the whole body.
   */
  produces?: "text/csv" | "application/json" | "application/octet-stream";
  /** The success status; 200 unless said. */
  status?: 200 | 201 | 202;
  /** The call honours an `Idempotency-Key` header: a repeat with the same key and body gets the first answer. */
  idempotent?: boolean;
  /**
   * A read whose answer to a visitor is every caller's answer (the catalog, a published gig): it is answered
   * from the web process's micro-cache for a few seconds, dropped when what it shows changes (ADR 042). A
   * caller whose token lets them see more (a seller's own paused gig, a hidden category for an admin) gets their
   * own answer where a visitor's is not a 200. Only a GET that answers through a Result may say so.
   */
  shared?: boolean;
  /** The failure statuses this call may answer besides the door's own (400, 401, 403, 413, 415, 429, 503). */
  failures?: (404 | 409)[];
  handle(context: CallContext<z.output<P>, z.output<Q>, z.output<B>>): Promise<Result<z.input<R>> | Answer<z.input<R>> | typeof ANSWERED>;
};

/** Defines a call; the identity, typed, so that a handler's parts are its schemas' outputs. */
export function call<P extends ZodTypeAny, Q extends ZodTypeAny, B extends ZodTypeAny, R extends ZodTypeAny>(definition: ApiCall<P, Q, B, R>): ApiCall {
  return definition as unknown as ApiCall;
}

/** `/gigs/{id}` as Express writes it: `/gigs/:id`. */
export const expressPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");
