/**
 * Logs and metrics of the built web server and worker (ADR 057): one JSON line per request with its route
 * pattern, status, duration, request id and member, and nothing a reader must not see (passwords, tokens,
 * cookies, reset links, phone numbers, query strings); the request id sent back in X-Request-Id and kept on
 * the activity row and the effect the request wrote, and on the worker's log line for carrying out that effect;
 * Prometheus's figures on the metrics port, and no /metrics on the public one.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { getEnv } from "~/server/env.server";
import { startProcess, waitUntil, type Child } from "../../scripts/lib/servers";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { createSession, createUser, DEFAULT_PASSWORD, type TestUser } from "../support/factories";
import { freePort, startTestServer, type TestServer } from "../support/test-server";

type Line = Record<string, unknown>;

let t: TestDatabase;
let server: TestServer;
let metricsPort: number;
let output = "";
let member: TestUser;
const queuePrefix = `logs_metrics_${process.pid}`;

/** Every JSON line the server wrote so far (a line that is not JSON fails the test: the log is JSON only). */
const lines = (): Line[] =>
  output
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Line);
const requestLine = (reqId: string) => lines().find((l) => l.msg === "request" && l.reqId === reqId);

/** A request with the headers we choose (fetch refuses to send Cookie); the answer's status, headers and body. */
function send(
  path: string,
  {
    method = "GET",
    headers = {},
    form,
    admin = false,
  }: { method?: string; headers?: Record<string, string>; form?: Record<string, string>; admin?: boolean } = {},
) {
  const host = `${admin ? "admin." : ""}localhost:${server.port}`;
  const body = form ? Buffer.from(new URLSearchParams(form).toString()) : undefined;
  const all: Record<string, string> = { ...headers };
  if (body) {
    all["Content-Type"] = "application/x-www-form-urlencoded";
    all["Content-Length"] = String(body.length);
    all.Origin = `http://${host}`;
  }
  return new Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }>((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port: server.port, path, method: body ? "POST" : method, headers: { Host: host, ...all } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end(body);
  });
}

beforeAll(async () => {
  t = await createTestDatabase();
  member = await createUser(t.db, { email: "logs.member@example.ug" });
  metricsPort = await freePort();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: queuePrefix, METRICS_PORT: String(metricsPort), DEV_OUTBOX: "1" });
  server.child.stdout?.on("data", (d) => (output += d));
}, 90_000);
afterAll(async () => {
  await server?.stop();
  await t?.drop();
});

describe("a request's log line", () => {
  it("has the method, route pattern, status, duration, request id and member, and the id comes back in X-Request-Id", async () => {
    const session = await createSession(t.db, member.id);
    const res = await send("/dashboard?tab=orders", { headers: { Cookie: `soko_session=${session}`, "X-Request-Id": "dash-0001" } });
    expect(res.status).toBe(200);
    expect(res.headers["x-request-id"]).toBe("dash-0001");
    await expect.poll(() => requestLine("dash-0001"), { timeout: 5_000 }).toBeTruthy();
    const line = requestLine("dash-0001")!;
    expect(line).toMatchObject({ level: "info", method: "GET", route: "routes/dashboard", status: 200, actor: member.id });
    expect(line.ms).toEqual(expect.any(Number));
    // The pattern, never the URL: no query string anywhere in the line.
    expect(JSON.stringify(line)).not.toContain("tab=orders");
  });

  it("makes a new id when the caller's is not a short safe token", async () => {
    const res = await send("/terms", { headers: { "X-Request-Id": "<script>alert(1)</script> and much more" } });
    const id = String(res.headers["x-request-id"]);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    await expect.poll(() => requestLine(id), { timeout: 5_000 }).toMatchObject({ method: "GET", status: 200 });
    expect(output).not.toContain("alert(1)");
  });

  it("never holds a password, a token, a cookie, a reset link, a phone number or a query string", async () => {
    const secrets = {
      password: "Sup3r-secret-passw0rd",
      cookie: "cookie-value-that-must-not-leak",
      queryToken: "query-token-that-must-not-leak",
      phone: "+256772123456",
    };
    // A failed sign-in (its password), with a cookie and a query string, and a phone number in a form.
    await send(`/login?token=${secrets.queryToken}`, {
      headers: { Cookie: `soko_session=${secrets.cookie}`, "X-Request-Id": "login-0001" },
      form: { email: member.email, password: secrets.password, phone: secrets.phone },
    });
    // A reset link mailed (its token is in the outbox, and must be nowhere in the log).
    await send("/forgot-password", { form: { email: member.email }, headers: { "X-Request-Id": "reset-0001" } });
    await expect.poll(() => requestLine("reset-0001"), { timeout: 5_000 }).toBeTruthy();
    const mail = await t.db("outbox").where({ to_address: member.email }).orderBy("id", "desc").first("body");
    const resetToken = /token=([\w-]+)|reset-password\/([\w-]+)/.exec(String(mail?.body ?? ""));
    expect(resetToken, "the reset mail holds a link").toBeTruthy();

    await expect.poll(() => requestLine("login-0001"), { timeout: 5_000 }).toMatchObject({ method: "POST", route: "routes/login" });
    for (const secret of [...Object.values(secrets), resetToken![1] ?? resetToken![2]!, "772123456"]) expect(output).not.toContain(secret);
  });
});

describe("a tracking request", () => {
  it("gets its id and is counted under one route, but has no log line unless it fails on our side", async () => {
    const res = await send("/api/v1/analytics/action", { method: "POST", headers: { "X-Request-Id": "track-0001", "Content-Type": "application/json" } });
    expect(res.status).toBeLessThan(500);
    expect(res.headers["x-request-id"]).toBe("track-0001");
    const metrics = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    expect(metrics).toMatch(
      new RegExp(`soko_http_request_duration_seconds_count\\{method="POST",route="POST /api/v1/analytics/:name",status="${res.status}"\\} 1`),
    );
    expect(requestLine("track-0001")).toBeUndefined();
  });
});

describe("the request id", () => {
  it("is on the activity row and the effect the request wrote, and on the worker's line for carrying out that effect", async () => {
    const res = await send("/register", {
      headers: { "X-Request-Id": "join-0001" },
      form: { name: "Logs Joiner", email: "logs.joiner@example.ug", role: "client", password: DEFAULT_PASSWORD, confirmPassword: DEFAULT_PASSWORD },
    });
    expect(res.status).toBe(302);
    const joined = await t.db("users").where({ email: "logs.joiner@example.ug" }).first("id");
    expect(await t.db("activity").where({ user_id: joined.id, kind: "joined" }).pluck("request_id")).toEqual(["join-0001"]);
    const effect = await t.db("effects").where({ kind: "conversion", request_id: "join-0001" }).first("id");
    expect(effect, "the sign-up's conversion effect carries the request id").toBeTruthy();

    const env = getEnv();
    let worker: Child | undefined;
    try {
      const workerMetricsPort = await freePort();
      worker = await startProcess("worker", {
        DATABASE_URL: t.url,
        REDIS_URL: env.REDIS_URL,
        CLICKHOUSE_URL: env.CLICKHOUSE_URL,
        QUEUE_PREFIX: queuePrefix,
        WORKER_METRICS_PORT: String(workerMetricsPort),
      });
      // Every line about this effect (a first attempt may fail while the worker's Redis connects, and is retried).
      const lines = () =>
        worker!
          .output()
          .split("\n")
          .filter((l) => l.startsWith("{"))
          .map((l) => JSON.parse(l) as Line)
          .filter((l) => l.effect === effect.id);
      await waitUntil(worker, () => lines().some((l) => l.outcome === "ok"), "the effect's log line", 30_000);
      expect(lines().find((l) => l.outcome === "ok")).toMatchObject({ job: "effect:conversion", level: "info", ms: expect.any(Number) });
      for (const line of lines()) expect(line.reqId).toBe("join-0001");

      // The worker's own metrics port counts the run, and shows the gauges it measures.
      const metrics = await (await fetch(`http://127.0.0.1:${workerMetricsPort}/metrics`)).text();
      expect(metrics).toMatch(/soko_job_runs_total\{job="effect:conversion",outcome="ok"\} 1/);
      expect(metrics).toMatch(/soko_queue_depth\{queue="effects"\} \d/);
      expect(metrics).toMatch(/soko_payments_stuck\{kind="payment"\} 0/);
    } finally {
      await worker?.stop();
    }
  }, 60_000);
});

describe("the request id of an admin's request", () => {
  it("is on the audit row its operation wrote", async () => {
    const admin = await createUser(t.db, { email: "logs.admin@example.ug", role: "admin" });
    const session = await createSession(t.db, admin.id);
    const res = await send("/categories", {
      admin: true,
      headers: { Cookie: `soko_session=${session}`, "X-Request-Id": "audit-0001" },
      form: { intent: "add", name: "Logged work" },
    });
    expect(res.status).toBe(303);
    expect(await t.db("admin_audit_log").where({ admin_id: admin.id }).pluck("request_id")).toEqual(["audit-0001"]);
    await expect.poll(() => requestLine("audit-0001"), { timeout: 5_000 }).toMatchObject({ method: "POST", status: 303, actor: admin.id });
  });
});

describe("metrics", () => {
  it("counts the requests on the metrics port, by route pattern and status", async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/soko_http_request_duration_seconds_count\{method="GET",route="routes\/dashboard",status="200"\} [1-9]/);
    expect(text).toMatch(/soko_http_request_duration_seconds_count\{method="POST",route="routes\/register",status="302"\} 1/);
    // Node's own figures: event-loop lag and memory; and the Postgres pool.
    expect(text).toContain("nodejs_eventloop_lag_seconds");
    expect(text).toContain("process_resident_memory_bytes");
    expect(text).toMatch(/soko_db_pool_connections\{state="used"\} \d/);
    // No series named after a URL: no query string, no numeric path.
    expect(text).not.toContain("tab=orders");
  });

  it("are not served on the public port", async () => {
    const res = await send("/metrics");
    expect(res.status).toBe(404);
    expect(res.text).not.toContain("soko_http_request_duration_seconds");
  });
});
