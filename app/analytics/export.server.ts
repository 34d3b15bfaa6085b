/**
 * The analytics CSV export (docs/product.md, Analytics): one report of a period, streamed
 * straight from ClickHouse (`FORMAT CSVWithNames`) to the response, never held in memory and never cut
 * short by a row cap. Cancelling the download (the request's abort signal) aborts the HTTP request to
 * ClickHouse and kills the query by its id, so a long query does not run on for nobody.
 *
 * Formula injection: a spreadsheet runs a cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage
 * return. Every text cell is escaped in the SQL itself (so the response stays a plain pipe): such a value
 * gets a leading single quote, inside the CSV's own quoting (`"'=HYPERLINK(…)"`). Numbers are never
 * negative here, so they need nothing.
 *
 * SQL for ClickHouse 18.16 and current ClickHouse (docs/architecture.md): the only values in it are the window's
 * checked whole seconds and the query id this module made (a UUID).
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import type { ClickHouseClient } from "@clickhouse/client";
import type { ExportReport } from "~/analytics/period";
import { inWindow, periodWindow, type ReportWindow } from "~/analytics/reports.server";
import { adminOf, forbidden, ok, transact, type Actor, type Result } from "~/operations/core.server";

/** A text cell, escaped against formula injection: a leading `'` when it starts with = + - @ tab or CR. */
function cell(expression: string): string {
  const text = `CAST(${expression} AS String)`;
  return `if(substring(${text}, 1, 1) IN ('=', '+', '-', '@', '\\t', '\\r'), concat('''', ${text}), ${text})`;
}

/** A column of the file: its name in the header, and whether it is text (escaped) or a number. */
type Column = [name: string, kind: "text" | "number"];

/**
 * The file's SELECT: the inner query names each column `c_<name>`; the outer one gives it its header name
 * (escaped if it is text), keeps the rows `where` says, and sorts. An escaped expression never takes the
 * name of a column it reads: a current ClickHouse may read `f(page) AS page` as a cycle.
 */
function file(columns: Column[], inner: string, orderBy: string, where = ""): string {
  const select = columns.map(([name, kind]) => `${kind === "text" ? cell(`c_${name}`) : `c_${name}`} AS ${name}`).join(", ");
  return `SELECT ${select} FROM (${inner})${where ? ` WHERE ${where}` : ""} ORDER BY ${orderBy}`;
}

/** The SELECT of each report, oldest first (pages by views); every column has a plain, stable name. */
export function exportSql(report: ExportReport, window: ReportWindow): string {
  const where = inWindow(window);
  switch (report) {
    case "pageviews":
      return file(
        [
          ["time_utc", "text"],
          ["session_id", "text"],
          ["user_id", "number"],
          ["page", "text"],
          ["title", "text"],
          ["url", "text"],
          ["referrer", "text"],
          ["country", "text"],
          ["city", "text"],
          ["device", "text"],
          ["browser", "text"],
          ["os", "text"],
        ],
        `SELECT toString(event_time) AS c_time_utc, session_id AS c_session_id, user_id AS c_user_id, page AS c_page, title AS c_title,
           url AS c_url, referrer AS c_referrer, country AS c_country, city AS c_city, device AS c_device, browser AS c_browser,
           os AS c_os, event_time AS c_at, event_id AS c_event_id
         FROM pageviews FINAL WHERE ${where}`,
        "c_at, c_event_id",
      );
    case "pages":
      return file(
        [
          ["page", "text"],
          ["views", "number"],
          ["unique_views", "number"],
        ],
        `SELECT page AS c_page, uniqExact(event_id) AS c_views, uniqExact(session_id) AS c_unique_views
         FROM pageviews FINAL WHERE ${where} GROUP BY page`,
        "c_views DESC, c_page ASC",
      );
    case "sessions":
      return file(
        [
          ["session_id", "text"],
          ["started_utc", "text"],
          ["pageviews", "number"],
          ["interactions", "number"],
          ["duration_seconds", "number"],
          ["device", "text"],
          ["country", "text"],
          ["browser", "text"],
        ],
        `SELECT session_id AS c_session_id, min(event_time) AS c_started, toString(min(event_time)) AS c_started_utc,
           uniqExactIf(event_id, kind = 1) AS c_pageviews,
           uniqExactIf(event_id, kind = 2 AND interaction = 1) AS c_interactions,
           dateDiff('second', min(event_time), max(event_time)) AS c_duration_seconds,
           argMin(device, event_time) AS c_device,
           argMin(country, event_time) AS c_country,
           argMin(browser, event_time) AS c_browser
         FROM (
           SELECT session_id, event_id, event_time, device, country, browser, 1 AS kind, toUInt8(0) AS interaction
           FROM pageviews FINAL WHERE ${where}
           UNION ALL
           SELECT session_id, event_id, event_time, device, country, browser, 2 AS kind,
             CAST(action_type IN ('click', 'form_submit', 'input_focus') AS UInt8) AS interaction
           FROM actions FINAL WHERE ${where}
         )
         GROUP BY session_id`,
        "c_started, c_session_id",
      );
    case "actions":
      return file(
        [
          ["time_utc", "text"],
          ["session_id", "text"],
          ["user_id", "number"],
          ["action_type", "text"],
          ["page", "text"],
          ["element_tag", "text"],
          ["element_id", "text"],
          ["element_text", "text"],
          ["x", "number"],
          ["y", "number"],
          ["value", "number"],
        ],
        `SELECT toString(event_time) AS c_time_utc, session_id AS c_session_id, user_id AS c_user_id, action_type AS c_action_type,
           page AS c_page, element_tag AS c_element_tag, element_id AS c_element_id, element_text AS c_element_text, x AS c_x, y AS c_y,
           toUInt64(value) AS c_value, event_time AS c_at, event_id AS c_event_id
         FROM actions FINAL WHERE ${where}`,
        "c_at, c_event_id",
      );
    case "conversions":
      // Business facts only: what the server recorded (see reports.server.ts, FACT), kept after FINAL.
      return file(
        [
          ["time_utc", "text"],
          ["session_id", "text"],
          ["user_id", "number"],
          ["conversion_type", "text"],
          ["value", "number"],
        ],
        `SELECT toString(event_time) AS c_time_utc, session_id AS c_session_id, user_id AS c_user_id,
           conversion_type AS c_conversion_type, value AS c_value, platform AS c_platform, event_time AS c_at, event_id AS c_event_id
         FROM conversions FINAL WHERE ${where}`,
        "c_at, c_event_id",
        "c_platform = 'server'",
      );
  }
}

/**
 * The CSV of a report as a byte stream straight from ClickHouse. `signal` aborting (the admin cancelled
 * the download) ends the request to ClickHouse and kills the query.
 */
export async function exportCsv(
  client: ClickHouseClient,
  { report, window, signal, gzip = false }: { report: ExportReport; window: ReportWindow; signal?: AbortSignal; gzip?: boolean },
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
      // Passed on as ClickHouse sends them, never inflated here: plain CSV, or (`gzip`, for a browser that
      // takes it) ClickHouse's own gzip at level 1, which the route sends as the response's Content-Encoding.
      // Compressing in this process cost a 1M-row export 2.2× ClickHouse's own time (bench:reports); either
      // way a slow download holds the query back through the pipe.
      clickhouse_settings: gzip ? { enable_http_compression: 1, http_zlib_compression_level: "1" } : { enable_http_compression: 0 },
      decompress_response_stream: !gzip,
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
