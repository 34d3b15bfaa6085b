/**
 * The MTN MoMo adapter against a local server speaking MoMo's contract (tests/support/fake-momo.ts), over
 * real HTTP: what it sends, and what each of MoMo's answers becomes for the order and payout operations.
 */
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMomoProvider, momoConfigFromEnv, type MomoConfig } from "~/payments/momo.server";
import { parseEnv } from "~/server/env.server";
import { startFakeMomo, type FakeMomo } from "../support/fake-momo";
import { expectNoSecretIn, reasonCollector, sleep, startCallbackReceiver, transferRequests } from "../support/payment-test-setup";

let fake: FakeMomo;
beforeEach(async () => {
  fake = await startFakeMomo();
});
afterEach(async () => {
  await fake.close();
});

const payment = transferRequests("+256772123456");

const provider = (config: Partial<MomoConfig> = {}, timeoutMs = 2000) => createMomoProvider({ ...fake.config, ...config }, { timeoutMs });

describe("MTN MoMo collection", () => {
  it("asks the payer, stays pending, then reports the payment successful with MoMo's transaction id", async () => {
    const momo = provider();
    const request = payment();
    expect(await momo.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await momo.paymentStatus(request.reference)).toEqual({ status: "pending" });

    fake.setOutcome(request.reference, "SUCCESSFUL");
    const status = await momo.paymentStatus(request.reference);
    const financialTransactionId = fake.transfer("collection", request.reference)?.financialTransactionId;
    expect(financialTransactionId).toMatch(/^\d+$/);
    expect(status).toEqual({ status: "successful", providerTransactionId: financialTransactionId });
  });

  it("sends MoMo's headers and body: our reference as X-Reference-Id and externalId, 2567… as the payer, amount as text in UGX", async () => {
    const momo = provider({ callbackUrl: "https://soko.example/api/payments/mtn" });
    const request = payment({ msisdn: "+256781234567", amountUgx: 125000, description: "x".repeat(200) });
    expect(await momo.requestPayment(request)).toEqual({ outcome: "accepted" });

    const [tokenCall, call] = fake.requests;
    expect(tokenCall?.path).toBe("/collection/token/");
    expect(tokenCall?.method).toBe("POST");
    const basic = Buffer.from(`${fake.config.collection.user}:${fake.config.collection.key}`).toString("base64");
    expect(tokenCall?.headers.authorization).toBe(`Basic ${basic}`);
    expect(tokenCall?.headers["ocp-apim-subscription-key"]).toBe(fake.config.collection.subscriptionKey);

    expect(call?.method).toBe("POST");
    expect(call?.path).toBe("/collection/v1_0/requesttopay");
    expect(call?.headers.authorization).toMatch(/^Bearer tok-/);
    expect(call?.headers["x-reference-id"]).toBe(request.reference);
    expect(call?.headers["x-target-environment"]).toBe("mtnuganda");
    expect(call?.headers["ocp-apim-subscription-key"]).toBe(fake.config.collection.subscriptionKey);
    expect(call?.headers["x-callback-url"]).toBe("https://soko.example/api/payments/mtn");
    expect(call?.headers["content-type"]).toBe("application/json");
    expect(call?.body).toEqual({
      amount: "125000",
      currency: "UGX",
      externalId: request.reference,
      payer: { partyIdType: "MSISDN", partyId: "256781234567" },
      payerMessage: "x".repeat(160),
      payeeNote: "x".repeat(160),
    });
  });

  it("sends no X-Callback-Url without one configured, and EUR in MTN's sandbox", async () => {
    await fake.close();
    fake = await startFakeMomo({ targetEnvironment: "sandbox" });
    const momo = provider();
    expect(await momo.requestPayment(payment())).toEqual({ outcome: "accepted" });
    const call = fake.requests.find((r) => r.path === "/collection/v1_0/requesttopay");
    expect(call?.headers["x-target-environment"]).toBe("sandbox");
    expect(call?.headers).not.toHaveProperty("x-callback-url");
    expect(call?.body).toMatchObject({ amount: "5000", currency: "EUR" });
  });

  it("reports a declined payment as failed with the reason in words, whichever shape MoMo gives it", async () => {
    const momo = provider();
    const declined = payment({ msisdn: "+256770000001" });
    const broke = payment({ msisdn: "+256770000002" });
    await momo.requestPayment(declined);
    await momo.requestPayment(broke);

    fake.setOutcome("+256770000001", "FAILED", "APPROVAL_REJECTED");
    fake.setOutcome(broke.reference, "FAILED", { code: "NOT_ENOUGH_FUNDS", message: "Payer has insufficient funds" });
    expect(await momo.paymentStatus(declined.reference)).toEqual({ status: "failed", reason: "The payer declined (APPROVAL_REJECTED)" });
    expect(await momo.paymentStatus(broke.reference)).toEqual({ status: "failed", reason: "Not enough money in the wallet (NOT_ENOUGH_FUNDS)" });
  });

  it("maps MoMo's other statuses: REJECTED, TIMEOUT, EXPIRED are failed; CREATED and ONGOING pending", async () => {
    const momo = provider();
    const cases = [
      ["REJECTED", "failed"],
      ["TIMEOUT", "failed"],
      ["EXPIRED", "failed"],
      ["CREATED", "pending"],
      ["ONGOING", "pending"],
    ] as const;
    for (const [momoStatus, ours] of cases) {
      const request = payment();
      await momo.requestPayment(request);
      fake.setOutcome(request.reference, momoStatus);
      expect((await momo.paymentStatus(request.reference)).status, momoStatus).toBe(ours);
    }
  });

  it("reports a reference MoMo never received as failed: nothing can be taken under it", async () => {
    const status = await provider().paymentStatus(randomUUID());
    expect(status).toEqual({ status: "failed", reason: "Not found at MTN MoMo: the request never arrived" });
  });

  it("takes a repeated reference (409) as accepted: it is our own earlier request, and its status tells", async () => {
    const momo = provider();
    const request = payment();
    expect(await momo.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await momo.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(fake.count("/collection/v1_0/requesttopay")).toBe(2);
    fake.setOutcome(request.reference, "SUCCESSFUL");
    expect(await momo.paymentStatus(request.reference)).toMatchObject({ status: "successful" });
  });

  it("rejects what MoMo refuses (400 for a bad payer, a documented 500 refusal) and what cannot be sent at all", async () => {
    const momo = provider();
    fake.respondNext(400, { code: "PAYER_NOT_FOUND", message: "Payer not found" });
    expect(await momo.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "This number has no MTN Mobile Money wallet (PAYER_NOT_FOUND)" });
    fake.respondNext(500, { code: "NOT_ALLOWED", message: "Authorization failed" });
    expect(await momo.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "MTN MoMo does not allow this for our account (NOT_ALLOWED)" });

    const before = fake.requests.length;
    expect(await momo.requestPayment(payment({ msisdn: "+254712345678" }))).toMatchObject({
      outcome: "rejected",
      reason: expect.stringMatching(/Ugandan mobile number/),
    });
    expect(await momo.requestPayment(payment({ reference: "order-1042" }))).toMatchObject({ outcome: "rejected" });
    expect(await momo.requestPayment(payment({ amountUgx: 12.5 }))).toMatchObject({ outcome: "rejected" });
    expect(fake.requests.length).toBe(before);
  });

  it("calls a 500 unknown (it may have been taken), and a failing status read unknown too", async () => {
    const momo = provider();
    const request = payment();
    fake.respondNext(500, { code: "INTERNAL_PROCESSING_ERROR" }, "requesttopay");
    expect(await momo.requestPayment(request)).toEqual({ outcome: "unknown", reason: "MTN MoMo answered HTTP 500 (INTERNAL_PROCESSING_ERROR)" });
    fake.respondNext(503, "Service Unavailable", "requesttopay");
    expect(await momo.paymentStatus(request.reference)).toEqual({ status: "unknown", reason: "MTN MoMo answered HTTP 503" });
    fake.respondNext(200, "<html>maintenance</html>", "requesttopay");
    expect(await momo.paymentStatus(request.reference)).toMatchObject({ status: "unknown" });
  });

  it("gives up after the timeout with unknown; the request did arrive, so the same reference repeated is accepted and pending", async () => {
    const momo = provider({}, 150);
    const request = payment();
    await momo.paymentStatus(randomUUID()); // fetch the token first: the timeout is the call's own
    fake.holdNext(1000, "requesttopay");
    const started = Date.now();
    expect(await momo.requestPayment(request)).toEqual({ outcome: "unknown", reason: "MTN MoMo did not answer in time" });
    expect(Date.now() - started).toBeLessThan(900);

    fake.holdNext(1000, "requesttopay/");
    expect(await momo.paymentStatus(request.reference)).toEqual({ status: "unknown", reason: "MTN MoMo did not answer in time" });
    expect(await momo.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await momo.paymentStatus(request.reference)).toEqual({ status: "pending" });
  });

  it("reports a closed port as unknown, not as a failure", async () => {
    await fake.close(); // nothing listens on its port any more
    const momo = createMomoProvider(fake.config, { timeoutMs: 500 });
    expect(await momo.paymentStatus(randomUUID())).toEqual({ status: "unknown", reason: "MTN MoMo could not be reached" });
    fake = await startFakeMomo();
  });
});

describe("MTN MoMo tokens", () => {
  it("fetches one token for many calls, concurrent ones included", async () => {
    const momo = provider();
    await Promise.all([momo.requestPayment(payment()), momo.requestPayment(payment()), momo.paymentStatus(randomUUID())]);
    await momo.requestPayment(payment());
    await momo.paymentStatus(randomUUID());
    expect(fake.count("/collection/token/")).toBe(1);
    expect(fake.count("/collection/v1_0/")).toBe(5);
  });

  it("drops a token MoMo refuses (401) and fetches a new one once", async () => {
    const momo = provider();
    await momo.requestPayment(payment());
    fake.expireTokens();
    const request = payment();
    expect(await momo.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(fake.count("/collection/token/")).toBe(2);
    expect(fake.transfer("collection", request.reference)).not.toBeNull();
  });

  it("rejects when MoMo still refuses with a fresh token, without repeating more than once", async () => {
    const momo = provider();
    fake.respondNext(401, { code: "INVALID_CREDENTIALS" }, "requesttopay");
    fake.respondNext(401, { code: "INVALID_CREDENTIALS" }, "requesttopay");
    expect(await momo.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "MTN MoMo refused our credentials (HTTP 401)" });
    expect(fake.count("/collection/v1_0/requesttopay")).toBe(2);
    expect(fake.count("/collection/token/")).toBe(2);
  });

  it("fetches a new token shortly before the old one expires", async () => {
    fake.setTokenLifetime(1);
    const momo = provider();
    await momo.requestPayment(payment());
    await momo.requestPayment(payment());
    expect(fake.count("/collection/token/")).toBe(1);
    await sleep(800); // a 1 s token is renewed a quarter of its life early
    await momo.requestPayment(payment());
    expect(fake.count("/collection/token/")).toBe(2);
    expect(fake.count("/collection/v1_0/requesttopay")).toBe(3); // no call was refused on the way
  });

  it("rejects a request when no token can be had (the request was never sent), and reads status as unknown", async () => {
    const momo = provider();
    fake.respondNext(500, undefined, "/token/");
    expect(await momo.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "MTN MoMo gave no collection token (HTTP 500)" });
    fake.respondNext(500, undefined, "/token/");
    expect(await momo.paymentStatus(randomUUID())).toEqual({ status: "unknown", reason: "MTN MoMo gave no collection token (HTTP 500)" });
    expect(fake.count("/collection/v1_0/")).toBe(0);

    const wrongKey = provider({ collection: { ...fake.config.collection, key: "not-the-key" } });
    expect(await wrongKey.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "MTN MoMo refused our collection API user (HTTP 401)" });
  });

  it("never puts a key, subscription key or token in a reason", async () => {
    const momo = provider({}, 100);
    const { reasons, collect } = reasonCollector();
    await momo.requestPayment(payment());
    fake.respondNext(401, undefined, "requesttopay");
    fake.respondNext(401, undefined, "requesttopay");
    collect(await momo.requestPayment(payment()));
    fake.respondNext(500, { code: "INTERNAL_PROCESSING_ERROR", message: fake.config.collection.key }, "requesttopay");
    collect(await momo.requestPayment(payment()));
    fake.holdNext(500, "requesttopay");
    collect(await momo.requestPayment(payment()));
    collect(await provider({ collection: { ...fake.config.collection, user: "nobody" } }).requestPayment(payment()));
    collect(await provider({ disbursement: null }).disburse(payment()));
    expect(reasons).toHaveLength(5);

    expectNoSecretIn(reasons, [fake.config.collection.key, fake.config.collection.subscriptionKey], fake.requests);
  });
});

describe("MTN MoMo disbursement", () => {
  it("sends a transfer with the Disbursements credentials and its own token, then reads its status", async () => {
    const momo = provider();
    const payout = payment({ msisdn: "+256791112223", amountUgx: 80000, description: "Soko payout" });
    expect(await momo.disburse(payout)).toEqual({ outcome: "accepted" });
    expect(fake.count("/disbursement/token/")).toBe(1);
    expect(fake.count("/collection/")).toBe(0);

    const call = fake.requests.find((r) => r.path === "/disbursement/v1_0/transfer");
    expect(call?.headers["ocp-apim-subscription-key"]).toBe(fake.config.disbursement?.subscriptionKey);
    expect(call?.headers["x-reference-id"]).toBe(payout.reference);
    expect(call?.headers["x-target-environment"]).toBe("mtnuganda");
    expect(call?.body).toEqual({
      amount: "80000",
      currency: "UGX",
      externalId: payout.reference,
      payee: { partyIdType: "MSISDN", partyId: "256791112223" },
      payerMessage: "Soko payout",
      payeeNote: "Soko payout",
    });

    expect(await momo.disbursementStatus(payout.reference)).toEqual({ status: "pending" });
    fake.setOutcome(payout.reference, "SUCCESSFUL");
    expect(await momo.disbursementStatus(payout.reference)).toMatchObject({ status: "successful", providerTransactionId: expect.stringMatching(/^\d+$/) });
    // A collection and a transfer are separate: the payout's reference is unknown to Collections.
    expect(await momo.paymentStatus(payout.reference)).toMatchObject({ status: "failed" });
  });

  it("reports a failed payout with its reason, and rejects payouts when Disbursements is not configured", async () => {
    const momo = provider();
    const payout = payment();
    await momo.disburse(payout);
    fake.setOutcome(payout.reference, "FAILED", { code: "PAYEE_NOT_FOUND", message: "Payee not found" });
    expect(await momo.disbursementStatus(payout.reference)).toEqual({
      status: "failed",
      reason: "This number has no MTN Mobile Money wallet (PAYEE_NOT_FOUND)",
    });

    const collectionOnly = provider({ disbursement: null });
    expect(await collectionOnly.disburse(payment())).toEqual({ outcome: "rejected", reason: "MTN MoMo payouts are not configured" });
    expect(await collectionOnly.disbursementStatus(payout.reference)).toMatchObject({ status: "unknown" });
  });
});

describe("MTN MoMo callbacks", () => {
  it("names our transfer from the body MoMo sends to X-Callback-Url", async () => {
    const receiver = await startCallbackReceiver();
    try {
      const momo = provider({ callbackUrl: receiver.url });
      const request = payment();
      await momo.requestPayment(request);
      fake.setOutcome(request.reference, "SUCCESSFUL");
      await receiver.waitForOne();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]).toMatchObject({ status: "SUCCESSFUL", externalId: request.reference });
      expect(momo.callbackReference(receiver.received[0])).toBe(request.reference);
    } finally {
      await receiver.close();
    }
  });

  it("returns null for junk and for shapes that are not MoMo's", () => {
    const momo = provider();
    const uuid = randomUUID();
    expect(momo.callbackReference({ externalId: uuid.toUpperCase(), status: "SUCCESSFUL" })).toBe(uuid);
    for (const body of [
      null,
      undefined,
      "",
      uuid,
      42,
      [uuid],
      {},
      { externalId: "order-1042" },
      { externalId: 7 },
      { externalId: `${uuid}x` },
      { transaction: { id: uuid } },
      { referenceId: uuid },
    ]) {
      expect(momo.callbackReference(body), JSON.stringify(body)).toBeNull();
    }
  });
});

describe("MTN MoMo configuration", () => {
  it("is null without a base URL or Collections credentials; payouts are off without Disbursements credentials", () => {
    expect(momoConfigFromEnv(parseEnv({}))).toBeNull();
    expect(momoConfigFromEnv(parseEnv({ MTN_MOMO_BASE_URL: fake.url }))).toBeNull();
    const { MTN_MOMO_BASE_URL: _base, ...withoutBase } = fake.env;
    expect(momoConfigFromEnv(parseEnv(withoutBase))).toBeNull();
    expect(momoConfigFromEnv(parseEnv({ ...fake.env, MTN_MOMO_COLLECTION_KEY: "" }))).toBeNull();

    expect(momoConfigFromEnv(parseEnv(fake.env))).toEqual(fake.config);
    const { MTN_MOMO_TARGET_ENVIRONMENT: _env, MTN_MOMO_DISBURSEMENT_KEY: _key, ...collectionOnly } = fake.env;
    expect(momoConfigFromEnv(parseEnv(collectionOnly))).toEqual({ ...fake.config, targetEnvironment: "mtnuganda", disbursement: null });
  });
});
