/**
 * The period an analytics screen or export covers, read from a GET form's fields: `range` 1d, 7d, 30d or
 * 90d (default 7d), or `range=custom` with `from` and `to` days (YYYY-MM-DD, UTC, both included, at most
 * a year). No server code: the screen's form and the server read the same rules.
 */
import { RANGES, type Range } from "~/analytics/ranges";

const DAY_MS = 24 * 60 * 60 * 1000;
/** A custom period covers at most this many days (a year; 366 lets a leap year through). */
export const MAX_CUSTOM_DAYS = 366;
export const DEFAULT_RANGE: Range = "7d";

/** A period; the screen names it in the reader's language (a range by RANGE_LABEL_KEYS, custom days by their dates). */
export type PeriodChoice =
  | { kind: "range"; range: Range; slug: string }
  /** `window`: Unix seconds, from < t <= to, as the reports take it. */
  | { kind: "custom"; from: string; to: string; window: { from: number; to: number }; slug: string };

/** Each field's problem, as a catalogue key of namespace `admin` (app/i18n/message-key.ts: `sayMessage` says it). */
export type PeriodErrors = { range?: string; from?: string; to?: string };

function day(value: string): number | null {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return null;
  const ms = Date.parse(`${value}T00:00:00Z`);
  // 2026-02-31 parses to a day in March: refuse it rather than read another day.
  if (!Number.isFinite(ms) || new Date(ms).toISOString().slice(0, 10) !== value) return null;
  return ms;
}

/** The period the parameters ask for, or the errors to show beside the fields. */
export function parsePeriod(
  params: URLSearchParams,
): { ok: true; period: PeriodChoice } | { ok: false; errors: PeriodErrors; values: { range: string; from: string; to: string } } {
  const range = params.get("range") ?? "";
  const from = (params.get("from") ?? "").trim();
  const to = (params.get("to") ?? "").trim();
  const values = { range, from, to };
  if (range === "" && from === "" && to === "") return { ok: true, period: named(DEFAULT_RANGE) };
  if (range !== "custom" && range !== "") {
    if (Object.hasOwn(RANGES, range)) return { ok: true, period: named(range as Range) };
    return { ok: false, errors: { range: "admin.period.chooseRange" }, values };
  }
  const errors: PeriodErrors = {};
  const fromMs = day(from);
  const toMs = day(to);
  if (from === "") errors.from = "admin.period.enterFrom";
  else if (fromMs === null) errors.from = "admin.period.fromNotDate";
  if (to === "") errors.to = "admin.period.enterTo";
  else if (toMs === null) errors.to = "admin.period.toNotDate";
  if (fromMs !== null && toMs !== null) {
    if (toMs < fromMs) errors.to = "admin.period.toBeforeFrom";
    else if ((toMs - fromMs) / DAY_MS + 1 > MAX_CUSTOM_DAYS) errors.to = "admin.period.tooLong";
  }
  if (errors.from || errors.to || fromMs === null || toMs === null) return { ok: false, errors, values };
  return {
    ok: true,
    period: {
      kind: "custom",
      from,
      to,
      // Both days whole: from the first day's 00:00:00 to the last day's 23:59:59 (UTC).
      window: { from: fromMs / 1000 - 1, to: (toMs + DAY_MS) / 1000 - 1 },
      slug: from === to ? from : `${from}_${to}`,
    },
  };
}

function named(range: Range): PeriodChoice {
  return { kind: "range", range, slug: range };
}

/** The query string of a period (for links, the export and the form's values). */
export function periodQuery(period: PeriodChoice): URLSearchParams {
  return period.kind === "range" ? new URLSearchParams({ range: period.range }) : new URLSearchParams({ range: "custom", from: period.from, to: period.to });
}

/** The reports the CSV export offers (app/analytics/export.server.ts writes their SQL), with what each holds. */
export const EXPORT_REPORTS = {
  pageviews: "Page views: one row per page view",
  pages: "Pages: views and unique views of every page",
  sessions: "Sessions: pages, interactions, duration, device, country and browser of each",
  actions: "Actions: one row per click, form submit, focus, scroll and time on page",
  conversions: "Conversions: signups, orders and gigs published, as the server recorded them",
} as const;
export type ExportReport = keyof typeof EXPORT_REPORTS;

export function isExportReport(value: string): value is ExportReport {
  return Object.hasOwn(EXPORT_REPORTS, value);
}
