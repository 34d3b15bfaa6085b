/**
 * `npm run admin:create` (scripts/admin-create.ts): the one way to make an administrator outside demo data.
 * It is run here as a person would run it, against a test database, and the account it stores must sign
 * in on the admin host; bad input is refused with a non-zero exit and nothing stored.
 */
import { spawn } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase, type TestDatabase } from "../support/databases";
import { startTestServer, type TestServer } from "../support/test-server";

const root = path.resolve(import.meta.dirname, "../..");
let t: TestDatabase;
let server: TestServer;

beforeAll(async () => {
  t = await createTestDatabase();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: `admincreate_${process.pid}_${Date.now()}` });
});
afterAll(async () => {
  await server?.stop();
  await t?.drop();
});

/** Runs the command with its arguments and ADMIN_PASSWORD (so it asks nothing on the terminal). */
function adminCreate(args: string[], password: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(path.join(root, "node_modules", ".bin", "tsx"), ["scripts/admin-create.ts", ...args], {
      cwd: root,
      env: { ...process.env, DATABASE_URL: t.url, ADMIN_PASSWORD: password },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    child.on("error", reject);
    child.on("exit", (code) => resolve({ code, output }));
  });
}

/** A form POST to the admin host (reached with a Host header: Node's resolver does not know *.localhost). */
function postToAdminHost(pathname: string, form: Record<string, string>): Promise<{ status: number; location?: string; cookie?: string }> {
  const host = new URL(server.adminUrl).host;
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: "127.0.0.1",
        port: server.port,
        path: pathname,
        method: "POST",
        headers: { Host: host, Origin: server.adminUrl, "Content-Type": "application/x-www-form-urlencoded" },
      },
      (res) => {
        res.resume();
        res.on("end", () => resolve({ status: res.statusCode!, location: res.headers.location, cookie: res.headers["set-cookie"]?.[0]?.split(";")[0] }));
      },
    );
    req.on("error", reject);
    req.end(new URLSearchParams(form).toString());
  });
}

function getFromAdminHost(pathname: string, cookie: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port: server.port, path: pathname, headers: { Host: new URL(server.adminUrl).host, Cookie: cookie } },
      (res) => {
        let body = "";
        res.on("data", (d) => (body += d));
        res.on("end", () => resolve({ status: res.statusCode!, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

const countUsers = async () => Number((await t.db("users").count<{ c: string }[]>({ c: "*" }).first())?.c);

describe("npm run admin:create", () => {
  it("stores an administrator who can then sign in on the admin host", async () => {
    const { code, output } = await adminCreate(["--name", "Grace Admin", "--email", "grace@example.ug"], "grace-admin-pass-1");
    expect(output).toContain("administrator grace@example.ug (@grace_admin) created");
    expect(code).toBe(0);
    const stored = await t.db("users").where({ email: "grace@example.ug" }).first();
    expect(stored).toMatchObject({ name: "Grace Admin", username: "grace_admin", role: "admin", status: "active" });
    expect(stored.password_hash).toMatch(/^scrypt\$/);

    const wrong = await postToAdminHost("/login", { email: "grace@example.ug", password: "not-her-password" });
    expect(wrong.status).toBe(400);
    const signedIn = await postToAdminHost("/login", { email: "grace@example.ug", password: "grace-admin-pass-1" });
    expect(signedIn).toMatchObject({ status: 302, location: "/" });
    const portal = await getFromAdminHost("/users", signedIn.cookie!);
    expect(portal.status).toBe(200);
    expect(portal.body).toContain("User management");
  });

  it.each([
    ["a malformed email", ["--name", "Bad Email", "--email", "bad-email.example.ug"], "long-enough-pass", "email: a valid email address"],
    ["a short password", ["--name", "Short Password", "--email", "short@example.ug"], "short", "password: Use at least 8 characters"],
    ["a one-letter name", ["--name", "X", "--email", "x@example.ug"], "long-enough-pass", "name: a name of at least 2 characters"],
  ])("refuses %s with exit code 2 and stores nothing", async (_title, args, password, message) => {
    const before = await countUsers();
    const { code, output } = await adminCreate(args, password);
    expect(code).toBe(2);
    expect(output).toContain(`[admin:create] ${message}`);
    expect(await countUsers()).toBe(before);
  });

  it("refuses an email that already has an account (any letter case), with a non-zero exit", async () => {
    const before = await countUsers();
    const { code, output } = await adminCreate(["--name", "Grace Again", "--email", "GRACE@example.ug"], "another-pass-123");
    expect(code).toBe(1);
    expect(output).toContain("An account with this email already exists");
    expect(await countUsers()).toBe(before);
    expect(await t.db("users").where({ email: "grace@example.ug" }).first("name")).toEqual({ name: "Grace Admin" });
  });
});
