/**
 * Prometheus metrics (ADR 057): one registry per process (prom-client's global one), the figures an operator
 * watches, and the server that shows them at /metrics on a port of its own, never the public one. Labels come
 * from fixed sets (route patterns, provider names, outcomes), so no visitor's input can grow a series.
 */
import cluster from "node:cluster";
import http from "node:http";
import type { AddressInfo } from "node:net";
import client from "prom-client";
import { log } from "./log.server";

const register = client.register;
// Event-loop lag, memory, heap, GC and file descriptors (prom-client's own set), once per process.
if (!register.getSingleMetric("process_cpu_seconds_total")) client.collectDefaultMetrics({ register });
// A cluster's child answers its primary's requests for its figures (prom-client listens for them once an
// AggregatorRegistry exists in the process); the primary sums them (startMetricsServer with `cluster`).
if (cluster.isWorker) new client.AggregatorRegistry();

// The gauges every worker measures alike (from the database and Redis) are the max across a cluster's children,
// not their sum (aggregator "max"); counters, histograms and the socket and pool gauges are summed.

/** A metric made once per process even if this module is loaded twice (Vite's dev server reloads modules). */
function once<T extends client.Metric>(name: string, make: () => T): T {
  return (register.getSingleMetric(name) as T | undefined) ?? make();
}

export const httpRequestDuration = once(
  "soko_http_request_duration_seconds",
  () =>
    new client.Histogram({
      name: "soko_http_request_duration_seconds",
      help: "Time to answer an HTTP request, by method, route pattern and status",
      labelNames: ["method", "route", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    }),
);

export const pageCacheLookups = once(
  "soko_page_cache_lookups_total",
  () =>
    new client.Counter({
      name: "soko_page_cache_lookups_total",
      help: "Anonymous page cache lookups, by result (hit or miss)",
      labelNames: ["result"] as const,
    }),
);

export const rateLimitRefusals = once(
  "soko_rate_limit_refusals_total",
  () => new client.Counter({ name: "soko_rate_limit_refusals_total", help: "Requests refused by a rate limit, by limit", labelNames: ["limit"] as const }),
);

export const socketConnections = once(
  "soko_socket_connections",
  () => new client.Gauge({ name: "soko_socket_connections", help: "socket.io connections open in this process" }),
);

export const chatMessages = once(
  "soko_chat_messages_total",
  () => new client.Counter({ name: "soko_chat_messages_total", help: "Chat messages sent, by outcome (sent or refused)", labelNames: ["outcome"] as const }),
);

export const ingestEvents = once(
  "soko_ingest_events_total",
  () =>
    new client.Counter({
      name: "soko_ingest_events_total",
      help: "Analytics events: accepted by the web, stored in ClickHouse or failed (dead-lettered) by the worker",
      labelNames: ["stage"] as const,
    }),
);

export const ingestLag = once(
  "soko_ingest_lag_seconds",
  () =>
    new client.Gauge({
      aggregator: "max",
      name: "soko_ingest_lag_seconds",
      help: "Age of the oldest analytics event not yet stored (0 when the stream is drained)",
    }),
);

export const ingestPending = once(
  "soko_ingest_pending_entries",
  () =>
    new client.Gauge({
      aggregator: "max",
      name: "soko_ingest_pending_entries",
      help: "Entries (a request's events each) in the analytics stream not yet stored",
    }),
);

export const jobRuns = once(
  "soko_job_runs_total",
  () =>
    new client.Counter({ name: "soko_job_runs_total", help: "Worker job runs, by job and outcome (ok or failed)", labelNames: ["job", "outcome"] as const }),
);

export const jobDuration = once(
  "soko_job_duration_seconds",
  () =>
    new client.Histogram({
      name: "soko_job_duration_seconds",
      help: "Time a worker job run took, by job",
      labelNames: ["job"] as const,
      buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
    }),
);

export const providerCalls = once(
  "soko_provider_calls_total",
  () =>
    new client.Counter({
      name: "soko_provider_calls_total",
      help: "Calls to payment providers, by kind (payment, payout), call (request, status), provider and outcome (ok, refused, failed)",
      labelNames: ["kind", "call", "provider", "outcome"] as const,
    }),
);

export const messagesSent = once(
  "soko_messages_sent_total",
  () =>
    new client.Counter({
      name: "soko_messages_sent_total",
      help: "SMS and mail handed to their gateway, by channel (sms, mail) and outcome (sent or failed)",
      labelNames: ["channel", "outcome"] as const,
    }),
);

export const dbPool = once(
  "soko_db_pool_connections",
  () =>
    new client.Gauge({ name: "soko_db_pool_connections", help: "Postgres pool connections, by state (used, free, pending)", labelNames: ["state"] as const }),
);

export const paymentsStuck = once(
  "soko_payments_stuck",
  () =>
    new client.Gauge({
      aggregator: "max",
      name: "soko_payments_stuck",
      help: "Payments and payouts pending for longer than 15 minutes, by kind (measured by the worker each minute)",
      labelNames: ["kind"] as const,
    }),
);

export const queueDepth = once(
  "soko_queue_depth",
  () =>
    new client.Gauge({
      aggregator: "max",
      name: "soko_queue_depth",
      help: "Work waiting, by queue (effects, mail_outbox, bullmq) (measured by the worker each minute)",
      labelNames: ["queue"] as const,
    }),
);

type Pool = { numUsed(): number; numFree(): number; numPendingAcquires(): number };
/** The knex instances whose pools are summed; one that has been destroyed (its pool gone) is forgotten. */
const watchedDbs = new Set<{ client: { pool?: Pool } }>();

/** Adds a knex instance's pool (tarn) to the pool figures, read when Prometheus asks. */
export function watchDbPool(db: unknown): void {
  watchedDbs.add(db as { client: { pool?: Pool } });
  (dbPool as { collect?: () => void }).collect ??= () => {
    const sum = { used: 0, free: 0, pending: 0 };
    for (const watched of watchedDbs) {
      const pool = watched.client.pool;
      if (!pool) {
        watchedDbs.delete(watched);
        continue;
      }
      sum.used += pool.numUsed();
      sum.free += pool.numFree();
      sum.pending += pool.numPendingAcquires();
    }
    for (const [state, n] of Object.entries(sum)) dbPool.set({ state }, n);
  };
}

export type MetricsServer = { port: number; close: () => Promise<void> };

/**
 * Serves GET /metrics on `host:port` (anything else: 404). With `cluster`, called in the cluster's primary: the
 * figures of every child, summed by prom-client's AggregatorRegistry (children need do nothing: prom-client
 * answers the primary's request over IPC). Without, this process's own. Null when `port` is null (turned off).
 */
export async function startMetricsServer({
  port,
  host = "127.0.0.1",
  cluster = false,
}: {
  port: number | null;
  host?: string;
  cluster?: boolean;
}): Promise<MetricsServer | null> {
  if (port === null) return null;
  const aggregator = cluster ? new client.AggregatorRegistry() : null;
  const server = http.createServer((req, res) => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== "/metrics") {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
      return;
    }
    const text = aggregator ? aggregator.clusterMetrics() : register.metrics();
    text.then(
      (body) => res.writeHead(200, { "content-type": register.contentType }).end(body),
      (error: Error) => res.writeHead(500, { "content-type": "text/plain" }).end(`metrics unavailable: ${error.message}\n`),
    );
  });
  // A port already taken costs the metrics, not the service: said in the log, and the process carries on.
  const listening = await new Promise<boolean>((resolve) => {
    server.once("error", (error) => {
      log.error({ err: error }, `[metrics] cannot listen on ${host}:${port}: no metrics from this process`);
      resolve(false);
    });
    server.listen(port, host, () => resolve(true));
  });
  if (!listening) return null;
  server.unref();
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
