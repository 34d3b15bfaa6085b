/**
 * What a request's log line needs to know about it besides its method and status (ADR 057): its id, the route
 * that answered it and the member behind it. Requests in flight are held here by their id; the id goes along
 * explicitly: in the X-Request-Id header that the Remix and API doors read, and from there in the actor's client
 * (core.server.ts writes it into activity, audit and effect rows), not in an AsyncLocalStorage. On Node 20 a
 * single AsyncLocalStorage in use makes every promise in the process pay a hook (three times the cost of an
 * await, measured), and the tracking endpoints and the chat create promises by the thousand a second.
 */
import { randomUUID } from "node:crypto";

export type RequestContext = {
  requestId: string;
  /** The route pattern that answered (a Remix route id or an Express path), never the URL. */
  route?: string;
  /** How deep in the route tree `route` is: a nested route's loader outranks its layouts'. */
  routeRank?: number;
  /** The signed-in member's id, once a session has been read. */
  actorId?: number;
};

/** The header a request's id travels in, to the client and, inside the process, to the doors. */
export const REQUEST_ID_HEADER = "x-request-id";

declare global {
  // One registry per process: server.ts's bundle and Remix's server build each hold a copy of this module.
  // eslint-disable-next-line no-var
  var __sokoRequestsInFlight: Map<string, RequestContext> | undefined;
}
const inFlight = (globalThis.__sokoRequestsInFlight ??= new Map<string, RequestContext>());

/** Holds a request's context until `done` (its response has ended). */
export function openRequest(context: RequestContext): { done: () => void } {
  inFlight.set(context.requestId, context);
  return { done: () => inFlight.delete(context.requestId) };
}

/** The route that answers, if it ranks at least as deep as the one noted before. */
export function noteRoute(requestId: string | null | undefined, route: string, rank = 0): void {
  const context = requestId ? inFlight.get(requestId) : undefined;
  if (context && (context.routeRank === undefined || rank >= context.routeRank)) {
    context.route = route;
    context.routeRank = rank;
  }
}

/** The signed-in member behind a request. */
export function noteActor(requestId: string | null | undefined, userId: number): void {
  const context = requestId ? inFlight.get(requestId) : undefined;
  if (context) context.actorId = userId;
}

/** A caller's X-Request-Id is kept only when it is a short token of safe characters: it ends up in logs and rows. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * The id of an incoming request: the caller's X-Request-Id if it is safe and no request in flight has it (two
 * requests sharing one would mix their log lines), else a new one.
 */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === "string" && SAFE_ID.test(header) && !inFlight.has(header) ? header : randomUUID();
}
