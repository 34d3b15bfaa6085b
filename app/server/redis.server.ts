import { Redis, type RedisOptions } from "ioredis";
import { getEnv } from "./env.server";

export function createRedis(url: string, options: RedisOptions = {}): Redis {
  return new Redis(url, { lazyConnect: false, enableAutoPipelining: true, ...options });
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoRedis: Redis | undefined;
}

/** The shared Redis connection of this process (rate limits, socket.io fan-out, queue producers). */
export function getRedis(): Redis {
  // BullMQ requires maxRetriesPerRequest: null on connections it blocks on; producers share this one.
  globalThis.__sokoRedis ??= createRedis(getEnv().REDIS_URL, { maxRetriesPerRequest: null });
  return globalThis.__sokoRedis;
}

export async function closeRedis() {
  const redis = globalThis.__sokoRedis;
  globalThis.__sokoRedis = undefined;
  if (redis) await redis.quit().catch(() => redis.disconnect());
}
