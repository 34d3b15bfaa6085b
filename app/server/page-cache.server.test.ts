import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { FRESH_MS, STALE_MS, getPageCache } from "./page-cache.server";

const cache = getPageCache();

/** Builds and stores a page of `bytes` bytes under `key`, as a miss of the marketplace's handler would. */
async function storePage(key: string, bytes: number) {
  const built = await cache.build(key, async () => new Response("x".repeat(bytes), { headers: { "content-type": "text/html; charset=utf-8" } }));
  expect(built.storable).toBe(true);
}

describe("the page cache's memory", () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-11-26T12:00:00Z"));
    cache.listening = true;
    cache.dropAll();
  });
  afterEach(() => {
    cache.dropAll();
    cache.listening = false;
    vi.useRealTimers();
  });

  it("holds at most 16 MB of pages, the oldest going first", async () => {
    for (let i = 0; i < 20; i++) await storePage(`page-${i}`, 1_000_000);
    expect(cache.size).toBe(16);
    for (let i = 0; i < 4; i++) expect(cache.lookup(`page-${i}`).state).toBe("miss");
    for (let i = 4; i < 20; i++) expect(cache.lookup(`page-${i}`).state).toBe("fresh");
  });

  it("lets go of pages past their stale time as soon as another is stored, keeping those still served", async () => {
    await storePage("old", 20_000);
    vi.setSystemTime(Date.now() + 20_000);
    await storePage("stale", 20_000);
    vi.setSystemTime(Date.now() + FRESH_MS + STALE_MS - 20_000 + 1);
    expect(cache.size).toBe(2);
    await storePage("new", 20_000);
    expect(cache.size).toBe(2);
    expect(cache.lookup("stale").state).toBe("stale");
    expect(cache.lookup("new").state).toBe("fresh");
    expect(cache.lookup("old").state).toBe("miss");
  });
});
