/** Dates shown in the member's chosen time zone: EAT (Africa/Kampala, UTC+3) by default, or UTC. */
export type TimeZoneChoice = "EAT" | "UTC";

const IANA: Record<TimeZoneChoice, string> = { EAT: "Africa/Kampala", UTC: "UTC" };

/**
 * One formatter per time zone and kind, made at first use: making an Intl.DateTimeFormat costs about 65 µs,
 * formatting with one about 1 µs (a gig page with its reviews made one per date: 12% of its render).
 */
function formatterOf(kind: keyof typeof OPTIONS, zone: TimeZoneChoice): Intl.DateTimeFormat {
  const key = `${kind} ${zone}`;
  let formatter = formatters.get(key);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", { timeZone: IANA[zone], ...OPTIONS[kind] });
    formatters.set(key, formatter);
  }
  return formatter;
}
const formatters = new Map<string, Intl.DateTimeFormat>();

const OPTIONS = {
  dateTime: { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", hour12: false },
  date: { day: "numeric", month: "long", year: "numeric" },
  day: { weekday: "short", day: "numeric", month: "short" },
  dayTime: { weekday: "short", day: "numeric", month: "short", hour: "2-digit", minute: "2-digit", hour12: false },
} satisfies Record<string, Intl.DateTimeFormatOptions>;

export function formatDateTime(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  return `${formatterOf("dateTime", zone).format(new Date(value))} ${zone}`;
}

export function formatDate(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  return formatterOf("date", zone).format(new Date(value));
}

/** A near day, as people say it: "Fri 12 Dec" (no year: for dates within weeks of now, such as a due date). */
export function formatDay(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  return formatterOf("day", zone).format(new Date(value));
}

/** A near moment: "Fri 12 Dec 14:05". */
export function formatDayTime(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  return formatterOf("dayTime", zone).format(new Date(value)).replace(",", "");
}

/** The time of day, as "14:05" (24-hour), for sentences about what happens next. */
const timeFormatters = new Map<TimeZoneChoice, Intl.DateTimeFormat>();
export function formatTime(value: Date | string, zone: TimeZoneChoice = "EAT"): string {
  let formatter = timeFormatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-GB", { timeZone: IANA[zone], hour: "2-digit", minute: "2-digit", hour12: false });
    timeFormatters.set(zone, formatter);
  }
  return formatter.format(new Date(value));
}
