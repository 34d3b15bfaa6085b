/** Dates shown in the member's chosen time zone: EAT (Africa/Kampala, UTC+3) by default, or UTC. */
export type TimeZoneChoice = "EAT" | "UTC";

const IANA: Record<TimeZoneChoice, string> = { EAT: "Africa/Kampala", UTC: "UTC" };

export function formatDateTime(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  const text = new Intl.DateTimeFormat("en-GB", {
    timeZone: IANA[zone],
    day: "numeric",
    month: "short",
    year: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    hour12: false,
  }).format(new Date(value));
  return `${text} ${zone}`;
}

export function formatDate(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  return new Intl.DateTimeFormat("en-GB", { timeZone: IANA[zone], day: "numeric", month: "long", year: "numeric" }).format(new Date(value));
}
