/**
 * Takes a backup of Postgres, ClickHouse and the stored files (ADR 058).
 *   npm run backup [-- --to <dir> | --to s3://bucket/prefix]
 * Without --to, into BACKUP_DIR (default .data/backups). Each backup is a folder of its own, named by its time,
 * with manifest.json listing every part's size and sha256. Reads DATABASE_URL, CLICKHOUSE_* and the file store
 * (UPLOAD_DIR or S3_BUCKET, ADR 056) as the app does; a backups bucket is reached through BACKUP_S3_* (falling
 * back to S3_*; scripts/lib/backup/target.ts).
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { clickHouseOptions } from "~/analytics/clickhouse.server";
import { getEnv } from "~/server/env.server";
import { maskUrlCredentials } from "~/utils/mask-url";
import { configuredFileStore } from "./lib/backup/file-store";
import { runBackup } from "./lib/backup/run";

const { values } = parseArgs({ options: { to: { type: "string" } } });
const to = values.to ?? process.env.BACKUP_DIR ?? path.join(process.cwd(), ".data", "backups");
const env = getEnv();
const started = Date.now();
try {
  const { location, manifest } = await runBackup({ databaseUrl: env.DATABASE_URL, clickhouse: clickHouseOptions(env), files: configuredFileStore() }, to, {
    log: (line) => console.log(`[backup] ${line}`),
  });
  const rows = Object.values(manifest.postgres.rows).reduce((n, r) => n + r, 0);
  const events = manifest.clickhouse.tables.reduce((n, t) => n + t.rows, 0);
  console.log(
    `[backup] ${location}: postgres ${rows} rows in ${Object.keys(manifest.postgres.rows).length} tables (migration ${manifest.postgres.migrations.last}), ` +
      `clickhouse ${events} rows in ${manifest.clickhouse.tables.length} tables, ${manifest.files.count} files; ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
} catch (error) {
  console.error(maskUrlCredentials(`[backup] failed: ${(error as Error).message}`));
  process.exitCode = 1;
}
