/**
 * The analytics CSV export (issue 13 item 5, DESIGN.md §5 "CSV export"): one report of a period, streamed
 * straight from ClickHouse (`FORMAT CSVWithNames`) to the response, never held in memory and never cut
 * short by a row cap. Cancelling the download (the request's abort signal) aborts the HTTP request to
 * ClickHouse and kills the query by its id, so a long query does not run on for nobody.
 *
 * Formula injection: a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return. Every text cell is escaped in the SQL itself (so the response stays a plain pipe): such a value
 * gets a leading single quote, inside the CSV's own quoting (`"'=HYPERLINK(…)"`). Numbers are never
 * negative here, so they need nothing.
 *
 * SQL for ClickHouse 18.16 and current ClickHouse (DESIGN.md §2): the only values in it are the window's
 * checked whole seconds and the query id this module made (a UUID).
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import type { ClickHouseClient } from "@clickhouse/client";
import type { ExportReport } from "~/analytics/period";
import { periodWindow, type ReportWindow } from "~/analytics/reports.server";
import { adminOf, forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";

/** A text cell, escaped against formula injection: a leading `'` when it starts with = + - @ tab or CR. */
function cell(expression: string, name: string): string {
  const text = `CAST(${expression} AS String)`;
  return `if(substring(${text}, 1, 1) IN ('=', '+', '-', '@', '\\t', '\\r'), concat('''', ${text}), ${text}) AS ${name}`;
}

function inWindow({ from, to }: ReportWindow): string {
  if (!Number.isSafeInteger(from) || !Number.isSafeInteger(to)) throw new Error("export window must be whole seconds");
  return `event_time > toDateTime(${from}) AND event_time <= toDateTime(${to})`;
}

/** The SELECT of each report, oldest first (or by name); every column has a plain, stable name. */
export function exportSql(report: ExportReport, window: ReportWindow): string {
  const where = inWindow(window);
  switch (report) {
    case "pageviews":
      return `SELECT toString(event_time) AS time_utc, ${cell("session_id", "session_id")}, user_id, ${cell("page", "page")},
          ${cell("title", "title")}, ${cell("url", "url")}, ${cell("referrer", "referrer")}, ${cell("country", "country")},
          ${cell("city", "city")}, ${cell("device", "device")}, ${cell("browser", "browser")}, ${cell("os", "os")}
        FROM pageviews FINAL WHERE ${where}
        ORDER BY event_time, event_id`;
    case "pages":
      return `SELECT ${cell("page", "page")}, views, unique_views FROM (
          SELECT page, uniqExact(event_id) AS views, uniqExact(session_id) AS unique_views
          FROM pageviews FINAL WHERE ${where} GROUP BY page
        ) ORDER BY views DESC, page ASC`;
    case "sessions":
      return `SELECT ${cell("session_id", "session_id")}, toString(started) AS started_utc, pageviews, interactions,
          duration_seconds, ${cell("session_device", "device")}, ${cell("session_country", "country")},
          ${cell("session_browser", "browser")}
        FROM (
          SELECT session_id, min(event_time) AS started,
            uniqExactIf(event_id, kind = 1) AS pageviews,
            uniqExactIf(event_id, kind = 2 AND interaction = 1) AS interactions,
            dateDiff('second', min(event_time), max(event_time)) AS duration_seconds,
            argMin(device, event_time) AS session_device,
            argMin(country, event_time) AS session_country,
            argMin(browser, event_time) AS session_browser
          FROM (
            SELECT session_id, event_id, event_time, device, country, browser, 1 AS kind, toUInt8(0) AS interaction
            FROM pageviews FINAL WHERE ${where}
            UNION ALL
            SELECT session_id, event_id, event_time, device, country, browser, 2 AS kind,
              CAST(action_type IN ('click', 'form_submit', 'input_focus') AS UInt8) AS interaction
            FROM actions FINAL WHERE ${where}
          )
          GROUP BY session_id
        ) ORDER BY started, session_id`;
    case "actions":
      return `SELECT toString(event_time) AS time_utc, ${cell("session_id", "session_id")}, user_id,
          ${cell("action_type", "action_type")}, ${cell("page", "page")}, ${cell("element_tag", "element_tag")},
          ${cell("element_id", "element_id")}, ${cell("element_text", "element_text")}, x, y, toUInt64(value) AS value
        FROM actions FINAL WHERE ${where}
        ORDER BY event_time, event_id`;
    case "conversions":
      // Business facts only: what the server recorded (see reports.server.ts, FACT).
      return `SELECT time_utc, session_id, user_id, conversion_type, value FROM (
          SELECT toString(event_time) AS time_utc, ${cell("session_id", "session_id")}, user_id,
            ${cell("conversion_type", "conversion_type")}, value, platform, event_time, event_id
          FROM conversions FINAL WHERE ${where}
        ) WHERE platform = 'server'
        ORDER BY event_time, event_id`;
  }
}

/**
 * The CSV of a report as a byte stream straight from ClickHouse. `signal` aborting (the admin cancelled
 * the download) ends the request to ClickHouse and kills the query.
 */
export async function exportCsv(
  client: ClickHouseClient,
  { report, window, signal }: { report: ExportReport; window: ReportWindow; signal?: AbortSignal },
): Promise<{ stream: Readable; queryId: string }> {
  const sql = exportSql(report, periodWindow(window));
  const queryId = randomUUID();
  const kill = () => {
    // A query still working before its first row does not notice a closed connection: kill it by id.
    client.command({ query: `KILL QUERY WHERE query_id = '${queryId}' ASYNC` }).catch(() => {});
  };
  signal?.addEventListener("abort", kill, { once: true });
  try {
    const { stream } = await client.exec({
      query: `${sql}\nFORMAT CSVWithNames`,
      query_id: queryId,
      abort_signal: signal,
      // Plain bytes, not gzip: the web process passes them on without inflating them, and a slow download
      // holds ClickHouse back through the pipe (a compressed answer fits whole into the socket buffers).
      clickhouse_settings: { enable_http_compression: 0 },
    });
    stream.once("close", () => signal?.removeEventListener("abort", kill));
    return { stream, queryId };
  } catch (error) {
    signal?.removeEventListener("abort", kill);
    throw error;
  }
}

/** Records an admin's export in the audit log (the export itself reads ClickHouse, outside any transaction). */
export function auditExport(actor: Actor, details: { report: ExportReport; range: string; from?: string; to?: string }): Promise<Result<null>> {
  return transact(actor, async (tx) => {
    if (!adminOf(actor)) return forbidden();
    await tx.audit({ action: "analytics.export", targetType: "analytics", targetId: details.report, details });
    return ok(null);
  });
}
