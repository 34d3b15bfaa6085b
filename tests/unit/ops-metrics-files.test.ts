/**
 * The operator's files (ops/, ADR 057) agree with the code: Prometheus scrapes the ports the processes listen on,
 * Grafana's provisioning finds the dashboard, and every metric the dashboard asks for is one the processes make.
 */
import fs from "node:fs";
import path from "node:path";
import client from "prom-client";
import { describe, expect, it } from "vitest";
import YAML from "yaml";
import { parseEnv } from "~/server/env.server";
import "~/server/metrics.server";

const ops = path.resolve(import.meta.dirname, "../../ops");
const read = (file: string) => fs.readFileSync(path.join(ops, file), "utf8");

describe("ops/ for Prometheus and Grafana", () => {
  it("scrapes the two web replicas and the two workers on the metrics ports the processes default to", () => {
    const config = YAML.parse(read("prometheus.yml"));
    const targets = Object.fromEntries(
      config.scrape_configs.map((job: { job_name: string; static_configs: { targets: string[] }[] }) => [
        job.job_name,
        job.static_configs.flatMap((s) => s.targets),
      ]),
    );
    const env = parseEnv({});
    expect(targets).toEqual({
      "soko-web": [`web1:${env.METRICS_PORT}`, `web2:${env.METRICS_PORT}`],
      "soko-worker": [`worker1:${env.WORKER_METRICS_PORT}`, `worker2:${env.WORKER_METRICS_PORT}`],
    });
  });

  it("provisions the Prometheus data source the dashboard names, and the folder its file is in", () => {
    const datasource = YAML.parse(read("grafana/provisioning/datasources/prometheus.yml")).datasources[0];
    const dashboards = YAML.parse(read("grafana/provisioning/dashboards/soko.yml")).providers[0];
    const dashboard = JSON.parse(read("grafana/dashboards/soko.json"));
    expect(datasource).toMatchObject({ type: "prometheus", url: "http://prometheus:9090" });
    expect(dashboards.options.path).toBe("/var/lib/grafana/dashboards");
    for (const panel of dashboard.panels.filter((p: { type: string }) => p.type !== "row")) expect(panel.datasource.uid, panel.title).toBe(datasource.uid);
  });

  it("asks only for metrics the processes make", async () => {
    const made = new Set<string>();
    for (const metric of await client.register.getMetricsAsJSON()) {
      made.add(metric.name);
      if (metric.type === ("histogram" as never)) for (const suffix of ["_bucket", "_count", "_sum"]) made.add(`${metric.name}${suffix}`);
    }
    const dashboard = JSON.parse(read("grafana/dashboards/soko.json"));
    const asked = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) =>
      (p.targets ?? []).flatMap((t) => t.expr.match(/\b(?:soko|nodejs|process)_[a-z0-9_]+/g) ?? []),
    );
    expect(asked.length).toBeGreaterThan(10);
    for (const name of asked) expect(made, name).toContain(name);
  });
});
