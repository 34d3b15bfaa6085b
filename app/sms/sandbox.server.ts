/**
 * The sandbox SMS provider (ADR 050): stands in for Africa's Talking when AFRICASTALKING_API_KEY is not set.
 * It takes every text at once and sends nothing; the text stays in our sms_messages table, and /dev/outbox
 * shows it under the same rules as mail (app/models/sms.server.ts, isSmsOutboxOpen).
 */
import { randomUUID } from "node:crypto";
import type { SmsProvider } from "./provider.server";

export function createSandboxSmsProvider(): SmsProvider {
  return {
    name: "sandbox",
    send: async () => ({ outcome: "accepted", messageId: `SBX-${randomUUID()}`, statusCode: 101, cost: null }),
  };
}
