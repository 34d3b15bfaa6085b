/**
 * Alerts by text from the order operations (ADR 050): a seller with a verified phone is texted once when an
 * order is paid, in their language; a seller without one is not texted at all.
 */
import { expect, it } from "vitest";
import { createParties, orderTestContext, paidTestOrder } from "../support/orders";

const t = orderTestContext("sms_alerts");

it("texts a new paid order to the seller's verified phone, once", async () => {
  const { seller, buyer, gigId } = await createParties(t.db, { seller: { verifiedPhone: "+256772555101", name: "Sms Seller" } });
  const { orderId } = await paidTestOrder(t, buyer, gigId);
  const texts = await t.db("sms_messages").where({ user_id: seller.id });
  expect(texts).toHaveLength(1);
  expect(texts[0]).toMatchObject({ to_number: "+256772555101", purpose: "order", event_key: `order_paid:${orderId}:in_progress:0` });
  expect(texts[0].body).toMatch(/^Soko: new paid order ".+"\. Open Soko to start the work on time\.$/);
});

it("texts nothing to a seller without a verified phone", async () => {
  const { seller, buyer, gigId } = await createParties(t.db, { seller: { name: "Quiet Seller" } });
  await paidTestOrder(t, buyer, gigId);
  expect(await t.db("sms_messages").where({ user_id: seller.id })).toEqual([]);
});
