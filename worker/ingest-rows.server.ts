/**
 * Events → ClickHouse rows: the table of each event and its row, placed (country and city) from the
 * truncated address the web process queued (geo.server.ts; ADR 036).
 */
import { toDateTimeString } from "../app/analytics/clickhouse-sql.server";
import { TABLES, type QueuedEvent } from "../app/analytics/events";
import { UNKNOWN, type PlaceOf } from "./geo.server";

export type Row = Record<string, string | number>;

/**
 * The table and the row of one event; throws when the event is not one the pipeline knows. An event without
 * a place (what the web process queues) is placed by `placeOf` from its truncated address; one that carries a
 * place keeps it, "Unknown" included (an older web process looked it up from the whole address).
 *
 * Hot: every event passes here. Each row starts as the same object literal and gets its table's columns
 * assigned in a fixed order, so V8 keeps one shape per table; rows made with `{ ...base, ... }` cost 18 µs an
 * event against 1.5 µs this way (a copy per spread and an inline-cache miss per added column), 40% of the
 * worker's CPU at 20,000 events/s (bench:ingest, docs/benchmarks.md).
 */
export function toRow(event: QueuedEvent, placeOf: PlaceOf): { table: string; row: Row } {
  if (!event || typeof event !== "object") throw new Error("an event is not an object");
  const place = typeof event.country === "string" ? null : placeOf(event.ip);
  const row: Row = {
    event_id: event.event_id,
    session_id: event.session_id,
    user_id: event.user_id,
    event_time: dateTime(event.event_time),
    received_at: dateTime(event.received_at),
    platform: event.platform,
    ip: event.ip,
    country: place ? place.country : event.country!,
    city: place ? place.city : (event.city ?? UNKNOWN),
    device: event.device,
    browser: event.browser,
    os: event.os,
  };
  switch (event.kind) {
    case "session":
      row.user_agent = event.user_agent;
      row.screen_resolution = event.screen_resolution;
      row.timezone = event.timezone;
      return { table: TABLES.session, row };
    case "pageview":
      row.page = event.page;
      row.title = event.title;
      row.url = event.url;
      row.referrer = event.referrer;
      return { table: TABLES.pageview, row };
    case "error":
    case "action":
      // An /action event with action_type "error" is a JavaScript error: it goes to the errors table.
      if (event.kind === "error" || event.action_type === "error") {
        row.page = event.page;
        row.message = event.error_message;
        row.stack = event.error_stack;
        return { table: TABLES.error, row };
      }
      row.action_type = event.action_type;
      row.page = event.page;
      row.element_id = event.element_id;
      row.element_class = event.element_class;
      row.element_tag = event.element_tag;
      row.element_text = event.element_text;
      row.x = event.x;
      row.y = event.y;
      row.value = event.value;
      return { table: TABLES.action, row };
    case "conversion":
      row.conversion_type = event.conversion_type;
      row.value = event.value;
      row.metadata = event.metadata;
      return { table: TABLES.conversion, row };
    case "user_action":
      row.action = event.action;
      row.details = event.details;
      row.page = event.page;
      return { table: TABLES.user_action, row };
    default:
      throw new Error(`unknown event kind ${JSON.stringify((event as { kind?: unknown }).kind)}`);
  }
}

/** ISO (or ms) → 'YYYY-MM-DD hh:mm:ss' UTC; anything else is passed on for ClickHouse to judge (and refuse). */
function dateTime(value: string | number): string | number {
  return (typeof value === "string" || typeof value === "number" ? toDateTimeString(value) : null) ?? value;
}

/** A stream entry's rows by table; throws when its events are not an array of events the pipeline knows. */
export function rowsOf(events: unknown, placeOf: PlaceOf): Map<string, Row[]> {
  if (!Array.isArray(events)) throw new Error("the entry has no events array");
  const rows = new Map<string, Row[]>();
  for (const event of events as QueuedEvent[]) {
    const { table, row } = toRow(event, placeOf);
    const list = rows.get(table);
    if (list) list.push(row);
    else rows.set(table, [row]);
  }
  return rows;
}

/** The tables the reports' derived tables are built from. */
const ROLLUP_SOURCES = new Set<string>([TABLES.pageview, TABLES.action, TABLES.conversion]);

/** The event times of the given rows (by table) that are in the derived tables' source tables. */
export function* rollupSourceTimes(rowsByTable: Iterable<Map<string, Row[]>>): Iterable<string> {
  for (const rows of rowsByTable) {
    for (const [table, list] of rows) {
      if (!ROLLUP_SOURCES.has(table)) continue;
      for (const row of list) if (typeof row.event_time === "string") yield row.event_time;
    }
  }
}
