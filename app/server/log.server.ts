/**
 * The one logger of the web process and the worker (ADR 057): pino, one JSON object a line on stdout, or
 * readable lines with LOG_FORMAT=pretty (`npm run dev`). Every line written while a request or an effect is
 * handled carries its request id (`reqId`). Errors go under `err` with their stack; URL passwords in them are
 * masked. Paths that could hold a secret or personal data are redacted whatever a caller passes.
 */
import { createRequire } from "node:module";
import pino, { type DestinationStream, type Logger } from "pino";
import { maskUrlCredentials } from "~/utils/mask-url";

export type { Logger };

const LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;

/** Keys never written as they are, at the top of a line or one level down (`{ user: { phone } }`). */
const SECRET_KEYS = ["password", "token", "cookie", "authorization", "body", "phone", "text", "resetUrl", "secret"];
export const REDACTED_PATHS = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((key) => `*.${key}`),
  'headers["cookie"]',
  'headers["authorization"]',
  'req.headers["cookie"]',
  'req.headers["authorization"]',
];

/** An error with its stack, its message and stack masked of URL passwords. */
function errorSerializer(error: unknown) {
  const serialized = pino.stdSerializers.err(error as Error) as unknown as Record<string, unknown>;
  if (typeof serialized?.message === "string") serialized.message = maskUrlCredentials(serialized.message);
  if (typeof serialized?.stack === "string") serialized.stack = maskUrlCredentials(serialized.stack);
  return serialized;
}

export function createLogger({
  level = "info",
  format = "json",
  destination,
}: { level?: string; format?: string; destination?: DestinationStream } = {}): Logger {
  const options: pino.LoggerOptions = {
    level: (LEVELS as readonly string[]).includes(level) ? level : "info",
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    messageKey: "msg",
    redact: { paths: REDACTED_PATHS, censor: "[redacted]" },
    serializers: { err: errorSerializer, error: errorSerializer },
  };
  if (destination) return pino(options, destination);
  if (format === "pretty") {
    // Only under `npm run dev`: loaded on demand, written on this thread (no transport worker).
    const pretty = createRequire(import.meta.url)("pino-pretty") as (o: Record<string, unknown>) => DestinationStream;
    return pino(options, pretty({ colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", sync: true }));
  }
  return pino(options);
}

declare global {
  // One logger per process, shared by server.ts's bundle and Remix's server build (each holds this module).
  // eslint-disable-next-line no-var
  var __sokoLog: Logger | undefined;
}

/** The process's logger; LOG_LEVEL and LOG_FORMAT are read from the environment (app/server/env.server.ts checks them). */
export const log: Logger = (globalThis.__sokoLog ??= createLogger({
  level: process.env.LOG_LEVEL?.trim().toLowerCase(),
  format: process.env.LOG_FORMAT?.trim().toLowerCase(),
}));
