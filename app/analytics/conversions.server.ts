/**
 * Conversions that are business facts — a signup, a gig published, an order placed, paid or completed —
 * recorded by the server from the operation that made them (ADR 007 "Conversions", ADR 012). A browser
 * can no longer send them: the endpoint refuses these types, so nobody can post an order of any value into
 * the revenue report.
 *
 * The operation records the fact as an effect in its own transaction (conversionFact); after the commit
 * the worker puts it on the same ingest queue as the tracking endpoints (serverConversionEvent), so it is
 * written like any event, with platform "server" (SERVER_PLATFORM), which is what the reports count. A
 * fact waits in Postgres while Redis is away and is queued once it is back; it never breaks the action.
 *
 * One fact, one row: the event id is derived from the type, what the fact is about and when it happened,
 * so recording it again (a gig saved as published a second time, a retried order transition) writes the
 * same row, which the tables keep once.
 *
 * Consent: the fact is counted for everyone, as the server's anonymous page views are. It carries the
 * member's user id, and the tab's tracking session (the tracker's `soko_sid` cookie), only when the
 * visitor allows analytics (`soko_consent=granted`); otherwise user 0 and the server's own cookie-less
 * session of that address and browser, as for a page view without JavaScript.
 */
import { createHash } from "node:crypto";
import { SERVER_PLATFORM, sessionId, type BusinessConversionType, type QueuedEvent } from "~/analytics/events";
import { serverSessionId, visitorEnrichment } from "~/analytics/ingest.server";
import type { Actor, Client } from "~/operations/core.server";

/** A UUID (RFC 9562 version 8) naming one fact: the same type, subject and time give the same id. */
function factId(type: string, subjectId: number, atMs: number): string {
  const h = createHash("sha256").update(`soko conversion\n${type}\n${subjectId}\n${atMs}`).digest("hex");
  const variant = ((parseInt(h[16]!, 16) & 3) | 8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/**
 * A business fact as the operations layer records it (an after-commit effect, ADR 012): plain data, so it
 * can wait in Postgres until the worker queues it. `client` is the actor's (address, software, consent).
 */
export type ConversionFact = {
  type: BusinessConversionType;
  userId: number;
  subjectId: number;
  atMs: number;
  valueUgx: number;
  metadata: Record<string, string | number | boolean>;
  client: Client;
};

/** The fact of an actor's action (a system actor, such as a worker timer, has no client: no place, no device). */
export function conversionFact(
  actor: Actor,
  fact: { type: BusinessConversionType; userId: number; subjectId: number; at?: Date; valueUgx?: number; metadata?: ConversionFact["metadata"] },
): ConversionFact {
  const client: Client = actor.kind === "system" ? { ip: "", userAgent: "", analyticsConsent: false, tabSessionId: null } : actor.client;
  return {
    type: fact.type,
    userId: fact.userId,
    subjectId: fact.subjectId,
    atMs: (fact.at ?? new Date()).getTime(),
    valueUgx: Math.max(0, Math.round(fact.valueUgx ?? 0)),
    metadata: fact.metadata ?? {},
    client,
  };
}

/**
 * The conversion as it goes on the ingest queue (the worker's effects put it there): like a tracking event,
 * without its place, which the ingest consumer looks up from the truncated address when it writes the row.
 */
export function serverConversionEvent(fact: ConversionFact): QueuedEvent {
  const { client, type, subjectId, metadata, atMs } = fact;
  const tab = client.analyticsConsent ? client.tabSessionId : null;
  const userId = client.analyticsConsent ? fact.userId : 0;
  const ip = client.ip;
  const common = visitorEnrichment({ ip, userAgent: client.userAgent, userId }, Date.now());
  const userAgent = client.userAgent;
  return {
    kind: "conversion",
    event_id: factId(type, subjectId, atMs),
    session_id: tab && sessionId.safeParse(tab).success ? tab : serverSessionId(ip, userAgent, atMs),
    platform: client.platform ?? SERVER_PLATFORM,
    conversion_type: type,
    value: fact.valueUgx,
    metadata: JSON.stringify(metadata).slice(0, 2000),
    ...common,
    event_time: new Date(atMs).toISOString(),
  };
}
