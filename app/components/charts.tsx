/**
 * Server-rendered SVG charts for the admin screens: drawn in the HTML, so they read the same without
 * JavaScript. The picture is for the eye (`aria-hidden`); each chart's numbers are in a table beside it
 * (visually hidden, read by screen readers), with the chart's title as the table's caption.
 */
import type { ReactNode } from "react";
import { formatNumber } from "~/i18n/format";
import { useT } from "~/i18n/react";

export type BarDatum = { label: string; value: number; note?: string };

/** Each bar's row: its label on a line of its own, the bar (with its value after it) below. */
const LABEL_LINE = 18;
const BAR_HEIGHT = 16;
const ROW_GAP = 10;
/** The share of the width the longest bar takes: the rest is room for its value. */
const BAR_SHARE = 70;

/** Cuts a long label for the picture (the table keeps it whole). */
function short(label: string, max = 40): string {
  return label.length > max ? `${label.slice(0, max - 1)}…` : label;
}

/**
 * Horizontal bars, one per row, longest first as given. `format` writes a value (default: grouped whole
 * numbers in the reader's language); `columns` names the table's two columns. Titles, columns and `empty` come
 * in the reader's language (`empty` defaults to the catalogue's "No data for this period."). Drawn without a viewBox, bars' widths in percent of the
 * chart's: the labels stay 12 px on a phone and on a wide screen alike.
 */
export function BarChart({
  title,
  data,
  columns,
  format,
  empty,
}: {
  title: string;
  data: BarDatum[];
  columns: [string, string];
  format?: (n: number) => string;
  empty?: string;
}) {
  const { t, locale } = useT();
  const write = format ?? ((n: number) => formatNumber(n, locale));
  const max = Math.max(1, ...data.map((d) => d.value));
  const row = LABEL_LINE + BAR_HEIGHT + ROW_GAP;
  return (
    <ChartFigure title={title}>
      {data.length === 0 ? (
        <p className="chart-empty">{empty ?? t("admin.charts.empty")}</p>
      ) : (
        <>
          <svg className="chart" width="100%" height={data.length * row - ROW_GAP} aria-hidden="true" focusable="false">
            {data.map((d, i) => {
              const y = i * row;
              const share = d.value > 0 ? Math.max(0.5, (d.value / max) * BAR_SHARE) : 0;
              return (
                <g key={`${d.label}-${i}`}>
                  <text x={0} y={y + LABEL_LINE - 5} className="chart-label">
                    {short(d.label)}
                  </text>
                  <rect x={0} y={y + LABEL_LINE} width={`${share.toFixed(2)}%`} height={BAR_HEIGHT} rx={3} className="chart-bar" />
                  <text x={`${share.toFixed(2)}%`} dx={6} y={y + LABEL_LINE + BAR_HEIGHT / 2} dominantBaseline="central" className="chart-value">
                    {write(d.value)}
                    {d.note ? ` (${d.note})` : ""}
                  </text>
                </g>
              );
            })}
          </svg>
          <table className="visually-hidden">
            <caption>{title}</caption>
            <thead>
              <tr>
                <th scope="col">{columns[0]}</th>
                <th scope="col">{columns[1]}</th>
              </tr>
            </thead>
            <tbody>
              {data.map((d, i) => (
                <tr key={`${d.label}-${i}`}>
                  <th scope="row">{d.label}</th>
                  <td>
                    {write(d.value)}
                    {d.note ? ` (${d.note})` : ""}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      )}
    </ChartFigure>
  );
}

export type LinePoint = { label: string; values: number[] };

/**
 * The drawing of lines over equal steps, shared by the analytics and pipeline charts. The outer SVG has no
 * viewBox, so its text (the highest value above the plot, the first, middle and last labels under it) stays
 * 12 px at any width; only the plot inside stretches to the width, its strokes kept thin.
 */
export function LinePlot({
  lines,
  max,
  labels,
  height = 200,
}: {
  /** Each line's class and its values, one per step. */
  lines: { className: string; values: number[]; colour?: string }[];
  max: number;
  /** A few marks under the plot: [step, text]. */
  labels: [number, string][];
  height?: number;
}) {
  const { t, locale } = useT();
  const top = 20;
  const bottom = 22;
  const plot = height - top - bottom;
  const steps = Math.max(1, ...lines.map((l) => l.values.length));
  const x = (i: number) => (steps <= 1 ? 50 : (i / (steps - 1)) * 100);
  const y = (v: number) => plot - (v / max) * plot;
  return (
    <svg className="chart chart-lines" width="100%" height={height} aria-hidden="true" focusable="false">
      <text x={0} y={13} className="chart-label">
        {t("admin.charts.highest", { max: formatNumber(max, locale) })}
      </text>
      <svg y={top} width="100%" height={plot} viewBox={`0 0 100 ${plot}`} preserveAspectRatio="none" overflow="visible">
        <line x1={0} x2={100} y1={plot} y2={plot} className="chart-axis" vectorEffect="non-scaling-stroke" />
        <line x1={0} x2={0} y1={0} y2={plot} className="chart-axis" vectorEffect="non-scaling-stroke" />
        {lines.map((l, n) => (
          <polyline
            key={n}
            className={l.className}
            stroke={l.colour}
            fill="none"
            vectorEffect="non-scaling-stroke"
            points={l.values.map((v, i) => `${x(i).toFixed(3)},${y(v).toFixed(1)}`).join(" ")}
          />
        ))}
      </svg>
      {labels.map(([i, text], n) => (
        <text key={n} x={`${x(i)}%`} y={height - 6} textAnchor={n === 0 ? "start" : n === labels.length - 1 ? "end" : "middle"} className="chart-label">
          {text}
        </text>
      ))}
    </svg>
  );
}

/**
 * Lines over time: one line per series (`series` names them, in the order of each point's `values`),
 * with the first, middle and last labels under the axis and the highest value above it.
 */
export function LineChart({ title, points, series, xLabel, empty }: { title: string; points: LinePoint[]; series: string[]; xLabel: string; empty?: string }) {
  const { t, locale } = useT();
  if (points.every((p) => p.values.every((v) => v === 0))) {
    return (
      <ChartFigure title={title}>
        <p className="chart-empty">{empty ?? t("admin.charts.empty")}</p>
      </ChartFigure>
    );
  }
  const max = Math.max(1, ...points.flatMap((p) => p.values));
  const ticks = [...new Set([0, Math.floor((points.length - 1) / 2), points.length - 1])].filter((i) => i >= 0 && i < points.length);
  return (
    <ChartFigure title={title}>
      <LinePlot
        max={max}
        lines={series.map((_, s) => ({ className: `chart-line chart-line-${s}`, values: points.map((p) => p.values[s] ?? 0) }))}
        labels={ticks.map((i) => [i, points[i]!.label])}
      />
      <ul className="chart-legend" aria-hidden="true">
        {series.map((name, s) => (
          <li key={name}>
            <span className={`chart-swatch chart-line-${s}`} /> {name}
          </li>
        ))}
      </ul>
      <table className="visually-hidden">
        <caption>{title}</caption>
        <thead>
          <tr>
            <th scope="col">{xLabel}</th>
            {series.map((name) => (
              <th key={name} scope="col">
                {name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {points.map((p, i) => (
            <tr key={i}>
              <th scope="row">{p.label}</th>
              {p.values.map((v, s) => (
                <td key={s}>{formatNumber(v, locale)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </ChartFigure>
  );
}

function ChartFigure({ title, children }: { title: string; children: ReactNode }) {
  return (
    <figure className="chart-figure">
      <figcaption className="chart-title">{title}</figcaption>
      {children}
    </figure>
  );
}
