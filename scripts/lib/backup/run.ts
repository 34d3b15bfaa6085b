/**
 * A backup and a restore, step by step (scripts/backup.ts and scripts/restore.ts are their command lines).
 *
 * Backup: the stored files (first pass), Postgres in one exported snapshot, ClickHouse table by table, the files
 * that appeared since the first pass, then the manifest with every part's size and sha256. ADR 058 says why
 * this order gives a consistent backup.
 *
 * Restore: every checksum first (a damaged backup restores nothing), then a refusal if any service already holds
 * data (unless `force`), then Postgres, ClickHouse and the files.
 */
import fs from "node:fs";
import path from "node:path";
import type { ClickHouseOptions } from "~/analytics/clickhouse.server";
import { clickHouseTables, clickHouseVersion, dumpClickHouse, restoreClickHouse } from "./clickhouse";
import type { FileStore } from "./file-store";
import { FILES_PREFIX, copyFiles, restoreFiles, storeIsEmpty } from "./files";
import { BACKUP_FORMAT, MANIFEST_FILE, partOfFile, safeRelative, verifyParts, type Manifest, type Part } from "./manifest";
import { dumpPostgres, postgresRows, postgresTables, restorePostgres } from "./postgres";
import { open, parseLocation, stage } from "./target";

export type Services = { databaseUrl: string; clickhouse: ClickHouseOptions; files: FileStore };

const PG_DUMP = "postgres.dump";

/** `soko-20261207T203105Z`: sorts by time, and safe in a path and an object key. */
export function backupName(at: Date) {
  return `soko-${at
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d+Z$/, "Z")}`;
}

async function appVersion() {
  const pkg = JSON.parse(await fs.promises.readFile(path.join(process.cwd(), "package.json"), "utf8")) as { version?: string };
  return pkg.version ?? "unknown";
}

/** Takes a backup of the services into `to` (a directory or s3://bucket/prefix); returns where it is and its manifest. */
export async function runBackup(services: Services, to: string, { log = (_: string) => {} } = {}): Promise<{ location: string; manifest: Manifest }> {
  const started = new Date();
  const name = backupName(started);
  const staged = await stage(parseLocation(to), name);
  try {
    const root = staged.root;
    const copied = new Set<string>();
    const fileParts: Part[] = await copyFiles(services.files, root, copied);
    log(`files: ${fileParts.length} before the snapshot`);
    const pg = await dumpPostgres(services.databaseUrl, path.join(root, PG_DUMP));
    const pgPart = await partOfFile(root, PG_DUMP);
    log(`postgres: ${Object.keys(pg.rows).length} tables, ${pgPart.bytes} bytes`);
    const ch = await dumpClickHouse(services.clickhouse, root);
    log(`clickhouse: ${ch.tables.length} tables, ${ch.tables.reduce((n, t) => n + t.rows, 0)} rows`);
    const later = await copyFiles(services.files, root, copied);
    fileParts.push(...later);
    log(`files: ${later.length} more after the snapshot`);
    const manifest: Manifest = {
      format: BACKUP_FORMAT,
      name,
      startedAt: started.toISOString(),
      finishedAt: new Date().toISOString(),
      app: { version: await appVersion(), node: process.version },
      postgres: { serverVersion: pg.serverVersion, pgDump: pg.pgDump, database: pg.database, migrations: pg.migrations, dump: PG_DUMP, rows: pg.rows },
      clickhouse: {
        serverVersion: await clickHouseVersion(services.clickhouse),
        database: services.clickhouse.database,
        migrations: { last: ch.lastMigration },
        tables: ch.tables,
      },
      files: { count: fileParts.length, bytes: fileParts.reduce((n, p) => n + p.bytes, 0), prefix: FILES_PREFIX },
      parts: [pgPart, ...ch.parts, ...fileParts],
    };
    await fs.promises.writeFile(path.join(root, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    return { location: await staged.finish(), manifest };
  } catch (error) {
    await staged.abandon();
    throw error;
  }
}

/** A backup whose parts do not match its manifest: nothing was restored. */
export class DamagedBackupError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `the backup is damaged, nothing was restored:\n  ${problems.slice(0, 20).join("\n  ")}${problems.length > 20 ? `\n  … and ${problems.length - 20} more` : ""}`,
    );
  }
}

/** Services that already hold data, and no --force: nothing was restored. */
export class NotEmptyError extends Error {
  constructor(readonly services: string[]) {
    super(`${services.join(", ")} already hold data; nothing was restored (--force replaces it)`);
  }
}

export type RestoreReport = {
  name: string;
  postgres: { tables: number; rows: Record<string, number>; expected: Record<string, number> };
  clickhouse: { tables: number; rows: Record<string, number> };
  files: { count: number; bytes: number };
};

/** What in the target services already holds data. */
async function occupied(services: Services) {
  const found: string[] = [];
  if (((await postgresTables(services.databaseUrl)) ?? 0) > 0) found.push("Postgres");
  if ((await clickHouseTables(services.clickhouse)).length > 0) found.push("ClickHouse");
  if (!(await storeIsEmpty(services.files))) found.push("the file store");
  return found;
}

/** Restores the backup at `from` (a folder or s3://…/name) into the services. */
export async function runRestore(services: Services, from: string, { force = false, log = (_: string) => {} } = {}): Promise<RestoreReport> {
  const { root, manifest, cleanup } = await open(from);
  try {
    const problems = await verifyParts(root, manifest);
    if (problems.length) throw new DamagedBackupError(problems);
    log(`checked ${manifest.parts.length} parts of ${manifest.name}`);
    const busy = await occupied(services);
    if (busy.length && !force) throw new NotEmptyError(busy);

    await restorePostgres(services.databaseUrl, path.join(root, safeRelative(manifest.postgres.dump)), { replace: force });
    const pgRows = await postgresRows(services.databaseUrl);
    log(`postgres: ${Object.keys(pgRows).length} tables`);
    const chRows = await restoreClickHouse(services.clickhouse, root, manifest.clickhouse, { replace: force });
    log(`clickhouse: ${Object.keys(chRows).length} tables`);
    const files = await restoreFiles(services.files, root, manifest.parts);
    log(`files: ${files.count}`);
    return {
      name: manifest.name,
      postgres: { tables: Object.keys(pgRows).length, rows: pgRows, expected: manifest.postgres.rows },
      clickhouse: { tables: manifest.clickhouse.tables.length, rows: chRows },
      files,
    };
  } finally {
    await cleanup();
  }
}
