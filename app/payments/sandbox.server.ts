/**
 * The sandbox provider (ADR 015): stands in for MTN and Airtel when no credentials are configured. A
 * collection waits, like the prompt on a payer's phone, until a person approves or declines it on
 * /dev/pay/:reference; a disbursement is paid at once. Its state is the provider's, not ours: it lives in
 * Redis (a week), apart from our database, and our operations learn of it only by asking, as they would ask
 * MTN or Airtel.
 */
import type { Redis } from "ioredis";
import type { PaymentProvider, RequestOutcome, TransferRequest, TransferStatus } from "~/payments/provider.server";

const TTL_SECONDS = 7 * 24 * 60 * 60;

export type SandboxTransfer = TransferRequest & { kind: "collection" | "disbursement"; status: "PENDING" | "SUCCESSFUL" | "FAILED" | "WITHDRAWN" };

export class Sandbox {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private key(reference: string) {
    return `${this.prefix}:sandbox:${reference}`;
  }

  async create(kind: SandboxTransfer["kind"], request: TransferRequest, status: SandboxTransfer["status"]): Promise<RequestOutcome> {
    const transfer: SandboxTransfer = { ...request, kind, status };
    // NX: the same reference twice is the same transfer (as MoMo's 409 says), never a second one.
    await this.redis.set(this.key(request.reference), JSON.stringify(transfer), "EX", TTL_SECONDS, "NX");
    return { outcome: "accepted" };
  }

  async get(reference: string): Promise<SandboxTransfer | null> {
    const raw = await this.redis.get(this.key(reference));
    return raw ? (JSON.parse(raw) as SandboxTransfer) : null;
  }

  /** The person holding the phone answers. Only a pending collection can be answered; returns whether it was. */
  async decide(reference: string, decision: "approve" | "decline"): Promise<boolean> {
    const transfer = await this.get(reference);
    if (!transfer || transfer.kind !== "collection" || transfer.status !== "PENDING") return false;
    transfer.status = decision === "approve" ? "SUCCESSFUL" : "FAILED";
    await this.redis.set(this.key(reference), JSON.stringify(transfer), "EX", TTL_SECONDS, "XX");
    return true;
  }

  /** A newer prompt replaced this one: a pending collection is withdrawn (it reads as failed). Returns whether it was. */
  async withdraw(reference: string): Promise<boolean> {
    const transfer = await this.get(reference);
    if (!transfer || transfer.kind !== "collection" || transfer.status !== "PENDING") return false;
    transfer.status = "WITHDRAWN";
    await this.redis.set(this.key(reference), JSON.stringify(transfer), "EX", TTL_SECONDS, "XX");
    return true;
  }

  async status(reference: string, kind: SandboxTransfer["kind"]): Promise<TransferStatus> {
    const transfer = await this.get(reference).catch(() => undefined);
    if (transfer === undefined) return { status: "unknown", reason: "The sandbox could not be reached" };
    if (!transfer || transfer.kind !== kind) return { status: "failed", reason: "Not found at the provider" };
    if (transfer.status === "SUCCESSFUL") return { status: "successful", providerTransactionId: `SBX-${reference.slice(0, 8)}` };
    if (transfer.status === "FAILED") return { status: "failed", reason: "Declined on the phone" };
    if (transfer.status === "WITHDRAWN") return { status: "failed", reason: "Replaced by a newer prompt" };
    return { status: "pending" };
  }
}

export function createSandboxProvider(sandbox: Sandbox): PaymentProvider {
  return {
    name: "sandbox",
    requestPayment: (request) => sandbox.create("collection", request, "PENDING"),
    paymentStatus: (reference) => sandbox.status(reference, "collection"),
    disburse: (request) => sandbox.create("disbursement", request, "SUCCESSFUL"),
    disbursementStatus: (reference) => sandbox.status(reference, "disbursement"),
    cancelPayment: (reference) => sandbox.withdraw(reference),
    callbackReference: (body) => {
      const reference = (body as { reference?: unknown } | null)?.reference;
      return typeof reference === "string" ? reference : null;
    },
  };
}
