/**
 * Server-rendered SVG charts of the admin insight screens (pipeline health, heatmap, funnel): readable
 * without JavaScript, drawn only with SVG attributes (no inline styles, which the CSP refuses), each hidden
 * from screen readers, which read the table of the same numbers beside it.
 */
import type { ReactNode } from "react";
import { ErrorList } from "~/components/forms";

export type Series = { name: string; colour: string; values: number[] };

/**
 * Lines over equal time steps (e.g. 1,440 minutes), one per series, on a shared scale from 0 to the
 * largest value; `labels` are a few x-axis marks as [index, text].
 */
export function LineChart({ series, steps, labels, title }: { series: Series[]; steps: number; labels: [number, string][]; title: string }) {
  const width = 720;
  const height = 200;
  const pad = { left: 40, bottom: 20, top: 10 };
  const max = Math.max(1, ...series.flatMap((s) => s.values));
  const x = (i: number) => pad.left + (steps <= 1 ? 0 : (i * (width - pad.left - 5)) / (steps - 1));
  const y = (v: number) => pad.top + (height - pad.top - pad.bottom) * (1 - v / max);
  return (
    <figure className="insight-chart">
      <svg viewBox={`0 0 ${width} ${height}`} width="100%" aria-hidden="true" focusable="false">
        <title>{title}</title>
        <line x1={pad.left} y1={y(0)} x2={width} y2={y(0)} stroke="#999" />
        <line x1={pad.left} y1={pad.top} x2={pad.left} y2={y(0)} stroke="#999" />
        <text x={pad.left - 4} y={pad.top + 8} textAnchor="end" fontSize="10">
          {max}
        </text>
        <text x={pad.left - 4} y={y(0)} textAnchor="end" fontSize="10">
          0
        </text>
        {labels.map(([i, text], n) => (
          <text key={i} x={x(i)} y={height - 4} textAnchor={n === 0 ? "start" : n === labels.length - 1 ? "end" : "middle"} fontSize="10">
            {text}
          </text>
        ))}
        {series.map((s) => (
          <polyline
            key={s.name}
            fill="none"
            stroke={s.colour}
            strokeWidth="1.5"
            points={s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}
          />
        ))}
      </svg>
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

/** Horizontal bars, one per step, widths relative to the first (largest) value. */
export function FunnelChart({ steps, title }: { steps: { label: string; count: number }[]; title: string }) {
  const width = 720;
  const row = 34;
  const labelWidth = 200;
  const max = Math.max(1, ...steps.map((s) => s.count));
  return (
    <svg viewBox={`0 0 ${width} ${steps.length * row}`} width="100%" aria-hidden="true" focusable="false">
      <title>{title}</title>
      {steps.map((s, i) => {
        const w = ((width - labelWidth - 60) * s.count) / max;
        return (
          <g key={s.label}>
            <text x={labelWidth - 8} y={i * row + 21} textAnchor="end" fontSize="13">
              {s.label}
            </text>
            <rect x={labelWidth} y={i * row + 6} width={Math.max(w, s.count > 0 ? 2 : 0)} height={row - 12} fill="#2f7d4f" />
            <text x={labelWidth + w + 6} y={i * row + 21} fontSize="13">
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

/** A caption and a table for screen readers and for reading exact figures. */
export function FigureTable({ caption, head, children }: { caption: ReactNode; head: string[]; children: ReactNode }) {
  return (
    <table className="insight-table">
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
      <tbody>{children}</tbody>
    </table>
  );
}

/** The prefix of admin links on this request's host: "/admin" on the main host, "" on the admin host. */
export function adminBase(pathname: string): string {
  return pathname === "/admin" || pathname.startsWith("/admin/") ? "/admin" : "";
}

export const RANGE_CHOICES = [
  ["1d", "Last day"],
  ["7d", "Last 7 days"],
  ["30d", "Last 30 days"],
  ["90d", "Last 90 days"],
] as const;

/** The range select of a GET form, with its error beside it. */
export function RangeSelect({ value, error }: { value: string; error?: string | null }) {
  return (
    <div className="field">
      <label htmlFor="range">Range</label>
      <select id="range" name="range" defaultValue={value} aria-invalid={error ? true : undefined} aria-describedby={error ? "range-error" : undefined}>
        {RANGE_CHOICES.map(([range, label]) => (
          <option key={range} value={range}>
            {label}
          </option>
        ))}
      </select>
      <ErrorList id="range-error" errors={error ? [error] : undefined} />
    </div>
  );
}

/** Links between the insight screens (the admin header is shared; these screens link each other). */
export function InsightLinks({ base }: { base: string }) {
  return (
    <nav aria-label="Analytics insights" className="insight-links">
      <a href={`${base}/analytics`}>Analytics</a> · <a href={`${base}/heatmap`}>Click heatmap</a> ·{" "}
      <a href={`${base}/analytics/conversion-funnel`}>Conversion funnel</a> · <a href={`${base}/analytics/user-journey`}>User journey</a> ·{" "}
      <a href={`${base}/pipeline`}>Pipeline health</a>
    </nav>
  );
}
