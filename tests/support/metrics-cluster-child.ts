/**
 * A cluster child for app/server/metrics.server.test.ts: counts one job run and one request of its own, then
 * tells the primary it has. It serves nothing itself: prom-client answers the primary's AggregatorRegistry.
 */
import { httpRequestDuration, jobRuns } from "~/server/metrics.server";

jobRuns.inc({ job: "test-job", outcome: "ok" });
httpRequestDuration.observe({ method: "GET", route: "routes/test", status: "200" }, 0.01);
process.send?.("counted");
