/**
 * Which provider sends texts (ADR 050): Africa's Talking when AFRICASTALKING_API_KEY is set, the sandbox
 * otherwise (its texts stay in the table for /dev/outbox).
 */
import { getEnv, type Env } from "~/server/env.server";
import { messagesSent } from "~/server/metrics.server";
import { AFRICASTALKING_LIVE_URL, AFRICASTALKING_SANDBOX_URL, createAfricasTalkingProvider } from "./africastalking.server";
import type { SmsProvider } from "./provider.server";
import { createSandboxSmsProvider } from "./sandbox.server";

export function createSmsProvider(env: Env): SmsProvider {
  return counted(chosenSmsProvider(env));
}

/** Texts handed to the gateway are counted (ADR 057): sent when it took them, failed otherwise. */
function counted(provider: SmsProvider): SmsProvider {
  return {
    ...provider,
    send: async (request) => {
      const outcome = await provider.send(request);
      messagesSent.inc({ channel: "sms", outcome: outcome.outcome === "accepted" ? "sent" : "failed" });
      return outcome;
    },
  };
}

function chosenSmsProvider(env: Env): SmsProvider {
  if (!env.AFRICASTALKING_API_KEY) return createSandboxSmsProvider();
  const username = env.AFRICASTALKING_USERNAME;
  return createAfricasTalkingProvider({
    apiKey: env.AFRICASTALKING_API_KEY,
    username,
    // The gateway's sandbox account is called "sandbox" and lives on its own host.
    baseUrl: env.AFRICASTALKING_BASE_URL ?? (username === "sandbox" ? AFRICASTALKING_SANDBOX_URL : AFRICASTALKING_LIVE_URL),
    senderId: env.AFRICASTALKING_SENDER_ID,
  });
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoSmsProvider: SmsProvider | undefined;
}

/** This process's SMS provider, from its environment. */
export function getSmsProvider(): SmsProvider {
  globalThis.__sokoSmsProvider ??= createSmsProvider(getEnv());
  return globalThis.__sokoSmsProvider;
}
