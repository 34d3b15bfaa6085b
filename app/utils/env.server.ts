import { z } from "zod";
import { LOCAL_URLS } from "./local-services";

const booleanish = z
  .enum(["1", "0", "true", "false", "yes", "no", ""])
  .transform((v) => v === "1" || v === "true" || v === "yes");

const EnvSchema = z
  .object({
    NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    DATABASE_URL: z.string().url().optional(),
    REDIS_URL: z.string().url().optional(),
    CLICKHOUSE_URL: z.string().url().optional(),
    CLICKHOUSE_DATABASE: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).default("soko"),
    CLICKHOUSE_USER: z.string().default("default"),
    CLICKHOUSE_PASSWORD: z.string().default(""),
    /** A request whose host name starts with this is served the admin portal. */
    ADMIN_HOST_PREFIX: z.string().min(1).default("admin."),
    /** Where the main site lives, for links from the admin host ("back to the main site"). */
    PUBLIC_URL: z.string().url().optional(),
    SEED_DEMO: booleanish.optional(),
    /** Namespace of our Redis keys (BullMQ queues, rate limits); tests give each server its own. */
    QUEUE_PREFIX: z.string().regex(/^[A-Za-z0-9_-]+$/).default("soko"),
    /** Show the mail outbox page (/dev/outbox) in production too: demo machines and the test suite. */
    DEV_OUTBOX: booleanish.optional(),
    /** Where uploaded images are kept (outside the web root). */
    UPLOAD_DIR: z.string().min(1).optional(),
    /** The analytics worker inserts a batch at this many rows or after this many milliseconds, whichever first. */
    INGEST_BATCH_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
    INGEST_BATCH_MS: z.coerce.number().int().min(1).max(60_000).default(1000),
  })
  .superRefine((env, ctx) => {
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
