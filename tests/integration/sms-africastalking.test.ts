/**
 * The Africa's Talking adapter's contract (ADR 050), over HTTP against a local contract server
 * (tests/support/fake-africastalking.ts): what it sends (the apiKey header, the form), how it reads each answer
 * (accepted, refused for good, retried), and the delivery reports posted back to /sms/delivery, which update
 * only the delivery state of a text we sent.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ok, systemActor, transact } from "~/operations/core.server";
import { deliverSms, queueSms } from "~/operations/sms.server";
import { createAfricasTalkingProvider } from "~/sms/africastalking.server";
import { startFakeAfricasTalking, type FakeAfricasTalking } from "../support/fake-africastalking";
import { createUser } from "../support/factories";
import { orderTestContext } from "../support/orders";
import { startTestServer, type TestServer } from "../support/test-server";

const t = orderTestContext("sms_contract");
const actor = systemActor("test");
let fake: FakeAfricasTalking;
let server: TestServer;

beforeAll(async () => {
  fake = await startFakeAfricasTalking();
  server = await startTestServer({ DATABASE_URL: t.url, QUEUE_PREFIX: t.queuePrefix, ...fake.env });
});
afterAll(async () => {
  await server?.stop();
  await fake?.close();
});

const provider = (overrides: { apiKey?: string; timeoutMs?: number } = {}) =>
  createAfricasTalkingProvider({ apiKey: fake.apiKey, username: fake.username, baseUrl: fake.url, senderId: "SOKO", ...overrides });

describe("sending", () => {
  it("posts the form with the apiKey header and reads an accepted text's id and cost", async () => {
    const answer = await provider().send({ to: "+256772123456", message: "Soko: your code is 123456." });
    expect(answer).toMatchObject({ outcome: "accepted", statusCode: 101, cost: { currency: "UGX", amount: "35.0000" } });
    const request = fake.requests.at(-1)!;
    expect(request).toMatchObject({ method: "POST", path: "/version1/messaging" });
    expect(request.headers).toMatchObject({ apikey: fake.apiKey, accept: "application/json", "content-type": "application/x-www-form-urlencoded" });
    expect(Object.fromEntries(new URLSearchParams(request.body as string))).toEqual({
      username: "soko",
      to: "+256772123456",
      message: "Soko: your code is 123456.",
      from: "SOKO",
    });
    expect(fake.sent.at(-1)).toMatchObject({ to: "+256772123456", messageId: (answer as { messageId: string }).messageId });
  });

  it("takes an invalid number (403) and an empty balance (405) as refused for good", async () => {
    fake.setRecipientStatus("+256700000403", 403);
    fake.setRecipientStatus("+256700000405", 405);
    expect(await provider().send({ to: "+256700000403", message: "x" })).toEqual({ outcome: "refused", statusCode: 403, reason: "403 InvalidPhoneNumber" });
    expect(await provider().send({ to: "+256700000405", message: "x" })).toEqual({ outcome: "refused", statusCode: 405, reason: "405 InsufficientBalance" });
  });

  it("retries a gateway error (500, 501), an HTTP 5xx, a wrong key (HTTP 401, the key never in the reason) and a timeout", async () => {
    fake.setRecipientStatus("+256700000500", 500);
    fake.setRecipientStatus("+256700000501", 501);
    expect(await provider().send({ to: "+256700000500", message: "x" })).toMatchObject({ outcome: "retry", statusCode: 500 });
    expect(await provider().send({ to: "+256700000501", message: "x" })).toMatchObject({ outcome: "retry", statusCode: 501 });
    fake.respondNext(503, { error: "busy" });
    expect(await provider().send({ to: "+256772123456", message: "x" })).toMatchObject({ outcome: "retry", reason: "Africa's Talking answered HTTP 503" });
    const badKey = await provider({ apiKey: "atsk_wrong_key_1234" }).send({ to: "+256772123456", message: "x" });
    expect(badKey).toMatchObject({ outcome: "retry", statusCode: null });
    expect((badKey as { reason: string }).reason).toMatch(/HTTP 401/);
    expect((badKey as { reason: string }).reason).not.toContain("atsk_wrong_key_1234");
    fake.holdNext(1_000);
    expect(await provider({ timeoutMs: 200 }).send({ to: "+256772123456", message: "x" })).toEqual({
      outcome: "retry",
      statusCode: null,
      reason: "Africa's Talking did not answer in time",
    });
  });

  it("sends a text that met a gateway error on a later try, once, and stores what it cost", async () => {
    const seller = await createUser(t.db, { role: "freelancer", verifiedPhone: "+256772000501" });
    const queued = await transact(
      actor,
      async (tx) =>
        ok(
          await queueSms(tx, {
            userId: seller.id,
            purpose: "order",
            eventKey: `contract:${seller.id}`,
            words: { key: "notify.sms.newOrder", values: { title: "Logo" } },
          }),
        ),
      { db: t.db },
    );
    if (!queued.ok || !queued.value.queued) throw new Error("not queued");
    fake.setRecipientStatus("+256772000501", 501);
    const first = await deliverSms(actor, { smsId: queued.value.id, provider: provider() }, { db: t.db });
    expect(first).toMatchObject({ ok: true, value: { status: "retry" } });
    expect(await t.db("sms_messages").where({ id: queued.value.id }).first()).toMatchObject({ status: "queued", attempts: 1, last_error: "501 GatewayError" });
    fake.setRecipientStatus("+256772000501", 101);
    expect(await deliverSms(actor, { smsId: queued.value.id, provider: provider() }, { db: t.db })).toEqual({ ok: true, value: { status: "sent" } });
    expect(await deliverSms(actor, { smsId: queued.value.id, provider: provider() }, { db: t.db })).toEqual({ ok: true, value: { status: "skipped" } });
    expect(fake.sent.filter((s) => s.to === "+256772000501")).toHaveLength(1);
    const row = await t.db("sms_messages").where({ id: queued.value.id }).first();
    expect(row).toMatchObject({ status: "sent", provider: "africastalking", attempts: 2, cost_currency: "UGX" });
    expect(Number(row.cost_amount)).toBe(35);
    expect(row.gateway_message_id).toBe(fake.sent.find((s) => s.to === "+256772000501")!.messageId);
  });
});

/** A text's columns but those a report may change. */
const REPORTED = new Set(["delivery_status", "delivery_failure", "delivery_reported_at", "updated_at"]);
const steady = (row: Record<string, unknown>) => Object.fromEntries(Object.entries(row).filter(([column]) => !REPORTED.has(column)));

describe("delivery reports", () => {
  async function sentText(phone: string) {
    const member = await createUser(t.db, { role: "freelancer", verifiedPhone: phone });
    const queued = await transact(
      actor,
      async (tx) =>
        ok(
          await queueSms(tx, {
            userId: member.id,
            purpose: "order",
            eventKey: `report:${member.id}`,
            words: { key: "notify.sms.newOrder", values: { title: "Logo" } },
          }),
        ),
      { db: t.db },
    );
    if (!queued.ok || !queued.value.queued) throw new Error("not queued");
    await deliverSms(actor, { smsId: queued.value.id, provider: provider() }, { db: t.db });
    return t.db("sms_messages").where({ id: queued.value.id }).first();
  }

  it("updates the delivery state of the text a report names, and only that", async () => {
    const before = await sentText("+256772000601");
    const status = await fake.report(`${server.baseUrl}/sms/delivery`, {
      id: before.gateway_message_id,
      status: "Failed",
      phoneNumber: "+256700999999",
      networkCode: "64110",
      failureReason: "AbsentSubscriber",
      retryCount: "0",
      cost: "UGX 0",
    });
    expect(status).toBe(200);
    const after = await t.db("sms_messages").where({ id: before.id }).first();
    expect(after).toMatchObject({ delivery_status: "Failed", delivery_failure: "AbsentSubscriber" });
    expect(steady(after)).toEqual(steady(before));
  });

  it("answers 200 to a report naming a text we never sent and changes nothing; 400 to a report without a known state", async () => {
    const before = await sentText("+256772000602");
    expect(await fake.report(`${server.baseUrl}/sms/delivery`, { id: "ATXid_not_ours", status: "Success", phoneNumber: "+256772000602" })).toBe(200);
    expect(await fake.report(`${server.baseUrl}/sms/delivery`, { id: before.gateway_message_id, status: "Paid" })).toBe(400);
    const after = await t.db("sms_messages").where({ id: before.id }).first();
    expect(after.delivery_status).toBeNull();
    expect(await t.db("sms_messages").whereNotNull("delivery_status").whereNot({ id: before.id }).pluck("gateway_message_id")).not.toContain("ATXid_not_ours");
  });
});
