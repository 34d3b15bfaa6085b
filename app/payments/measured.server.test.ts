import { describe, expect, it } from "vitest";
import { providerCalls } from "~/server/metrics.server";
import { measuredProvider } from "./measured.server";
import type { PaymentProvider } from "./provider.server";

/** A stand-in for a mobile-money API's answers (an outside service), one per call in turn. */
function fakeProvider(): PaymentProvider {
  return {
    name: "airtel",
    requestPayment: async (r) => (r.amountUgx > 100 ? { outcome: "accepted" } : { outcome: "rejected", reason: "too small" }),
    paymentStatus: async (reference) => {
      if (reference === "boom") throw new Error("socket hang up");
      return reference === "late" ? { status: "unknown", reason: "timeout" } : { status: "successful", providerTransactionId: "T1" };
    },
    disburse: async () => ({ outcome: "unknown", reason: "HTTP 502" }),
    disbursementStatus: async () => ({ status: "pending" }),
    callbackReference: () => "ref",
  };
}

const count = async (labels: Record<string, string>) => {
  const metric = await providerCalls.get();
  return metric.values.find((v) => Object.entries(labels).every(([k, value]) => (v.labels as Record<string, unknown>)[k] === value))?.value ?? 0;
};

describe("a measured payment provider", () => {
  it("answers as the provider does, and counts each call by kind, call, provider and outcome", async () => {
    const provider = measuredProvider(fakeProvider());
    const request = { reference: "r", amountUgx: 500, msisdn: "+256700000000", payerMessage: "", payeeNote: "" } as never;
    expect(await provider.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await provider.requestPayment({ ...(request as object), amountUgx: 50 } as never)).toMatchObject({ outcome: "rejected" });
    expect(await provider.paymentStatus("late")).toMatchObject({ status: "unknown" });
    await expect(provider.paymentStatus("boom")).rejects.toThrow("socket hang up");
    expect(await provider.disburse(request)).toMatchObject({ outcome: "unknown" });
    expect(await provider.disbursementStatus("r")).toEqual({ status: "pending" });
    expect(provider.callbackReference({})).toBe("ref");

    expect(await count({ kind: "payment", call: "request", provider: "airtel", outcome: "ok" })).toBe(1);
    expect(await count({ kind: "payment", call: "request", provider: "airtel", outcome: "refused" })).toBe(1);
    expect(await count({ kind: "payment", call: "status", provider: "airtel", outcome: "failed" })).toBe(2);
    expect(await count({ kind: "payout", call: "request", provider: "airtel", outcome: "failed" })).toBe(1);
    expect(await count({ kind: "payout", call: "status", provider: "airtel", outcome: "ok" })).toBe(1);
  });
});
