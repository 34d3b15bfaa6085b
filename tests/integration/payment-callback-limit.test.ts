/**
 * Provider callbacks are counted per address: a flood of forged callbacks, each of which could make us ask a
 * provider again, is cut off at 120 a minute with 429 and Retry-After, while another address still gets through.
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("callback_limit");
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, PAYMENTS_SANDBOX: "1", TRUST_PROXY: "loopback" });
});
afterAll(async () => {
  await server?.stop();
});

const callback = (from: string) =>
  fetch(`${server.baseUrl}/payments/callback/mtn`, {
    method: "PUT",
    headers: { "Content-Type": "application/json", "X-Forwarded-For": from },
    body: JSON.stringify({ externalId: "not-one-of-ours" }),
  });

it("answers 429 with Retry-After after 120 callbacks a minute from one address, and still answers another", async () => {
  const statuses: number[] = [];
  for (let i = 0; i < 120; i++) statuses.push((await callback("203.0.113.50")).status);
  expect(new Set(statuses)).toEqual(new Set([400]));
  const refused = await callback("203.0.113.50");
  expect(refused.status).toBe(429);
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  expect((await callback("203.0.113.51")).status).toBe(400);
});
