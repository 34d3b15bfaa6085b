import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { seedDemoData } from "../../scripts/lib/seed";
import { createTestClickHouseDatabase, createTestDatabase } from "./databases";
import { startTestServer } from "./test-server";

declare module "vitest" {
  export interface ProvidedContext {
    e2eBaseUrl: string;
    e2eAdminUrl: string;
    e2eDatabaseUrl: string;
  }
}

/** One server for all end-to-end files: the built app on the demo data, in its own databases. */
export default async function setup(project: TestProject) {
  const database = await createTestDatabase("soko_e2e");
  await seedDemoData(database.db);
  const clickhouseDb = await createTestClickHouseDatabase("soko_e2e");
  const uploadDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-e2e-uploads-"));
  const server = await startTestServer({
    DATABASE_URL: database.url,
    CLICKHOUSE_DATABASE: clickhouseDb,
    QUEUE_PREFIX: `e2e_${process.pid}`,
    DEV_OUTBOX: "1",
    UPLOAD_DIR: uploadDir,
  });
  project.provide("e2eBaseUrl", server.baseUrl);
  project.provide("e2eAdminUrl", server.adminUrl);
  project.provide("e2eDatabaseUrl", database.url);
  return async () => {
    await server.stop();
    await database.drop();
    fs.rmSync(uploadDir, { recursive: true, force: true });
  };
}
