import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestServer, type TestServer } from "../support/test-server";

describe("/healthz and /readyz when the database is gone (production)", () => {
  let t: TestDatabase;
  let server: TestServer;
  let output = "";

  beforeAll(async () => {
    t = await createTestDatabase();
    server = await startTestServer({ DATABASE_URL: t.url });
    server.child.stdout?.on("data", (d) => (output += d));
    // The database disappears under the running server (WITH FORCE ends its connections).
    await t.drop();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it("/healthz still answers 200: the process is alive, and restarting it would not bring the database back", async () => {
    const res = await fetch(`${server.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });

  it('/readyz answers 503 {ok:false, error:"unavailable"}, naming no database, host or user', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await fetch(`${server.baseUrl}/readyz`);
      expect(res.status).toBe(503);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ ok: false, error: "unavailable" });
      expect(text).not.toContain(t.name);
    }
  });

  it("logs the real error for us, once however often it is asked", async () => {
    // The log is JSON lines (ADR 057): the message is read from them.
    const failures = output
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as { level: string; msg: string })
      .filter((line) => line.msg.startsWith("[web] readiness check failed"));
    expect(failures).toEqual([expect.objectContaining({ level: "error", msg: `[web] readiness check failed: database "${t.name}" does not exist` })]);
  });
});
