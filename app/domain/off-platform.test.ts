/**
 * offPlatformReason (docs/product.md, ADR 016): what in a message before an order looks like taking payment off
 * Soko (a phone number in the ways Ugandans write one, a mobile-money request with or without a number, a
 * WhatsApp or Telegram handle or link), and the digits it must let pass (prices in UGX, order numbers,
 * thousands, dates).
 */
import { describe, expect, it } from "vitest";
import { offPlatformReason } from "~/domain/off-platform";

const each = (texts: string[]) => Object.fromEntries(texts.map((text) => [text, offPlatformReason(text)]));
const all = (texts: string[], reason: string | null) => Object.fromEntries(texts.map((text) => [text, reason]));

describe("offPlatformReason", () => {
  it("sees a phone number in its Ugandan and international forms", () => {
    const phones = [
      "Call me on 0772 123 456",
      "0772123456",
      "0772-123-456",
      "0701.234.567",
      "call 0392 123 456 after six",
      "+256 772 123 456",
      "+256772123456",
      "256772123456",
      "00256 772 123456",
      "+256-772-123456",
      "(0772) 123456",
      "(0772)123456",
      "+256 (0) 772 123456",
      "my line:\n0772\n123456",
    ];
    expect(each(phones)).toEqual(all(phones, "phone_number"));
  });

  it("still sees a number written after a price", () => {
    expect(offPlatformReason("UGX 150,000. 0772 123 456")).toBe("phone_number");
    expect(offPlatformReason("It is UGX 80,000 call 0772123456")).toBe("phone_number");
  });

  it("sees a mobile-money request without any number", () => {
    const requests = [
      "send it to my momo number",
      "Pay me on mobile money",
      "I take MoMo",
      "pay via airtel money",
      "MTN MoMo please",
      "send the money to my line",
      "what is your mm number? here is my mm number",
      "I prefer Mobile-Money",
    ];
    expect(each(requests)).toEqual(all(requests, "mobile_money"));
  });

  it("sees WhatsApp and Telegram handles and links", () => {
    const handles = [
      "my WhatsApp",
      "whatsapp me",
      "What's app me",
      "wa.me/256772123456",
      "https://wa.me/256772123456",
      "wa: +256772123456",
      "t.me/nakato_designs",
      "https://t.me/nakato",
      "telegram @nakato",
      "Telegram: @nakato",
      "tg: @nakato",
      "inbox me on WA",
      "DM me via TG",
    ];
    expect(each(handles)).toEqual(all(handles, "chat_handle"));
  });

  it("lets prices, order numbers, thousands and dates pass", () => {
    const fine = [
      "Hello, can you start on Monday?",
      "The price is UGX 150,000",
      "UGX 1,500,000 for premium",
      "UGX 150000",
      "UGX150000",
      "Pay UGX 150 000 please",
      "USh 250,000 or USD 65.50",
      "Shs 50,000",
      "$150",
      "about 2,500,000",
      "1,000,000 shillings",
      "150,000/=",
      "order ORD-123456789",
      "ORD-20260101-1234",
      "In 2026 we delivered 1,200 logos",
      "Delivered on 2026-11-26 10:30",
      "by 26/11/2026 or 27.11.2026",
      "Invoice 12345678",
      "1. 2. 3. 4. 5. 6. 7. 8. 9. 10.",
      "(1) logo (2) flyer (3) banner",
      "I have 10 years experience, delivery in 3 days",
    ];
    expect(each(fine)).toEqual(all(fine, null));
  });
});
