/**
 * The server plumbing the MTN MoMo and Airtel Money fakes share (fake-momo.ts, fake-airtel.ts): listening on
 * 127.0.0.1, reading and recording every request, the bearer tokens it issues, the controls for the unhappy
 * paths, and callbacks. What a request means and how it is answered stays in each fake, in its provider's
 * shapes.
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedRequest = {
  method: string;
  path: string;
  /** Lower-cased header names, as Node gives them. */
  headers: http.IncomingHttpHeaders;
  /** The parsed JSON body; the raw text when it is not JSON; null when empty. */
  body: unknown;
};

/** A fake's answer to one request: [status, body]; without a body, none is sent. */
export type Answer = [number, unknown?];

/** The controls every fake provider has. */
export type FakeServer = {
  url: string;
  /** The next request whose path contains `match` (every path but the token's by default) gets this answer. */
  respondNext: (status: number, body?: unknown, match?: string) => void;
  /** The next request whose path contains `match` is carried out, but its answer is held back `ms`. */
  holdNext: (ms: number, match?: string) => void;
  /** Every token issued so far stops working (the next call with one gets 401). */
  expireTokens: () => void;
  /** expires_in of tokens issued from now on, in seconds. */
  setTokenLifetime: (seconds: number) => void;
  requests: ReceivedRequest[];
  /** How many requests had a path containing `match`. */
  count: (match: string) => number;
  close: () => Promise<void>;
};

/**
 * The bearer tokens a fake issued. Each is good for one `scope` (MoMo's tokens belong to one product;
 * Airtel's, with no scope, serve every call) until its lifetime runs out or `expireTokens` is called.
 */
export type FakeTokens = {
  issue: (scope?: string) => { token: string; lifetimeS: number };
  /** Whether an Authorization header carries a live token of this scope. */
  accepts: (authorization: string | undefined, scope?: string) => boolean;
};

type Override = { match: string; status: number; body?: unknown; holdMs?: number };

/**
 * Serves `handle` on a free port of 127.0.0.1. `tokenPath` is part of the token endpoint's path: a
 * `respondNext` or `holdNext` without a match leaves it alone, so a test aims at the call itself whether or
 * not a token is fetched first. Tokens live `tokenLifetimeS` seconds unless `setTokenLifetime` says otherwise.
 */
export async function startFakeServer(options: {
  tokenPath: string;
  tokenLifetimeS: number;
  handle: (req: ReceivedRequest, tokens: FakeTokens) => Answer;
}): Promise<FakeServer> {
  const requests: ReceivedRequest[] = [];
  const overrides: Override[] = [];
  const held = new Set<NodeJS.Timeout>();
  const issued = new Map<string, { scope: string; expiresAt: number }>();
  let tokenLifetimeS = options.tokenLifetimeS;

  const tokens: FakeTokens = {
    issue(scope = "") {
      const token = `tok-${randomUUID()}`;
      issued.set(token, { scope, expiresAt: Date.now() + tokenLifetimeS * 1000 });
      return { token, lifetimeS: tokenLifetimeS };
    },
    accepts(authorization, scope = "") {
      const bearer = /^Bearer (.+)$/.exec(authorization ?? "")?.[1];
      const token = bearer ? issued.get(bearer) : undefined;
      return token !== undefined && token.scope === scope && token.expiresAt >= Date.now();
    },
  };

  function reply(res: http.ServerResponse, [status, body]: Answer) {
    if (body === undefined) res.writeHead(status).end();
    else res.writeHead(status, { "Content-Type": "application/json" }).end(JSON.stringify(body));
  }

  function takeOverride(path: string): Override | undefined {
    const index = overrides.findIndex((o) => (o.match === "" ? !path.includes(options.tokenPath) : path.includes(o.match)));
    return index === -1 ? undefined : overrides.splice(index, 1)[0];
  }

  const server = http.createServer((incoming, res) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (c: Buffer) => chunks.push(c));
    incoming.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      if (text) {
        try {
          body = JSON.parse(text);
        } catch {
          body = text;
        }
      }
      const path = new URL(incoming.url ?? "/", "http://fake").pathname;
      const req: ReceivedRequest = { method: incoming.method ?? "GET", path, headers: incoming.headers, body };
      requests.push(req);
      const override = takeOverride(path);
      if (override && override.holdMs === undefined) return reply(res, [override.status, override.body]);
      // A held request is still carried out now: the provider took it, only its answer is late.
      const answer = options.handle(req, tokens);
      if (override?.holdMs === undefined) return reply(res, answer);
      const timer = setTimeout(() => {
        held.delete(timer);
        if (!res.destroyed) reply(res, answer);
      }, override.holdMs);
      held.add(timer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));

  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    respondNext(status, body, match = "") {
      overrides.push({ match, status, body });
    },
    holdNext(ms, match = "") {
      overrides.push({ match, status: 0, holdMs: ms });
    },
    expireTokens() {
      issued.clear();
    },
    setTokenLifetime(seconds) {
      tokenLifetimeS = seconds;
    },
    requests,
    count: (match) => requests.filter((r) => r.path.includes(match)).length,
    close: () =>
      new Promise<void>((resolve) => {
        for (const timer of held) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A provider's callback: sent once, its failure ignored, since neither MoMo nor Airtel promises a retry. */
export function sendCallback(url: string, method: "PUT" | "POST", body: unknown) {
  fetch(url, {
    method,
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(2000),
  }).catch(() => {});
}
