/**
 * Conversions that are business facts — a signup, a gig published, an order placed, paid or completed —
 * recorded by the server from the action that made them, after its database commit (ADR 007,
 * "Conversions"). A browser can no longer send them: the endpoint refuses these types, so nobody can post
 * an order of any value into the revenue report.
 *
 * They go through the same ingest queue as the tracking endpoints, so the worker writes them like any
 * event, with platform "server" (SERVER_PLATFORM), which is what the reports count. Recording never
 * breaks the action: if Redis is away the fact is logged as not recorded and the action goes on.
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
import { getIngest, logThrottled, serverSessionId, visitorEnrichment } from "~/analytics/ingest.server";
import type { Actor, Client } from "~/operations/core.server";
import { clientOf } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";

/** A conversion told by a request (the routes that record one after their own commit). */
function factOfRequest(conversion: ServerConversion): ConversionFact {
  const { request, ip = "" } = conversion;
  const client = clientOf({ cookie: request.headers.get("Cookie"), ip, userAgent: request.headers.get("User-Agent") });
  return conversionFact({ kind: "anonymous", client }, conversion);
}

export type ServerConversion = {
  /** The action's request: its User-Agent, and the visitor's analytics choice. */
  request: Request;
  /** The client's address (the load context's `clientIp`), when the caller has it. */
  ip?: string;
  type: BusinessConversionType;
  /** The member whose action it was. */
  userId: number;
  /** What the fact is about: the new member, the gig, the order. */
  subjectId: number;
  /** When it happened (a gig's first publication, an order's transition); now by default. */
  at?: Date;
  /** Whole UGX: the order's amount; 0 for a signup or a gig. */
  valueUgx?: number;
  metadata?: Record<string, string | number | boolean>;
};

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

/** The conversion as the worker takes it from the queue. */
export async function serverConversionEvent(conversion: ServerConversion | ConversionFact): Promise<QueuedEvent> {
  const fact = "client" in conversion ? conversion : factOfRequest(conversion);
  const { client, type, subjectId, metadata, atMs } = fact;
  const tab = client.analyticsConsent ? client.tabSessionId : null;
  const userId = client.analyticsConsent ? fact.userId : 0;
  const ip = client.ip;
  const common = await visitorEnrichment({ ip, userAgent: client.userAgent, userId }, Date.now());
  const userAgent = client.userAgent;
  return {
    kind: "conversion",
    event_id: factId(type, subjectId, atMs),
    session_id: tab && sessionId.safeParse(tab).success ? tab : serverSessionId(ip, userAgent, atMs),
    platform: SERVER_PLATFORM,
    conversion_type: type,
    value: fact.valueUgx,
    metadata: JSON.stringify(metadata).slice(0, 2000),
    ...common,
    event_time: new Date(atMs).toISOString(),
  };
}

/**
 * Records a business fact once its action has committed. Never throws: a fact that cannot be queued
 * (Redis down, the server shutting down) is logged, and the action answers as it would have.
 */
export async function recordServerConversion(conversion: ServerConversion): Promise<void> {
  try {
    await getIngest().enqueue([await serverConversionEvent(conversion)]);
  } catch (error) {
    logThrottled("conversion", `${conversion.type} of ${conversion.subjectId} not recorded: ${(error as Error).message}`);
  }
}

/**
 * Records that a seller's gig is published: once per gig, at its first publication (`published_at`, which
 * later saves and a pause and resume keep), however often it is saved as published.
 */
export async function recordGigPublished({ request, ip, userId, gigId }: { request: Request; ip?: string; userId: number; gigId: number }) {
  let gig: { status: string; published_at: Date | null } | undefined;
  try {
    gig = await getDb()("gigs").where({ id: gigId, seller_id: userId }).first("status", "published_at");
  } catch (error) {
    logThrottled("conversion", `gig_published of ${gigId} not recorded: ${(error as Error).message}`);
    return;
  }
  if (gig?.status !== "published" || !gig.published_at) return;
  await recordServerConversion({ request, ip, type: "gig_published", userId, subjectId: gigId, at: gig.published_at, metadata: { gig: gigId } });
}
