/**
 * Where the project's own Postgres, Redis and ClickHouse listen when no URLs are configured
 * (the zero-configuration default; see docs/decisions/002-embedded-services.md).
 * Plain data so both scripts/services.ts and env.server.ts read one source.
 */
export const LOCAL_PORTS = {
  postgres: 54329,
  redis: 63799,
  clickhouseHttp: 18123,
  clickhouseTcp: 19009,
} as const;

export const LOCAL_URLS = {
  DATABASE_URL: `postgres://postgres@127.0.0.1:${LOCAL_PORTS.postgres}/soko`,
  REDIS_URL: `redis://127.0.0.1:${LOCAL_PORTS.redis}`,
  CLICKHOUSE_URL: `http://127.0.0.1:${LOCAL_PORTS.clickhouseHttp}`,
} as const;
