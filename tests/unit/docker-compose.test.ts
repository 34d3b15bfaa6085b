import dockerignore from "@balena/dockerignore";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import YAML from "yaml";

const root = path.resolve(import.meta.dirname, "../..");
const file = path.join(root, "docker-compose.yml");

type Service = {
  image?: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
};

describe("docker-compose.yml", () => {
  const doc = YAML.parse(fs.readFileSync(file, "utf8"), { merge: true }) as { services: Record<string, Service> };
  const { services } = doc;

  it("has postgres, redis with the append-only file, a current clickhouse, web and worker", () => {
    expect(Object.keys(services)).toEqual(expect.arrayContaining(["postgres", "redis", "clickhouse", "web", "worker"]));
    expect(services.redis?.command).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
    const chVersion = Number(/clickhouse-server:(\d+)/.exec(services.clickhouse?.image ?? "")?.[1]);
    expect(chVersion).toBeGreaterThanOrEqual(23);
  });

  it("gives every long-running service a health check", () => {
    for (const name of ["postgres", "redis", "clickhouse", "web"]) {
      expect(services[name]?.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
  });

  it("wires the service URLs into web and worker", () => {
    for (const name of ["web", "worker"]) {
      const env = services[name]?.environment ?? {};
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\/soko$/);
      expect(env.REDIS_URL).toBe("redis://redis:6379");
      expect(env.CLICKHOUSE_URL).toBe("http://clickhouse:8123");
      expect(env.NODE_ENV).toBe("production");
    }
  });

  it("has the web container listen on every interface (HOST), so its published port reaches it", () => {
    expect(services.web?.environment?.HOST).toBe("0.0.0.0");
    expect(services.web?.ports).toContain("3000:3000");
  });

  it("serves the web container's names (PUBLIC_URL's, ALLOWED_HOSTS) and checks its health at /healthz, which answers any host", () => {
    const env = services.web?.environment ?? {};
    expect(env.PUBLIC_URL).toBe("${PUBLIC_URL:-http://localhost:3000}");
    expect(env.ALLOWED_HOSTS).toBe("${ALLOWED_HOSTS:-}");
    // Any other path at 127.0.0.1 is answered too (a loopback name); a balancer asking by address must use /healthz.
    expect(services.web?.healthcheck?.test.join(" ")).toContain("http://127.0.0.1:3000/healthz");
  });

  const compose = spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status === 0;
  it.runIf(compose)("passes `docker-compose config`", () => {
    const out = execFileSync("docker-compose", ["-f", file, "config", "-q"], {
      env: { ...process.env, POSTGRES_PASSWORD: "p", CLICKHOUSE_PASSWORD: "c" },
      encoding: "utf8",
    });
    expect(out).toBe("");
  });
});

describe(".dockerignore (what `COPY . .` may put into the image)", () => {
  // Docker's own matching rules (a pattern is anchored at the context's root unless it starts with **/).
  const ignored = dockerignore().add(fs.readFileSync(path.join(root, ".dockerignore"), "utf8"));

  it("keeps secrets and local state out of the image", () => {
    for (const file of [
      ".env",
      ".env.local",
      ".env.production",
      "app/.env",
      ".data/postgres/PG_VERSION",
      ".data/uploads/a.webp",
      "node_modules/react/index.js",
      "build/server/index.js",
      ".git/HEAD",
      "npm-debug.log",
      "test-results/trace.zip",
    ]) {
      expect(ignored.ignores(file), file).toBe(true);
    }
  });

  it("sends what the image builds from", () => {
    for (const file of [
      "package.json",
      "package-lock.json",
      "server.ts",
      "app/root.tsx",
      "worker/index.ts",
      "migrations/20261122000001_users_and_sessions.ts",
      "scripts/migrate.ts",
      "public/favicon.svg",
      "vite.config.ts",
      "tsconfig.json",
    ]) {
      expect(ignored.ignores(file), file).toBe(false);
    }
  });
});
