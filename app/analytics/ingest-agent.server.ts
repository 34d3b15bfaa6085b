/** The visitor's software: bot or not, and device, browser and OS, from the User-Agent header. */
import { isbot } from "isbot";
import { LRUCache } from "lru-cache";
import { UAParser } from "ua-parser-js";
import type { Enrichment } from "~/analytics/events";

export type Agent = { bot: boolean; device: Enrichment["device"]; browser: string; os: string };

const MOBILE_OSES = new Set(["Android", "iOS", "KaiOS", "Windows Phone", "BlackBerry", "Symbian", "HarmonyOS"]);
const agents = new LRUCache<string, Agent>({ max: 5_000 });
/** Longer User-Agent strings are cut before parsing (real ones are under 300 characters). */
const AGENT_MAX_LENGTH = 512;

/**
 * Parsing a User-Agent takes ua-parser-js ~0.1-0.3 ms, more than the rest of a request: answers are kept
 * for the last 5,000 distinct strings (a site's visitors share a few hundred).
 */
export function describeAgent(userAgent: string | undefined): Agent {
  const ua = (userAgent ?? "").slice(0, AGENT_MAX_LENGTH);
  const known = agents.get(ua);
  if (known) return known;
  const { browser, os, device } = UAParser(ua);
  let kind: Agent["device"];
  if (device.type === "mobile" || device.type === "tablet") kind = device.type;
  else if (device.type)
    kind = "other"; // smart TVs, consoles, wearables, cars, XR headsets
  else if (os.name && MOBILE_OSES.has(os.name))
    kind = "mobile"; // e.g. Opera Mini on a feature phone
  else if (os.name || browser.name) kind = "desktop";
  else kind = "other";
  const agent: Agent = { bot: isbot(ua), device: kind, browser: browser.name || "Unknown", os: os.name || "Unknown" };
  agents.set(ua, agent);
  return agent;
}
