/**
 * What a log line, an activity or audit row, or an after-commit effect needs to know about the request (or the
 * effect) it was written for: its id, and for the request's own log line the route that answered it and the
 * member behind it. Held in an AsyncLocalStorage, so code deep in an operation reads it without every function
 * passing it along (ADR 057). The worker runs each effect inside the context of the request that queued it.
 */
import { AsyncLocalStorage } from "node:async_hooks";
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

declare global {
  // One store per process: server.ts's bundle and Remix's server build each hold a copy of this module, and both
  // must read the same context (as Vite's dev server reloading it must).
  // eslint-disable-next-line no-var
  var __sokoRequestContext: AsyncLocalStorage<RequestContext> | undefined;
}
const storage = (globalThis.__sokoRequestContext ??= new AsyncLocalStorage<RequestContext>());

/** Runs `fn` (and everything it starts) in `context`. */
export function runWithRequest<T>(context: RequestContext, fn: () => T): T {
  return storage.run(context, fn);
}

export function currentRequest(): RequestContext | undefined {
  return storage.getStore();
}

/** The id of the request (or of the request behind the effect) being handled, or null outside one. */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/** The route that answers, if it ranks at least as deep as the one noted before. */
export function noteRoute(route: string, rank = 0): void {
  const context = storage.getStore();
  if (context && (context.routeRank === undefined || rank >= context.routeRank)) {
    context.route = route;
    context.routeRank = rank;
  }
}

/** The signed-in member behind this request. */
export function noteActor(userId: number): void {
  const context = storage.getStore();
  if (context) context.actorId = userId;
}

/** A caller's X-Request-Id is kept only when it is a short token of safe characters: it ends up in logs and rows. */
const SAFE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The id of an incoming request: the caller's X-Request-Id if it is safe, else a new one. */
export function requestIdOf(header: string | string[] | undefined): string {
  return typeof header === "string" && SAFE_ID.test(header) ? header : randomUUID();
}
