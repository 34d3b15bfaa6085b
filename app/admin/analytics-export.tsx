import type { Readable } from "node:stream";
import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { auditExport, exportCsv } from "~/analytics/export.server";
import { EXPORT_REPORTS, isExportReport, parsePeriod } from "~/analytics/period";
import { periodWindow } from "~/analytics/reports.server";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import { requestT } from "~/i18n/messages.server";
import { log } from "~/server/log.server";

/**
 * `GET analytics/export?range=…&report=…[&format=csv]` (`/analytics/export` on the admin host, `/admin/analytics/export`
 * on the main host): one report of a period as `analytics-{range}-{date}.csv`, streamed from ClickHouse
 * (app/analytics/export.server.ts). Custom periods: `range=custom&from=YYYY-MM-DD&to=YYYY-MM-DD`, at most a
 * year. Bad parameters: 400 with what to change, in plain text; ClickHouse down: 503. Every export is
 * audited once ClickHouse has taken its query, before the first byte is sent.
 *
 * The plain-text answers are in the admin's language. The CSV's column headers are not translated: they are
 * the reports' column names (app/analytics/export.server.ts), read by spreadsheets and scripts, and stay English.
 */
export async function loader({ request, context }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const params = new URL(request.url).searchParams;
  const report = params.get("report") ?? "pageviews";
  const parsed = parsePeriod(params);
  const t = await requestT(request);
  const problems: string[] = [];
  // Each problem starts with the parameter's own name (report, format, range, from, to): the address's words.
  if (!isExportReport(report)) problems.push(`report: ${t("admin.export.badReport", { reports: Object.keys(EXPORT_REPORTS).join(", ") })}`);
  // `format`: csv by default, and the only one (docs/product.md, Analytics).
  const format = params.get("format");
  if (format !== null && format !== "csv") problems.push(`format: ${t("admin.export.badFormat")}`);
  if (!parsed.ok) {
    for (const [field, key] of Object.entries(parsed.errors)) problems.push(`${field}: ${t(key)}`);
  }
  if (problems.length > 0 || !parsed.ok || !isExportReport(report)) {
    return new Response(`${t("admin.export.notMade")}\n${problems.join("\n")}\n`, {
      status: 400,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store" },
    });
  }
  const { period } = parsed;
  const date = new Date().toISOString().slice(0, 10);
  // Compressed by ClickHouse (exportCsv), not by compression() in server.ts (`no-transform` tells it to leave
  // the body alone): its gzip stream takes every chunk it is given while the socket is slow, so a large export
  // piled up in this process, and gzip in this process made a 1M-row export 2.2× slower than ClickHouse alone.
  const gzip = /\bgzip\b/.test(request.headers.get("Accept-Encoding") ?? "");
  const headers: Record<string, string> = {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="analytics-${period.slug}-${date}.csv"`,
    "Cache-Control": "no-store, no-transform",
    "X-Content-Type-Options": "nosniff",
    Vary: "Accept-Encoding",
    ...(gzip ? { "Content-Encoding": "gzip" } : {}),
  };
  // A HEAD asks what a GET would send: the headers, without running (or auditing) an export.
  if (request.method === "HEAD") return new Response(null, { status: 200, headers });
  const window = periodWindow(period.kind === "range" ? period.range : period.window);
  let stream: Readable;
  try {
    ({ stream } = await exportCsv(getClickHouse(), { report, window, signal: request.signal, gzip }));
  } catch (error) {
    // ClickHouse refused or is down before the first byte: say so, rather than a bare 500.
    log.error({ err: error }, "analytics export: ClickHouse did not answer");
    return new Response(`${t("admin.export.unavailable")}\n`, {
      status: 503,
      headers: { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store", "Retry-After": "60" },
    });
  }
  // Audited once ClickHouse has taken the query, before the first byte goes out (an export that could not
  // start is not one).
  const audited = await auditExport(actor, {
    report,
    range: period.kind === "range" ? period.range : "custom",
    ...(period.kind === "custom" ? { from: period.from, to: period.to } : {}),
  }).catch((error: unknown) => {
    stream.destroy();
    throw error;
  });
  if (!audited.ok) {
    stream.destroy();
    throw new Response(t("admin.export.forbidden"), { status: 403 });
  }
  return new Response(pacedBody(stream, context.responseDrained, request.signal), { status: 200, headers });
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

/**
 * The CSV as a response body that reads the next chunk from ClickHouse only when the response has room
 * (Remix writes a body without waiting for the socket): a slow download holds the query back through the
 * pipe instead of piling up in this process, and a cancelled one ends the query (the request's signal).
 */
function pacedBody(source: Readable, drained: () => Promise<void>, signal: AbortSignal): ReadableStream<Uint8Array> {
  const chunks = source[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        await drained();
        if (signal.aborted) {
          source.destroy();
          controller.close();
          return;
        }
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(new Uint8Array(next.value as Buffer));
        } catch (error) {
          // ClickHouse failed mid-stream, or the download was cancelled: the response ends here.
          controller.error(error);
        }
      },
      cancel() {
        source.destroy();
      },
    },
    { highWaterMark: 0 },
  );
}
