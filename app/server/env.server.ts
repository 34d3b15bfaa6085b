import net from "node:net";
import { z } from "zod";
import { listedHostname } from "../utils/host-names";
import { LOCAL_URLS } from "../utils/local-services";
import { MAX_PROCESSES, parseProcessCount } from "../utils/process-count";

/** An optional URL; an empty value (`SMTP_URL=` in a compose file or .env) counts as unset. */
const optionalUrl = (schema: z.ZodString = z.string().url()) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

/** An empty value (`S3_BUCKET=` in a compose file) is the same as none. */
const blankIsUnset = <T extends z.ZodTypeAny>(schema: T) => z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema);

/** A flag: "1", "true", "yes" are on; "0", "false", "no" and "" are off; anything else is a mistake. */
const booleanish = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.enum(["1", "0", "true", "false", "yes", "no", "on", "off", ""], { message: "must be 1, 0, true, false, yes or no" }))
  .transform((v) => v === "1" || v === "true" || v === "yes" || v === "on");

/**
 * Express's `trust proxy` setting, read as Express documents it: "true"/"false" are booleans, a whole number
 * is the count of proxy hops to trust, anything else is a comma-separated list of addresses, subnets and the
 * names loopback, linklocal and uniquelocal. (Handed to Express as a string, "1" would be the address 0.0.0.1.)
 */
const trustProxy = z
  .string()
  .transform((v) => v.trim())
  .transform((v, ctx): boolean | number | string[] => {
    const lower = v.toLowerCase();
    if (lower === "true") return true;
    if (lower === "false" || lower === "") return false;
    if (/^\d+$/.test(v)) return Number(v);
    const list = v
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
    const named = new Set(["loopback", "linklocal", "uniquelocal"]);
    for (const item of list) {
      const [address, bits, extra] = item.split("/");
      const okAddress = named.has(item.toLowerCase()) || (address !== undefined && net.isIP(address) !== 0 && extra === undefined);
      const okBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (net.isIPv4(address ?? "") ? 32 : 128));
      if (!okAddress || !okBits) {
        ctx.addIssue({ code: "custom", message: `"${item}" is not true, false, a hop count, an address, a subnet, loopback, linklocal or uniquelocal` });
        return z.NEVER;
      }
    }
    return list;
  });

/**
 * ALLOWED_HOSTS: host names served besides PUBLIC_URL's, its admin host's and the loopback names, separated
 * by commas. Each is a bare name or address (`soko.example`, `192.0.2.10`): a scheme, port, path or wildcard
 * stops the server at start rather than silently never matching.
 */
const hostList = z.string().transform((v, ctx): string[] => {
  const names: string[] = [];
  for (const entry of v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const hostname = listedHostname(entry);
    if (!hostname) {
      ctx.addIssue({
        code: "custom",
        message: `"${entry}" is not a host name: list names or addresses such as soko.example or 192.0.2.10, without scheme, port or path`,
      });
      return z.NEVER;
    }
    names.push(hostname);
  }
  return names;
});

/** A process count (app/utils/process-count.ts): 1 when unset. */
const processCount = (name: string) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      const n = parseProcessCount(v);
      if (n === null) {
        ctx.addIssue({ code: "custom", message: `${name} must be a whole number from 1 to ${MAX_PROCESSES}, or auto` });
        return z.NEVER;
      }
      return n;
    });

/** A metrics port: a number, or 0 / "off" for none (null). */
const metricsPort = z
  .string()
  .transform((v) => v.trim().toLowerCase())
  .pipe(z.union([z.literal("off").transform(() => null), z.coerce.number().int().min(0).max(65535)]))
  .transform((v) => (v === 0 ? null : v));

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    /** The address the web server listens on; `npm start` sets 127.0.0.1 unless told otherwise. Unset: every interface. */
    HOST: z.string().trim().min(1).optional(),
    /** Web processes behind PORT (Node's cluster, ADR 059): a number, or `auto` for one per core. */
    WEB_PROCESSES: processCount("WEB_PROCESSES"),
    /** Worker processes (ADR 059): a number, or `auto` for one per core. */
    WORKER_PROCESSES: processCount("WORKER_PROCESSES"),
    /** Express `trust proxy` (see trustProxy): whose X-Forwarded-For names the client. Unset: nobody's. */
    TRUST_PROXY: trustProxy.default("false"),
    /** Serve production over plain http: no Secure cookies, no HSTS, no upgrade-insecure-requests. */
    ALLOW_HTTP: booleanish.default("0"),
    /** A real mail transport (smtp://user:pass@host:port or smtps://…). Unset: mail stays in the outbox table. */
    SMTP_URL: optionalUrl(
      z
        .string()
        .url()
        .regex(/^smtps?:\/\//, "must start with smtp:// or smtps://"),
    ),
    /** The From address of mail sent through SMTP_URL. */
    MAIL_FROM: z.string().min(3).default("Soko <no-reply@soko.ug>"),
    /** Tracking requests a minute per address (tests and benchmarks raise or lower it). */
    ANALYTICS_RATE_LIMIT: z.coerce.number().int().min(1).default(600),
    /** Catalog pages (/search, /browse) a minute per address (the catalog benchmark lifts it: all its load is one address). */
    CATALOG_RATE_LIMIT: z.coerce.number().int().min(1).default(300),
    /** JSON API calls a minute per token (ADR 041; the API benchmark lifts it). */
    API_TOKEN_RATE_LIMIT: z.coerce.number().int().min(1).default(300),
    /** JSON API calls a minute per address, with or without a token (many phones share a carrier's address). */
    API_ADDRESS_RATE_LIMIT: z.coerce.number().int().min(1).default(1200),
    /**
     * Origins (comma-separated, `https://app.example`) whose pages may call the JSON API from a browser (CORS).
     * Empty: none. The API reads only Bearer tokens, never the cookie, so this is about reading answers, not forgery.
     */
    API_CORS_ORIGINS: z
      .string()
      .default("")
      .transform((v) =>
        v
          .split(",")
          .map((o) => o.trim().replace(/\/+$/, ""))
          .filter(Boolean),
      )
      .pipe(z.array(z.string().url("each origin must be a URL like https://app.example"))),
    DATABASE_URL: optionalUrl(),
    REDIS_URL: optionalUrl(),
    CLICKHOUSE_URL: optionalUrl(),
    CLICKHOUSE_DATABASE: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .default("soko"),
    CLICKHOUSE_USER: z.string().default("default"),
    CLICKHOUSE_PASSWORD: z.string().default(""),
    /** A request whose host name starts with this is served the admin portal. */
    ADMIN_HOST_PREFIX: z.string().min(1).default("admin."),
    /** Where the main site lives: links from the admin host and in mail, and (with its admin host) the names served. */
    PUBLIC_URL: optionalUrl(),
    /** More host names to serve (a second domain, an address others type in); any other Host gets 421. */
    ALLOWED_HOSTS: hostList.default(""),
    SEED_DEMO: booleanish.optional(),
    /** Namespace of our Redis keys (BullMQ queues, rate limits); tests give each server its own. */
    QUEUE_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/)
      .default("soko"),
    /** Show the mail outbox page (/dev/outbox) in production too: demo machines and the test suite. */
    DEV_OUTBOX: booleanish.optional(),
    /** Where uploaded images are kept (outside the web root). */
    UPLOAD_DIR: z.string().min(1).optional(),
    /**
     * Files in an S3-compatible bucket instead of UPLOAD_DIR (ADR 056), when S3_BUCKET is set. S3_ENDPOINT unset
     * means AWS itself; S3_FORCE_PATH_STYLE for MinIO and the like. Keys unset: the SDK's own chain (an AWS role).
     */
    S3_BUCKET: blankIsUnset(z.string().min(3).max(63).optional()),
    S3_ENDPOINT: optionalUrl(),
    S3_REGION: blankIsUnset(z.string().optional()),
    S3_ACCESS_KEY_ID: blankIsUnset(z.string().optional()),
    S3_SECRET_ACCESS_KEY: blankIsUnset(z.string().optional()),
    S3_FORCE_PATH_STYLE: blankIsUnset(booleanish.optional()),
    /** The analytics worker inserts a batch at this many rows or after this many milliseconds, whichever first. */
    INGEST_BATCH_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    INGEST_BATCH_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
    /** The buyer's processing fee: a percentage of the package price, at least a minimum in UGX (ADR 014). */
    BUYER_FEE_PERCENT: z.coerce.number().min(0).max(50).default(5),
    BUYER_FEE_MIN_UGX: z.coerce.number().int().min(0).default(1000),
    /** The platform's share of a package price, kept from the seller at release. */
    SELLER_FEE_PERCENT: z.coerce.number().min(0).max(90).default(20),
    /** How often the worker runs the order timers (payment and payout polls, auto-complete, clearance). */
    ORDER_TIMERS_EVERY_MS: z.coerce.number().int().min(100).max(3_600_000).default(15_000),
    /** The smallest withdrawal a seller may ask for. */
    PAYOUT_MIN_UGX: z.coerce.number().int().min(1).default(5000),
    /** MTN MoMo Open API (ADR 015): base URL, target environment and the API users of Collections and Disbursements. */
    MTN_MOMO_BASE_URL: optionalUrl(),
    MTN_MOMO_TARGET_ENVIRONMENT: z.string().min(1).default("mtnuganda"),
    MTN_MOMO_COLLECTION_USER: z.string().optional(),
    MTN_MOMO_COLLECTION_KEY: z.string().optional(),
    MTN_MOMO_COLLECTION_SUBSCRIPTION_KEY: z.string().optional(),
    MTN_MOMO_DISBURSEMENT_USER: z.string().optional(),
    MTN_MOMO_DISBURSEMENT_KEY: z.string().optional(),
    MTN_MOMO_DISBURSEMENT_SUBSCRIPTION_KEY: z.string().optional(),
    /** Airtel Money Open API: base URL and the OAuth2 client; the disbursement PIN as Airtel issues it, already encrypted. */
    AIRTEL_BASE_URL: optionalUrl(),
    AIRTEL_CLIENT_ID: z.string().optional(),
    AIRTEL_CLIENT_SECRET: z.string().optional(),
    AIRTEL_DISBURSEMENT_PIN: z.string().optional(),
    /**
     * Use the sandbox provider (a local page approves or declines) even in production: demo machines and the
     * test suite. Without it, production with no provider credentials takes no payments at all.
     */
    PAYMENTS_SANDBOX: booleanish.optional(),
    /**
     * Africa's Talking (ADR 050): the API key and account username texts are sent with; unset key: the SMS sandbox
     * (texts stay in the table and show on /dev/outbox). The base URL defaults to the live API, or the gateway's
     * sandbox for the username "sandbox"; the sender id is an approved one (unset: the gateway's default).
     */
    AFRICASTALKING_API_KEY: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().optional()),
    AFRICASTALKING_USERNAME: z.string().trim().min(1).default("sandbox"),
    AFRICASTALKING_BASE_URL: optionalUrl(),
    AFRICASTALKING_SENDER_ID: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), z.string().max(11).optional()),
    /** The micro-cache of anonymous pages (ADR 019): on, or off (benchmarks compare the two; test servers). */
    PAGE_CACHE: z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["on", "off"])).default("on"),
    /** App tokens' lookups held per web process, dropped by Postgres's announcements (ADR 042): on, or off. */
    TOKEN_CACHE: z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["on", "off"])).default("on"),
    /**
     * The web process's patches of Remix, Express and helmet for speed (app/server/speed/, ADR 033): on, or off
     * for the stock behaviour (tests/integration/speed-patches.test.ts compares the two; benchmarks measure them).
     */
    SPEED_PATCHES: z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["on", "off"])).default("on"),
    /** Logs (ADR 057): the least severe level written, and JSON lines or readable ones (`npm run dev` asks for pretty). */
    LOG_LEVEL: z
      .preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]))
      .default("info"),
    LOG_FORMAT: z.preprocess((v) => (typeof v === "string" ? v.trim().toLowerCase() : v), z.enum(["json", "pretty"])).default("json"),
    /** Prometheus metrics (ADR 057) on their own port, never the public one: the web's and the worker's; 0 or off: none. */
    METRICS_PORT: metricsPort.default("9464"),
    WORKER_METRICS_PORT: metricsPort.default("9465"),
    /** Where the metrics ports listen: this machine only unless told otherwise (0.0.0.0 inside a container). */
    METRICS_HOST: z.string().trim().min(1).default("127.0.0.1"),
  })
  .superRefine((env, ctx) => {
    // A half-set S3 configuration stops the start rather than quietly keeping files on the disk.
    const s3Settings = ["S3_ENDPOINT", "S3_REGION", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY", "S3_FORCE_PATH_STYLE"] as const;
    if (!env.S3_BUCKET) {
      for (const key of s3Settings.filter((k) => env[k] !== undefined))
        ctx.addIssue({ code: "custom", path: [key], message: `${key} is set but S3_BUCKET is not: set S3_BUCKET to keep files in S3, or unset ${key}` });
    } else {
      if (!env.S3_REGION)
        ctx.addIssue({ code: "custom", path: ["S3_REGION"], message: "S3_REGION is required with S3_BUCKET (us-east-1 for MinIO, auto for R2)" });
      if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY))
        ctx.addIssue({ code: "custom", path: ["S3_SECRET_ACCESS_KEY"], message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together" });
      if (env.S3_ENDPOINT && !env.S3_ACCESS_KEY_ID)
        ctx.addIssue({ code: "custom", path: ["S3_ACCESS_KEY_ID"], message: "S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY are required with S3_ENDPOINT" });
    }
    if (env.NODE_ENV !== "production") return;
    // Production never falls back to the embedded services: a missing URL is a configuration error.
    for (const key of ["DATABASE_URL", "REDIS_URL", "CLICKHOUSE_URL"] as const) {
      if (!env[key]) ctx.addIssue({ code: "custom", path: [key], message: `${key} is required in production` });
    }
  })
  .transform((env) => ({
    ...env,
    DATABASE_URL: env.DATABASE_URL ?? LOCAL_URLS.DATABASE_URL,
    REDIS_URL: env.REDIS_URL ?? LOCAL_URLS.REDIS_URL,
    CLICKHOUSE_URL: env.CLICKHOUSE_URL ?? LOCAL_URLS.CLICKHOUSE_URL,
    isProduction: env.NODE_ENV === "production",
    /** Production over https: Secure and `__Host-` cookies, HSTS, upgrade-insecure-requests. */
    isHttps: env.NODE_ENV === "production" && !env.ALLOW_HTTP,
  }));

export type Env = z.infer<typeof EnvSchema>;

/** Parses an environment; throws one readable error listing every bad variable. */
export function parseEnv(source: Record<string, string | undefined>): Env {
  const result = EnvSchema.safeParse(source);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".")}: ${i.message}`);
    throw new Error(`Invalid environment:\n${lines.join("\n")}`);
  }
  return result.data;
}

let cached: Env | undefined;
export function getEnv(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
