/**
 * Restores a backup taken by `npm run backup` into empty services (ADR 058).
 *   npm run restore -- <backup folder | s3://bucket/prefix/name> [--force]
 * Every part's checksum is checked first: a damaged backup restores nothing. Services that already hold data
 * (tables in Postgres or ClickHouse, any stored file) are refused unless --force, which replaces them.
 */
import { parseArgs } from "node:util";
import { clickHouseOptions } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { configuredFileStore } from "./lib/backup/file-store";
import { runRestore } from "./lib/backup/run";

const { values, positionals } = parseArgs({ options: { force: { type: "boolean", default: false } }, allowPositionals: true });
if (positionals.length !== 1) {
  console.error("usage: npm run restore -- <backup folder | s3://bucket/prefix/name> [--force]");
  process.exit(2);
}
const env = getEnv();
const started = Date.now();
try {
  const report = await runRestore({ databaseUrl: env.DATABASE_URL, clickhouse: clickHouseOptions(env), files: configuredFileStore() }, positionals[0]!, {
    force: values.force,
    log: (line) => console.log(`[restore] ${line}`),
  });
  const sum = (r: Record<string, number>) => Object.values(r).reduce((n, v) => n + v, 0);
  const differ = Object.keys(report.postgres.expected).filter((t) => report.postgres.rows[t] !== report.postgres.expected[t]);
  console.log(
    `[restore] ${report.name}: postgres ${sum(report.postgres.rows)} rows in ${report.postgres.tables} tables, ` +
      `clickhouse ${sum(report.clickhouse.rows)} rows in ${report.clickhouse.tables} tables, ` +
      `${report.files.count} files (${report.files.bytes} bytes); ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  if (differ.length) {
    console.error(`[restore] rows differ from the manifest's in: ${differ.join(", ")}`);
    process.exitCode = 1;
  }
} catch (error) {
  console.error(maskUrlCredentials(`[restore] ${(error as Error).message}`));
  process.exitCode = 1;
}
