/**
 * What the MTN MoMo and Airtel Money adapter tests share (payments-momo.test.ts, payments-airtel.test.ts): the
 * transfer requests they send, a receiver for the fakes' callbacks, and the check that no secret ends up in
 * a reason (reasons are stored and shown to people).
 */
import { randomUUID } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { expect } from "vitest";
import type { RequestOutcome, TransferRequest } from "~/payments/provider.server";
import type { ReceivedRequest } from "./fake-provider-http";

/** Transfer requests to `msisdn` (a number of the network under test), each under a fresh reference. */
export function transferRequests(msisdn: string) {
  return (overrides: Partial<TransferRequest> = {}): TransferRequest => ({
    reference: randomUUID(),
    amountUgx: 5000,
    msisdn,
    description: "Soko order #1042",
    ...overrides,
  });
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A server on 127.0.0.1 that takes the fakes' callbacks as our callback route would, and keeps their bodies. */
export async function startCallbackReceiver() {
  const received: unknown[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callback`,
    received,
    /** Waits up to two seconds for a callback: the fakes send theirs in the background. */
    async waitForOne() {
      for (let i = 0; i < 100 && received.length === 0; i++) await sleep(20);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** The reasons of the outcomes given to `collect` that were not accepted. */
export function reasonCollector() {
  const reasons: string[] = [];
  return {
    reasons,
    collect(outcome: RequestOutcome) {
      if (outcome.outcome !== "accepted") reasons.push(outcome.reason);
    },
  };
}

/** No reason holds one of `secrets`, nor any credential the adapter sent in an Authorization header. */
export function expectNoSecretIn(reasons: string[], secrets: string[], requests: ReceivedRequest[]) {
  const credentials = requests.map((r) => r.headers.authorization?.replace(/^\w+ /, "")).filter(Boolean) as string[];
  for (const reason of reasons) for (const secret of [...secrets, ...credentials]) expect(reason).not.toContain(secret);
}
