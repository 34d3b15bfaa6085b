/**
 * The Airtel Money adapter against a local server speaking Airtel's contract (tests/support/fake-airtel.ts),
 * over real HTTP: what it sends, and what each of Airtel's answers becomes for the order and payout operations.
 */
import { randomUUID } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { airtelConfigFromEnv, createAirtelProvider, type AirtelConfig } from "~/payments/airtel.server";
import { parseEnv } from "~/server/env.server";
import { startFakeAirtel, type FakeAirtel } from "../support/fake-airtel";
import { expectNoSecretIn, reasonCollector, sleep, startCallbackReceiver, transferRequests } from "../support/payment-test-setup";

let fake: FakeAirtel;
beforeEach(async () => {
  fake = await startFakeAirtel();
});
afterEach(async () => {
  await fake.close();
});

const payment = transferRequests("+256752123456");

const provider = (config: Partial<AirtelConfig> = {}, timeoutMs = 2000) => createAirtelProvider({ ...fake.config, ...config }, { timeoutMs });
const failure = (resultCode: string, message = "error") => ({ status: { code: "400", message, result_code: resultCode, success: false } });

describe("Airtel Money collection", () => {
  it("pushes the prompt, stays pending, then reports the payment successful with Airtel's money id", async () => {
    const airtel = provider();
    const request = payment();
    expect(await airtel.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await airtel.paymentStatus(request.reference)).toEqual({ status: "pending" });

    fake.setOutcome(request.reference, "TS");
    const status = await airtel.paymentStatus(request.reference);
    expect(status).toMatchObject({ status: "successful", providerTransactionId: expect.stringMatching(/^MP\d+/) });
  });

  it("sends Airtel's headers and body: X-Country UG, X-Currency UGX, the number without 256, our reference as the id", async () => {
    const airtel = provider();
    const request = payment({ msisdn: "+256701234567", amountUgx: 125000, description: `Soko order ${"x".repeat(100)}` });
    expect(await airtel.requestPayment(request)).toEqual({ outcome: "accepted" });

    const [tokenCall, call] = fake.requests;
    expect(tokenCall?.path).toBe("/auth/oauth2/token");
    expect(tokenCall?.headers["content-type"]).toBe("application/json");
    expect(tokenCall?.body).toEqual({ client_id: fake.config.clientId, client_secret: fake.config.clientSecret, grant_type: "client_credentials" });

    expect(call?.method).toBe("POST");
    expect(call?.path).toBe("/merchant/v2/payments/");
    expect(call?.headers.authorization).toMatch(/^Bearer tok-/);
    expect(call?.headers["x-country"]).toBe("UG");
    expect(call?.headers["x-currency"]).toBe("UGX");
    expect(call?.headers["content-type"]).toBe("application/json");
    expect(call?.body).toEqual({
      reference: `Soko order ${"x".repeat(100)}`.slice(0, 64),
      subscriber: { country: "UG", currency: "UGX", msisdn: "701234567" },
      transaction: { amount: 125000, country: "UG", currency: "UGX", id: request.reference },
    });

    await airtel.paymentStatus(request.reference);
    const statusCall = fake.requests.at(-1);
    expect(statusCall?.method).toBe("GET");
    expect(statusCall?.path).toBe(`/standard/v1/payments/${request.reference}`);
    expect(statusCall?.headers["x-country"]).toBe("UG");
    expect(statusCall?.headers["x-currency"]).toBe("UGX");
  });

  it("reports a declined or expired payment as failed with Airtel's words", async () => {
    const airtel = provider();
    const declined = payment({ msisdn: "+256750000001" });
    const expired = payment();
    await airtel.requestPayment(declined);
    await airtel.requestPayment(expired);

    fake.setOutcome("+256750000001", "TF", "Transaction failed due to insufficient funds");
    fake.setOutcome(expired.reference, "TE");
    expect(await airtel.paymentStatus(declined.reference)).toEqual({ status: "failed", reason: "Airtel Money: Transaction failed due to insufficient funds" });
    expect(await airtel.paymentStatus(expired.reference)).toEqual({ status: "failed", reason: "Airtel Money: not approved in time" });
  });

  it("keeps an ambiguous transaction (TA) pending", async () => {
    const airtel = provider();
    const request = payment();
    await airtel.requestPayment(request);
    fake.setOutcome(request.reference, "TA");
    expect(await airtel.paymentStatus(request.reference)).toEqual({ status: "pending" });
  });

  it("reports a reference Airtel never received as failed (ESB000045 or a 404): nothing can be taken under it", async () => {
    const airtel = provider();
    const notFound = { status: "failed", reason: "Not found at Airtel Money: the request never arrived" };
    expect(await airtel.paymentStatus(randomUUID())).toEqual(notFound);
    fake.respondNext(404, { message: "Not Found" }, "/standard/v1/payments/");
    expect(await airtel.paymentStatus(randomUUID())).toEqual(notFound);
  });

  it("takes a repeated transaction id (ESB000041) as accepted: it is our own earlier request, and its status tells", async () => {
    const airtel = provider();
    const request = payment();
    expect(await airtel.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await airtel.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(fake.count("/merchant/v2/payments/")).toBe(2);
    fake.setOutcome(request.reference, "SUCCESSFUL");
    expect(await airtel.paymentStatus(request.reference)).toMatchObject({ status: "successful" });
  });

  it("rejects what Airtel documents as final refusals, in HTTP 200 or 400 envelopes, and what cannot be sent at all", async () => {
    const airtel = provider();
    fake.respondNext(400, failure("ESB000033", "Invalid MSISDN Length"));
    expect(await airtel.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "Not a valid Airtel Money number (ESB000033)" });
    fake.respondNext(200, failure("ESB000039"));
    expect(await airtel.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "Airtel Money has not enabled this for our account (ESB000039)" });

    const before = fake.requests.length;
    expect(await airtel.requestPayment(payment({ msisdn: "0752123456" }))).toMatchObject({
      outcome: "rejected",
      reason: expect.stringMatching(/Ugandan mobile number/),
    });
    expect(await airtel.requestPayment(payment({ reference: "order-1042" }))).toMatchObject({ outcome: "rejected" });
    expect(await airtel.requestPayment(payment({ amountUgx: 0 }))).toMatchObject({ outcome: "rejected" });
    expect(fake.requests.length).toBe(before);
  });

  it("calls ambiguous failures unknown, not rejected: ESB000001 'something went wrong' may still have run", async () => {
    const airtel = provider();
    fake.respondNext(200, failure("ESB000001", "Something went wrong"));
    expect(await airtel.requestPayment(payment())).toEqual({ outcome: "unknown", reason: "Airtel Money could not say whether it was taken (ESB000001)" });
    fake.respondNext(400, failure("ROUTER117", "Request Timeout"));
    expect(await airtel.requestPayment(payment())).toMatchObject({ outcome: "unknown" });
    fake.respondNext(200, failure("ESB000014"), "/standard/v1/payments/");
    expect(await airtel.paymentStatus(randomUUID())).toEqual({ status: "unknown", reason: "Airtel Money could not tell the status (ESB000014)" });
  });

  it("calls a 5xx or an unreadable answer unknown", async () => {
    const airtel = provider();
    fake.respondNext(502, "Bad Gateway");
    expect(await airtel.requestPayment(payment())).toEqual({ outcome: "unknown", reason: "Airtel Money answered HTTP 502" });
    fake.respondNext(200, "<html>maintenance</html>");
    expect(await airtel.requestPayment(payment())).toMatchObject({ outcome: "unknown" });
    fake.respondNext(500, undefined, "/standard/v1/payments/");
    expect(await airtel.paymentStatus(randomUUID())).toEqual({ status: "unknown", reason: "Airtel Money answered HTTP 500" });
    fake.respondNext(200, { data: { transaction: { status: "TS" } } }, "/standard/v1/payments/");
    expect(await airtel.paymentStatus(randomUUID())).toMatchObject({ status: "unknown" });
  });

  it("gives up after the timeout with unknown; the request did arrive, so the same id repeated is accepted and pending", async () => {
    const airtel = provider({}, 150);
    const request = payment();
    await airtel.paymentStatus(randomUUID()); // fetch the token first: the timeout is the call's own
    fake.holdNext(1000, "/merchant/v2/payments/");
    const started = Date.now();
    expect(await airtel.requestPayment(request)).toEqual({ outcome: "unknown", reason: "Airtel Money did not answer in time" });
    expect(Date.now() - started).toBeLessThan(900);

    fake.holdNext(1000, "/standard/v1/payments/");
    expect(await airtel.paymentStatus(request.reference)).toEqual({ status: "unknown", reason: "Airtel Money did not answer in time" });
    expect(await airtel.requestPayment(request)).toEqual({ outcome: "accepted" });
    expect(await airtel.paymentStatus(request.reference)).toEqual({ status: "pending" });
  });
});

describe("Airtel Money tokens", () => {
  it("fetches one token for many calls, concurrent ones included", async () => {
    const airtel = provider();
    await Promise.all([airtel.requestPayment(payment()), airtel.requestPayment(payment()), airtel.paymentStatus(randomUUID())]);
    await airtel.disburse(payment());
    await airtel.disbursementStatus(randomUUID());
    expect(fake.count("/auth/oauth2/token")).toBe(1);
    expect(fake.requests.length).toBe(6);
  });

  it("drops a token Airtel refuses (401) and fetches a new one once", async () => {
    const airtel = provider();
    await airtel.requestPayment(payment());
    fake.expireTokens();
    expect(await airtel.requestPayment(payment())).toEqual({ outcome: "accepted" });
    expect(fake.count("/auth/oauth2/token")).toBe(2);

    fake.respondNext(401, { error: "invalid_token" });
    fake.respondNext(401, { error: "invalid_token" });
    expect(await airtel.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "Airtel Money refused our credentials (HTTP 401)" });
    expect(fake.count("/auth/oauth2/token")).toBe(3);
  });

  it("reads expires_in as Airtel sends it (a string) and renews the token before it runs out", async () => {
    fake.setTokenLifetime(1);
    const airtel = provider();
    await airtel.requestPayment(payment());
    await airtel.requestPayment(payment());
    expect(fake.count("/auth/oauth2/token")).toBe(1);
    await sleep(800); // a 1 s token is renewed a quarter of its life early
    await airtel.requestPayment(payment());
    expect(fake.count("/auth/oauth2/token")).toBe(2);
    expect(fake.count("/merchant/v2/payments/")).toBe(3); // no call was refused on the way
  });

  it("rejects a request when no token can be had (it was never sent), and reads status as unknown", async () => {
    fake.respondNext(503, undefined, "/auth/");
    expect(await provider().requestPayment(payment())).toEqual({ outcome: "rejected", reason: "Airtel Money gave no token (HTTP 503)" });
    const wrongSecret = provider({ clientSecret: "not-the-secret" });
    expect(await wrongSecret.requestPayment(payment())).toEqual({ outcome: "rejected", reason: "Airtel Money refused our client credentials (HTTP 401)" });
    expect(await wrongSecret.paymentStatus(randomUUID())).toEqual({ status: "unknown", reason: "Airtel Money refused our client credentials (HTTP 401)" });
    expect(fake.count("/merchant/")).toBe(0);
    expect(fake.count("/standard/")).toBe(0);
  });

  it("never puts the client secret, the PIN or a token in a reason", async () => {
    const airtel = provider({}, 100);
    const { reasons, collect } = reasonCollector();
    await airtel.requestPayment(payment());
    fake.respondNext(200, failure("ROUTER115", `Incorrect Pin ${fake.config.disbursementPin}`));
    collect(await airtel.disburse(payment()));
    fake.respondNext(200, failure("ESB000001", fake.config.clientSecret));
    collect(await airtel.requestPayment(payment()));
    fake.holdNext(500);
    collect(await airtel.requestPayment(payment()));
    collect(await provider({ clientSecret: "wrong" }).requestPayment(payment()));
    collect(await provider({ disbursementPin: null }).disburse(payment()));
    expect(reasons).toHaveLength(5);

    expectNoSecretIn(reasons, [fake.config.clientSecret, fake.config.disbursementPin!], fake.requests);
  });
});

describe("Airtel Money disbursement", () => {
  it("sends a disbursement with the PIN, then reads its status", async () => {
    const airtel = provider();
    const payout = payment({ msisdn: "+256741112223", amountUgx: 80000, description: "Soko payout" });
    expect(await airtel.disburse(payout)).toEqual({ outcome: "accepted" });

    const call = fake.requests.find((r) => r.path === "/standard/v1/disbursements/");
    expect(call?.method).toBe("POST");
    expect(call?.headers["x-country"]).toBe("UG");
    expect(call?.headers["x-currency"]).toBe("UGX");
    expect(call?.body).toEqual({
      payee: { msisdn: "741112223" },
      reference: "Soko payout",
      pin: fake.config.disbursementPin,
      transaction: { amount: 80000, id: payout.reference },
    });

    expect(await airtel.disbursementStatus(payout.reference)).toEqual({ status: "pending" });
    expect(fake.requests.at(-1)?.path).toBe(`/standard/v1/disbursements/${payout.reference}`);
    fake.setOutcome(payout.reference, "TS");
    expect(await airtel.disbursementStatus(payout.reference)).toMatchObject({ status: "successful", providerTransactionId: expect.stringMatching(/^CI\d+/) });
    // A payment and a disbursement are separate: the payout's id is unknown to payments.
    expect(await airtel.paymentStatus(payout.reference)).toMatchObject({ status: "failed" });
  });

  it("rejects a wrong PIN, a failed payout is failed, and payouts without a PIN are rejected unsent", async () => {
    const wrongPin = provider({ disbursementPin: "0000" });
    expect(await wrongPin.disburse(payment())).toEqual({ outcome: "rejected", reason: "Airtel Money refused our disbursement PIN (ROUTER115)" });

    const airtel = provider();
    const payout = payment();
    await airtel.disburse(payout);
    fake.setOutcome(payout.reference, "FAILED", "Payee wallet is barred");
    expect(await airtel.disbursementStatus(payout.reference)).toEqual({ status: "failed", reason: "Airtel Money: Payee wallet is barred" });

    const before = fake.requests.length;
    expect(await provider({ disbursementPin: null }).disburse(payment())).toEqual({ outcome: "rejected", reason: "Airtel Money payouts are not configured" });
    expect(fake.requests.length).toBe(before);
  });
});

describe("Airtel Money callbacks", () => {
  it("names our transaction from the body Airtel posts to the callback URL", async () => {
    const receiver = await startCallbackReceiver();
    try {
      fake.setCallbackUrl(receiver.url);
      const airtel = provider();
      const request = payment();
      await airtel.requestPayment(request);
      fake.setOutcome(request.reference, "TF");
      await receiver.waitForOne();
      expect(receiver.received).toHaveLength(1);
      expect(receiver.received[0]).toMatchObject({ transaction: { id: request.reference, status_code: "TF" } });
      expect(airtel.callbackReference(receiver.received[0])).toBe(request.reference);
    } finally {
      await receiver.close();
    }
  });

  it("returns null for junk and for shapes that are not Airtel's", () => {
    const airtel = provider();
    const uuid = randomUUID();
    expect(airtel.callbackReference({ transaction: { id: uuid.toUpperCase(), status_code: "TS", airtel_money_id: "MP1" } })).toBe(uuid);
    for (const body of [
      null,
      undefined,
      "",
      uuid,
      [uuid],
      {},
      { transaction: null },
      { transaction: [uuid] },
      { transaction: { id: "order-1042" } },
      { transaction: { id: 7 } },
      { externalId: uuid },
      { id: uuid },
    ]) {
      expect(airtel.callbackReference(body), JSON.stringify(body)).toBeNull();
    }
  });
});

describe("Airtel Money configuration", () => {
  it("is null without a base URL or the OAuth2 client; payouts are off without a PIN", () => {
    expect(airtelConfigFromEnv(parseEnv({}))).toBeNull();
    expect(airtelConfigFromEnv(parseEnv({ AIRTEL_BASE_URL: fake.url }))).toBeNull();
    expect(airtelConfigFromEnv(parseEnv({ ...fake.env, AIRTEL_CLIENT_SECRET: " " }))).toBeNull();
    const { AIRTEL_BASE_URL: _base, ...withoutBase } = fake.env;
    expect(airtelConfigFromEnv(parseEnv(withoutBase))).toBeNull();

    expect(airtelConfigFromEnv(parseEnv(fake.env))).toEqual(fake.config);
    const { AIRTEL_DISBURSEMENT_PIN: _pin, ...withoutPin } = fake.env;
    expect(airtelConfigFromEnv(parseEnv(withoutPin))).toEqual({ ...fake.config, disbursementPin: null });
  });
});
