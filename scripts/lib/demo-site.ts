/**
 * The demo site in databases of a script's own, for the scripts that look at pages (bench:pages, screens):
 * a Postgres and a ClickHouse database of that name with the demo data exactly as `npm start` loads it, the
 * pages worth showing found in it, and the demo members' sessions, signed in through the sign-in page.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import knex, { type Knex } from "knex";
import { LOCAL_URLS } from "~/utils/local-services";
import { root } from "../build";

/** The demo logins (README): every demo member has the same password. */
export const DEMO_LOGINS = {
  client: "client@soko.test",
  freelancer: "freelancer@soko.test",
  admin: "admin@soko.test",
  password: "soko-demo-2026",
} as const;

export function databaseUrl(database: string) {
  const url = new URL(process.env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

export async function withDb<T>(url: string, fn: (db: Knex) => Promise<T>): Promise<T> {
  const db = knex({ client: "pg", connection: url, pool: { min: 0, max: 1 } });
  try {
    return await fn(db);
  } finally {
    await db.destroy();
  }
}

/** The environment of a web server on the demo site `database` (uploads in a new temporary directory). */
export function demoSiteEnv(database: string, prefix: string): Record<string, string> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`a database must have a plain lower-case name, got "${database}"`);
  return {
    DATABASE_URL: databaseUrl(database),
    REDIS_URL: process.env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
    CLICKHOUSE_URL: process.env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
    CLICKHOUSE_DATABASE: database,
    QUEUE_PREFIX: database,
    SEED_DEMO: "0",
    UPLOAD_DIR: fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-uploads-`)),
  };
}

/** Pages of the demo data: the newest gig, the demo client's delivered and in-progress orders, their conversation. */
export type DemoPages = { gigId: string; deliveredOrderId: string; inProgressOrderId: string; conversationId: string };

/** (Re)creates the database `database` with the demo data (scripts/migrate.ts --seed, as `npm start`), and finds its pages. */
export async function prepareDemoSite(env: Record<string, string>, database: string): Promise<DemoPages> {
  await withDb(databaseUrl("postgres"), async (admin) => {
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.raw(`CREATE DATABASE ${database}`);
  });
  // The demo data exactly as `npm start` loads it, through the app's own operations.
  await promisify(execFile)(path.join(root, "node_modules", ".bin", "tsx"), ["scripts/migrate.ts", "--seed"], {
    cwd: root,
    env: { ...process.env, ...env, SEED_DEMO: "1" },
  });
  return findDemoPages(env);
}

/** The demo site's pages (see DemoPages) in a database that has the demo data already. */
export function findDemoPages(env: Record<string, string>): Promise<DemoPages> {
  return withDb(env.DATABASE_URL!, async (db) => {
    const gig = await db("gigs").where({ status: "published" }).orderBy("published_at", "desc").first<{ id: string } | undefined>("id");
    if (!gig) throw new Error("the demo data has no published gig");
    const client = await db("users").where({ email: DEMO_LOGINS.client }).first<{ id: string }>("id");
    const orderIn = (status: string) => db("orders").where({ buyer_id: client.id, status }).orderBy("id").first<{ id: string } | undefined>("id");
    const delivered = await orderIn("delivered");
    const inProgress = await orderIn("in_progress");
    const conversation = await db("conversations").where({ created_by: client.id }).orderBy("id").first<{ id: string } | undefined>("id");
    if (!delivered || !inProgress || !conversation)
      throw new Error("the demo data lacks the demo client's delivered or in-progress order, or their conversation");
    return { gigId: String(gig.id), deliveredOrderId: String(delivered.id), inProgressOrderId: String(inProgress.id), conversationId: String(conversation.id) };
  });
}

/**
 * Signs a demo member in through the sign-in page (a form POST, as a browser without JavaScript sends it) and
 * returns the session's cookies as a Cookie header (`name=value; ...`).
 */
export async function signInCookie(baseUrl: string, email: string, password: string = DEMO_LOGINS.password): Promise<string> {
  const res = await fetch(`${baseUrl}/login`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", origin: baseUrl },
    body: new URLSearchParams({ email, password }).toString(),
  });
  const cookies = res.headers.getSetCookie().map((c) => c.split(";")[0]!);
  if (res.status !== 302 && res.status !== 303) throw new Error(`signing in ${email} at ${baseUrl} answered ${res.status}, not a redirect`);
  if (!cookies.some((c) => /session=./.test(c))) throw new Error(`signing in ${email} at ${baseUrl} set no session cookie`);
  return cookies.join("; ");
}
