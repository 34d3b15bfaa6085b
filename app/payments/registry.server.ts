/**
 * Which provider serves a payment (ADR 015): MTN MoMo for MTN numbers and Airtel Money for Airtel numbers
 * when their credentials are configured; otherwise the sandbox, outside production or when PAYMENTS_SANDBOX
 * says so. In production with neither, checkout says payments are unavailable rather than pretend.
 * The provider is stored on each payment and payout row, and later calls about it go to that provider.
 */
import { airtelConfigFromEnv, createAirtelProvider } from "~/payments/airtel.server";
import { measuredProvider } from "~/payments/measured.server";
import { createMomoProvider, momoConfigFromEnv } from "~/payments/momo.server";
import type { Network, PaymentProvider, ProviderName } from "~/payments/provider.server";
import { createSandboxProvider, Sandbox } from "~/payments/sandbox.server";
import { getEnv, type Env } from "~/server/env.server";
import { getRedis } from "~/server/redis.server";

export type Providers = {
  /** The provider for a payer's network, or null when nothing can take payments from it. */
  forNetwork(network: Network): PaymentProvider | null;
  /** The provider a stored payment or payout names. */
  byName(name: ProviderName): PaymentProvider | null;
  /** The sandbox, when it is in use (its page answers only then). */
  sandbox: Sandbox | null;
};

export function createProviders(env: Env, { sandbox }: { sandbox: Sandbox | null }): Providers {
  const momoConfig = momoConfigFromEnv(env);
  const airtelConfig = airtelConfigFromEnv(env);
  // MoMo calls back the URL each request names; Airtel's callback URL is set on the merchant account.
  const callbackUrl = env.PUBLIC_URL ? new URL("/payments/callback/mtn", env.PUBLIC_URL).toString() : undefined;
  // Each provider's calls are counted for the metrics (ADR 057).
  const mtn = momoConfig ? measuredProvider(createMomoProvider({ ...momoConfig, callbackUrl })) : null;
  const airtel = airtelConfig ? measuredProvider(createAirtelProvider(airtelConfig)) : null;
  const sandboxProvider = sandbox ? measuredProvider(createSandboxProvider(sandbox)) : null;
  return {
    forNetwork: (network) => (network === "mtn" ? mtn : airtel) ?? sandboxProvider,
    byName: (name) => (name === "mtn" ? mtn : name === "airtel" ? airtel : sandboxProvider),
    sandbox,
  };
}

/** Whether the sandbox stands in: explicitly, or outside production when no provider is configured. */
export function sandboxEnabled(env: Env): boolean {
  if (env.PAYMENTS_SANDBOX !== undefined) return env.PAYMENTS_SANDBOX;
  return !env.isProduction;
}

declare global {
  // eslint-disable-next-line no-var
  var __sokoProviders: Providers | undefined;
}

/** This process's providers, from its environment. */
export function getProviders(): Providers {
  const env = getEnv();
  globalThis.__sokoProviders ??= createProviders(env, { sandbox: sandboxEnabled(env) ? new Sandbox(getRedis(), env.QUEUE_PREFIX) : null });
  return globalThis.__sokoProviders;
}
