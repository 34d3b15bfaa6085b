import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import type { TestProject } from "vitest/node";
import { createTestClickHouseDatabase, createTestDatabase } from "./databases";
import { startTestServer } from "./test-server";

declare module "vitest" {
  export interface ProvidedContext {
    e2eBaseUrl: string;
    e2eAdminUrl: string;
    e2eDatabaseUrl: string;
    /** The e2e server's ClickHouse database, to arrange analytics events the admin screens read. */
    e2eClickHouseDatabase: string;
    /** The e2e server's QUEUE_PREFIX, under which its payments sandbox keeps the transfers it is asked about. */
    e2eQueuePrefix: string;
  }
}

/** One server for all end-to-end files: the built app on the demo data, in its own databases. */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase("soko_e2e");
  const clickhouseDb = await createTestClickHouseDatabase("soko_e2e");
  const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-e2e-uploads-"));
  const env = {
    DATABASE_URL: database.url,
    CLICKHOUSE_DATABASE: clickhouseDb,
    QUEUE_PREFIX: `e2e_${process.pid}`,
    DEV_OUTBOX: "1",
    PAYMENTS_SANDBOX: "1",
    UPLOAD_DIR: uploadDir,
  };
  // The demo data as `npm start` loads it (scripts/migrate.ts --seed), into this server's own databases and
  // upload directory, where the gigs' cover images must be.
  await promisify(execFile)(path.resolve("node_modules/.bin/tsx"), ["scripts/migrate.ts", "--seed"], {
    env: { ...process.env, ...env, SEED_DEMO: "1" },
  });
  const server = await startTestServer(env);
  project.provide("e2eBaseUrl", server.baseUrl);
  project.provide("e2eAdminUrl", server.adminUrl);
  project.provide("e2eDatabaseUrl", database.url);
  project.provide("e2eClickHouseDatabase", clickhouseDb);
  project.provide("e2eQueuePrefix", env.QUEUE_PREFIX);
  return async () => {
    await server.stop();
    await database.drop();
    fs.rmSync(uploadDir, { recursive: true, force: true });
  };
}
