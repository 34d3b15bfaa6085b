/**
 * Server-rendered SVG charts of the admin insight screens (pipeline health, heatmap, funnel): readable
 * without JavaScript, drawn only with SVG attributes (no inline styles, which the CSP refuses), each hidden
 * from screen readers, which read the table of the same numbers beside it.
 */
import { Children, cloneElement, isValidElement, type ReactElement, type ReactNode } from "react";
import { LinePlot } from "~/components/charts";
import { useRouteLoaderData } from "@remix-run/react";
import { ErrorList } from "~/components/forms";
import type { loader as rootLoader } from "~/root";
import type { TimeZoneChoice } from "~/utils/dates";
import { useT } from "~/i18n/react";

export type Series = { name: string; colour: string; values: number[] };

/**
 * Lines over equal time steps (e.g. 1,440 minutes), one per series, on a shared scale from 0 to the
 * largest value; `labels` are a few x-axis marks as [index, text].
 */
export function LineChart({ series, labels, title }: { series: Series[]; labels: [number, string][]; title: string }) {
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  return (
    <figure className="insight-chart" title={title}>
      <LinePlot max={max} labels={labels} lines={series.map((s) => ({ className: "insight-line", colour: s.colour, values: s.values }))} />
      <figcaption>
        <Legend items={series} />
      </figcaption>
    </figure>
  );
}

export function Legend({ items }: { items: { name: string; colour: string }[] }) {
  return (
    <ul className="chart-legend" aria-hidden="true">
      {items.map((s) => (
        <li key={s.name}>
          <svg width="12" height="12" aria-hidden="true" focusable="false">
            <rect width="12" height="12" fill={s.colour} />
          </svg>{" "}
          {s.name}
        </li>
      ))}
    </ul>
  );
}

/**
 * Horizontal bars, one per step, widths relative to the first (largest) value: each step's label above its
 * bar, in an SVG without a viewBox (widths in percent), so the text stays 13 px at any width.
 */
export function FunnelChart({ steps, title }: { steps: { label: string; count: number }[]; title: string }) {
  const row = 44;
  const max = Math.max(1, ...steps.map((s) => s.count));
  return (
    <svg className="funnel-chart" width="100%" height={steps.length * row} aria-hidden="true" focusable="false">
      <title>{title}</title>
      {steps.map((s, i) => {
        const share = s.count > 0 ? Math.max(0.5, (75 * s.count) / max) : 0;
        return (
          <g key={s.label}>
            <text x={0} y={i * row + 14} fontSize="13">
              {s.label}
            </text>
            <rect x={0} y={i * row + 20} width={`${share.toFixed(2)}%`} height={16} fill="#2f7d4f" />
            <text x={`${share.toFixed(2)}%`} dx={6} y={i * row + 33} fontSize="13">
              {s.count}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/**
 * A page's outline (a box with the grid) with each cell shaded by its clicks: `cells[row][col]`.
 */
export function HeatmapGrid({ cells, title }: { cells: number[][]; title: string }) {
  const rows = cells.length;
  const cols = cells[0]?.length ?? 0;
  const size = 24;
  const max = Math.max(1, ...cells.flat());
  return (
    <svg viewBox={`0 0 ${cols * size + 2} ${rows * size + 2}`} width="100%" className="heatmap" aria-hidden="true" focusable="false">
      <title>{title}</title>
      <rect x="1" y="1" width={cols * size} height={rows * size} fill="#fff" stroke="#555" strokeWidth="2" />
      {cells.map((line, r) =>
        line.map((n, c) => (
          <rect
            key={`${r}-${c}`}
            x={1 + c * size}
            y={1 + r * size}
            width={size}
            height={size}
            fill={n > 0 ? "#d7301f" : "none"}
            fillOpacity={n > 0 ? (0.15 + (0.85 * n) / max).toFixed(2) : undefined}
            stroke="#ddd"
            strokeWidth="0.5"
          />
        )),
      )}
    </svg>
  );
}

/**
 * A caption and a table for screen readers and for reading exact figures. Each cell of the rows given is
 * labelled with its column's heading (`data-label`), which phones show beside it when the rows stack as cards.
 */
export function FigureTable({ caption, head, children }: { caption: ReactNode; head: string[]; children: ReactNode }) {
  return (
    <table className="insight-table stack-table">
      <caption>{caption}</caption>
      <thead>
        <tr>
          {head.map((h) => (
            <th key={h} scope="col">
              {h}
            </th>
          ))}
        </tr>
      </thead>
      <tbody>{labelCells(children, head)}</tbody>
    </table>
  );
}

type Cell = ReactElement<{ "data-label"?: string }>;

/** The rows with each cell given `data-label`: its column's heading. */
function labelCells(rows: ReactNode, head: string[]): ReactNode {
  return Children.map(rows, (row) => {
    if (!isValidElement<{ children?: ReactNode }>(row)) return row;
    let column = 0;
    const cells = Children.map(row.props.children, (cell) => (isValidElement(cell) ? cloneElement(cell as Cell, { "data-label": head[column++] }) : cell));
    return cloneElement(row, undefined, cells);
  });
}

/** The prefix of admin links on this request's host: "/admin" on the main host, "" on the admin host. */
export function adminBase(pathname: string): string {
  return pathname === "/admin" || pathname.startsWith("/admin/") ? "/admin" : "";
}

/** The insight screens' ranges, each with its name as a catalogue key. */
export const RANGE_CHOICES = [
  ["1d", "admin.insights.range1d"],
  ["7d", "admin.insights.range7d"],
  ["30d", "admin.insights.range30d"],
  ["90d", "admin.insights.range90d"],
] as const;

/** The range select of a GET form, with its error beside it. */
export function RangeSelect({ value, error }: { value: string; error?: string | null }) {
  const { t } = useT();
  return (
    <div className="field">
      <label htmlFor="range">{t("admin.insights.range")}</label>
      <select id="range" name="range" defaultValue={value} aria-invalid={error ? true : undefined} aria-describedby={error ? "range-error" : undefined}>
        {RANGE_CHOICES.map(([range, label]) => (
          <option key={range} value={range}>
            {t(label)}
          </option>
        ))}
      </select>
      <ErrorList id="range-error" errors={error ? [error] : undefined} />
    </div>
  );
}

/** Links between the insight screens (the admin header is shared; these screens link each other). */
export function InsightLinks({ base }: { base: string }) {
  const { t } = useT();
  return (
    <nav aria-label={t("admin.insights.linksLabel")} className="insight-links">
      <a href={`${base}/analytics`}>{t("admin.analytics.heading")}</a> · <a href={`${base}/heatmap`}>{t("admin.heatmap.heading")}</a> ·{" "}
      <a href={`${base}/analytics/conversion-funnel`}>{t("admin.funnel.heading")}</a> ·{" "}
      <a href={`${base}/analytics/user-journey`}>{t("admin.journey.heading")}</a> · <a href={`${base}/pipeline`}>{t("admin.pipeline.heading")}</a>
    </nav>
  );
}

/** A plain link (a whole page load) whose words come from a message: `<T components={{ 0: <PlainLink href="…" /> }} />`. */
export function PlainLink({ href, children }: { href: string; children?: ReactNode }) {
  return <a href={href}>{children}</a>;
}

const CLOCKS = new Map<string, Intl.DateTimeFormat>();

/**
 * The time of day ("14:05", or "14:05:09" with seconds) in the admin's time zone, for chart marks and the
 * steps of a session, where formatDateTime's full date would crowd; their zone is named once nearby.
 */
export function clockTime(value: Date | string | number, zone: TimeZoneChoice, seconds = false): string {
  const key = `${zone} ${seconds}`;
  let clock = CLOCKS.get(key);
  if (!clock) {
    clock = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone === "EAT" ? "Africa/Kampala" : "UTC",
      hour: "2-digit",
      minute: "2-digit",
      ...(seconds ? { second: "2-digit" } : {}),
      hour12: false,
    });
    CLOCKS.set(key, clock);
  }
  return clock.format(new Date(value));
}

/** The admin's time zone (EAT unless they chose UTC in their settings), from the root loader. */
export function useTimeZone(): TimeZoneChoice {
  return useRouteLoaderData<typeof rootLoader>("root")?.timeZone ?? "EAT";
}
