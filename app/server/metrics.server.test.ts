import cluster from "node:cluster";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { jobRuns, startMetricsServer } from "./metrics.server";

const get = async (port: number, pathname: string) => {
  const res = await fetch(`http://127.0.0.1:${port}${pathname}`);
  return { status: res.status, text: await res.text(), type: res.headers.get("content-type") };
};

describe("the metrics server", () => {
  it("serves this process's registry at /metrics, and nothing else", async () => {
    jobRuns.inc({ job: "single", outcome: "ok" });
    const server = (await startMetricsServer({ port: 0, host: "127.0.0.1" }))!;
    try {
      const metrics = await get(server.port, "/metrics");
      expect(metrics.status).toBe(200);
      expect(metrics.type).toContain("text/plain");
      expect(metrics.text).toMatch(/soko_job_runs_total\{job="single",outcome="ok"\} 1/);
      expect(metrics.text).toContain("nodejs_eventloop_lag_seconds");
      expect((await get(server.port, "/")).status).toBe(404);
      expect((await get(server.port, "/metrics/../secrets")).status).toBe(404);
    } finally {
      await server.close();
    }
  });

  it("is not started when turned off", async () => {
    expect(await startMetricsServer({ port: null })).toBeNull();
  });

  describe("in a cluster's primary", () => {
    const children: ReturnType<typeof cluster.fork>[] = [];
    afterAll(() => {
      for (const child of children) child.kill();
    });

    it("sums its children's figures", async () => {
      cluster.setupPrimary({
        exec: path.resolve(import.meta.dirname, "../../tests/support/metrics-cluster-child.ts"),
        execArgv: ["--import", "tsx"],
        silent: true,
      });
      await Promise.all(
        [1, 2].map(
          () =>
            new Promise<void>((resolve, reject) => {
              const child = cluster.fork();
              children.push(child);
              child.once("message", (m) => (m === "counted" ? resolve() : reject(new Error(String(m)))));
              child.once("exit", (code) => reject(new Error(`child exited ${code}`)));
            }),
        ),
      );
      const server = (await startMetricsServer({ port: 0, host: "127.0.0.1", cluster: true }))!;
      try {
        const metrics = await get(server.port, "/metrics");
        expect(metrics.status, metrics.text).toBe(200);
        expect(metrics.text).toMatch(/soko_job_runs_total\{job="test-job",outcome="ok"\} 2/);
        expect(metrics.text).toMatch(/soko_http_request_duration_seconds_count\{method="GET",route="routes\/test",status="200"\} 2/);
      } finally {
        await server.close();
      }
    }, 30_000);
  });
});
