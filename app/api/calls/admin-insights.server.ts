/**
 * The admin's closer looks (ADR 017, ADR 041): a page's click heatmap, the conversion funnel, one member's
 * journey and analytics (app/analytics/insights.server.ts), and the CSV export of a report
 * (app/analytics/export.server.ts), as the admin screens read them; the shared parts are
 * admin-analytics.server.ts's. An export is audited as the screen's is; reading figures is not.
 */
import { msg } from "~/i18n/message-key";
import { pipeline } from "node:stream";
import { z } from "zod";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { auditExport, exportCsv } from "~/analytics/export.server";
import { clickedPages, conversionFunnel, heatmap, HEATMAP_DEVICES, HeatmapPage, memberAnalytics, userJourney } from "~/analytics/insights.server";
import { FUNNEL_STEP_KEY, FUNNEL_STEPS } from "~/analytics/funnel-steps";
import { EXPORT_REPORTS, type ExportReport } from "~/analytics/period";
import { sayIn } from "~/content/operation-messages";
import { periodWindow } from "~/analytics/reports.server";
import { notFound, ok } from "~/operations/core.server";
import { getDb } from "~/server/db.server";
import { ANSWERED, call } from "../route.server";
import { IdParams, Iso } from "../shapes";
import { count, DeviceRow, fromAnalytics, percent, rangeOf, unavailable, Window, windowOf } from "./admin-analytics.server";
import { log } from "~/server/log.server";

// ---------------------------------------------------------------------------------------------------------
// A member's analytics and journey.

async function memberNamed(id: number) {
  return getDb()("users").where({ id }).first<{ id: number | string; name: string; email: string; role: string } | undefined>("id", "name", "email", "role");
}

const Member = z.object({ id: z.number().int(), name: z.string(), email: z.string() });

// ---------------------------------------------------------------------------------------------------------
// The export.

const REPORT_NAMES = Object.keys(EXPORT_REPORTS) as [ExportReport, ...ExportReport[]];

export const adminInsightCalls = [
  call({
    method: "get",
    path: "/admin/heatmap",
    operationId: "adminHeatmap",
    summary: "A page's clicks on an 80 px grid, and the most clicked pages",
    description:
      "Without `page`, only the most clicked pages (to choose one). Cells: column ⌊x / 80⌋ (the last takes everything right of 1,280 px) and row ⌊y / 80⌋; " +
      "`unplaced` clicks had no position (a keyboard or a script pressed it).",
    tag: "Admin",
    access: "admin",
    query: z.object({
      page: z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), HeatmapPage.optional()).describe("A path, such as /gig/12."),
      range: rangeOf("7d"),
      device: z.preprocess(
        (v) => (v === "" ? undefined : v),
        z.enum(HEATMAP_DEVICES, { errorMap: () => ({ message: msg("api.insights.device", { values: HEATMAP_DEVICES.join(", ") }) }) }).optional(),
      ),
    }),
    response: z.object({
      ...Window,
      pages: z.array(z.object({ page: z.string(), clicks: count() })).describe("The 20 most clicked pages, most first."),
      heatmap: z
        .object({
          page: z.string(),
          clicks: count(),
          unplaced: count(),
          rows: count(),
          columns: count(),
          cellPx: count(),
          cells: z.array(z.object({ row: count(), col: count(), clicks: count() })).describe("Cells with clicks, hottest first."),
        })
        .nullable(),
    }),
    async handle({ query: { page, range, device } }) {
      const now = new Date();
      const client = getClickHouse();
      const read = await fromAnalytics(
        () => Promise.all([clickedPages(client, range, { now }), page ? heatmap(client, page, range, { now, device }) : Promise.resolve(null)]),
        "Failed to fetch heatmap data",
      );
      if (!read.ok) return read;
      const [pages, map] = read.value;
      return ok({ ...windowOf(range, now), pages, heatmap: map });
    },
  }),
  call({
    method: "get",
    path: "/admin/analytics/conversion-funnel",
    operationId: "adminConversionFunnel",
    summary: "The conversion funnel: visit, gig view, contact or continue, order placed, paid",
    description: "Every step counts sessions, each a part of the step before; `dropOff` is the percentage lost from the step before (null for the first).",
    tag: "Admin",
    access: "admin",
    query: z.object({ range: rangeOf("30d") }),
    response: z.object({
      ...Window,
      steps: z.array(
        z.object({
          key: z.enum(FUNNEL_STEPS),
          label: z.string().describe("The step's name, in the answer's language."),
          sessions: count(),
          dropOff: z.number().nullable(),
        }),
      ),
    }),
    async handle({ query: { range }, locale }) {
      const now = new Date();
      const read = await fromAnalytics(() => conversionFunnel(getClickHouse(), range, { now }), "Failed to fetch conversion funnel");
      if (!read.ok) return read;
      const say = sayIn(locale);
      return ok({
        ...windowOf(range, now),
        steps: read.value.map((s) => ({ key: s.key, label: say(FUNNEL_STEP_KEY[s.key]), sessions: s.count, dropOff: s.dropOff })),
      });
    },
  }),
  call({
    method: "get",
    path: "/admin/analytics/user-journey/{id}",
    operationId: "adminUserJourney",
    summary: "One member's sessions, the latest first, each with its pages and conversions in time order",
    description: "From the events sent while they were signed in and allowed analytics; at most the latest 1,000 steps.",
    tag: "Admin",
    access: "admin",
    params: IdParams,
    query: z.object({ range: rangeOf("30d") }),
    response: z.object({
      ...Window,
      member: Member,
      sessions: z.array(
        z.object({
          sessionId: z.string(),
          start: Iso,
          end: Iso,
          device: z.string(),
          browser: z.string(),
          country: z.string(),
          steps: z.array(z.object({ at: Iso, kind: z.enum(["page", "conversion"]), what: z.string(), detail: z.string() })),
        }),
      ),
    }),
    failures: [404],
    async handle({ params, query: { range } }) {
      const member = await memberNamed(params.id);
      if (!member) return notFound("member.not_found");
      const now = new Date();
      const read = await fromAnalytics(() => userJourney(getClickHouse(), params.id, range, { now }), "Failed to fetch user journey");
      if (!read.ok) return read;
      return ok({ ...windowOf(range, now), member: { id: Number(member.id), name: member.name, email: member.email }, sessions: read.value });
    },
  }),
  call({
    method: "get",
    path: "/admin/users/{id}/analytics",
    operationId: "adminUserAnalytics",
    summary: "One member's own analytics: sessions, page views, clicks, devices, browsers, pages, conversions",
    tag: "Admin",
    access: "admin",
    params: IdParams,
    query: z.object({ range: rangeOf("30d") }),
    response: z.object({
      ...Window,
      member: Member.extend({ role: z.string() }),
      sessions: count(),
      pageViews: count(),
      clicks: count(),
      firstSeen: Iso.nullable(),
      lastSeen: Iso.nullable(),
      devices: z.array(DeviceRow).describe("Of each session's first event."),
      browsers: z.array(z.object({ browser: z.string(), sessions: count(), percentage: percent() })),
      topPages: z.array(z.object({ page: z.string(), views: count() })).describe("Their 10 most viewed pages."),
      conversions: z.array(z.object({ type: z.string(), count: count(), value: count().describe("Summed, whole UGX.") })),
    }),
    failures: [404],
    async handle({ params, query: { range } }) {
      const member = await memberNamed(params.id);
      if (!member) return notFound("member.not_found");
      const now = new Date();
      const read = await fromAnalytics(() => memberAnalytics(getClickHouse(), params.id, range, { now }), "Failed to fetch user analytics");
      if (!read.ok) return read;
      const { pages, ...stats } = read.value;
      return ok({
        ...windowOf(range, now),
        member: { id: Number(member.id), name: member.name, email: member.email, role: member.role },
        ...stats,
        topPages: pages,
      });
    },
  }),
  call({
    method: "get",
    path: "/admin/analytics/export",
    operationId: "adminAnalyticsExport",
    summary: "One report of a range as a CSV file",
    description:
      "The file the analytics screen exports, streamed, named `analytics-{range}-{date}.csv`: `report` is " +
      Object.entries(EXPORT_REPORTS)
        .map(([name, what]) => `\`${name}\` (${what})`)
        .join(", ") +
      ". Text cells that a spreadsheet would run as a formula start with `'`. Every export is written to the audit log.",
    tag: "Admin",
    access: "admin",
    query: z.object({
      range: rangeOf("7d"),
      format: z.preprocess((v) => (v === "" ? undefined : v), z.literal("csv", { errorMap: () => ({ message: "api.insights.format" }) }).default("csv")),
      report: z.preprocess(
        (v) => (v === "" ? undefined : v),
        z.enum(REPORT_NAMES, { errorMap: () => ({ message: msg("api.insights.report", { values: REPORT_NAMES.join(", ") }) }) }).default("pageviews"),
      ),
    }),
    response: z.string().describe("CSV with a header line (CSVWithNames), UTF-8."),
    produces: "text/csv",
    async handle({ actor, query: { range, report }, req, res }) {
      const gzip = /\bgzip\b/.test(String(req.headers["accept-encoding"] ?? ""));
      const headers = {
        "Content-Type": "text/csv; charset=utf-8",
        "Content-Disposition": `attachment; filename="analytics-${range}-${new Date().toISOString().slice(0, 10)}.csv"`,
        // ClickHouse compresses (gzip level 1) for a client that takes it; compression() leaves the body alone.
        "Cache-Control": "no-store, no-transform",
        "X-Content-Type-Options": "nosniff",
        Vary: "Accept-Encoding",
        ...(gzip ? { "Content-Encoding": "gzip" } : {}),
      };
      // A HEAD asks what a GET would send: the headers, without running (or auditing) an export.
      if (req.method === "HEAD") {
        res.status(200).set(headers).end();
        return ANSWERED;
      }
      // A cancelled download ends the ClickHouse query (exportCsv kills it by id).
      const cancel = new AbortController();
      const onClose = () => {
        if (!res.writableFinished) cancel.abort();
      };
      res.on("close", onClose);
      let stream: Awaited<ReturnType<typeof exportCsv>>["stream"];
      try {
        ({ stream } = await exportCsv(getClickHouse(), { report, window: periodWindow(range), signal: cancel.signal, gzip }));
      } catch (error) {
        res.off("close", onClose);
        log.error({ err: error }, "[api] analytics export: ClickHouse did not answer");
        return unavailable();
      }
      // Audited once ClickHouse has taken the query, before the first byte (an export that could not start is none).
      const audited = await auditExport(actor, { report, range }).catch((error: unknown) => {
        stream.destroy();
        throw error;
      });
      if (!audited.ok) {
        stream.destroy();
        return audited;
      }
      res.status(200).set(headers);
      // pipeline() waits for the socket: a slow download holds the query back instead of piling up here.
      pipeline(stream, res, (error) => {
        if (error && !cancel.signal.aborted) log.error({ err: error }, "[api] analytics export ended early");
      });
      return ANSWERED;
    },
  }),
];
