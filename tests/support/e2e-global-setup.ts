import type { TestProject } from "vitest/node";
import { seedDemoData } from "~/utils/seed.server";
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
  const server = await startTestServer({
    DATABASE_URL: database.url,
    CLICKHOUSE_DATABASE: clickhouseDb,
    QUEUE_PREFIX: `e2e_${process.pid}`,
  });
  project.provide("e2eBaseUrl", server.baseUrl);
  project.provide("e2eAdminUrl", server.adminUrl);
  project.provide("e2eDatabaseUrl", database.url);
  return async () => {
    await server.stop();
    await database.drop();
  };
}
