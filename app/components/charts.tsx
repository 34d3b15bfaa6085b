/**
 * Server-rendered SVG charts for the admin screens: drawn in the HTML, so they read the same without
 * JavaScript. The picture is for the eye (`aria-hidden`); each chart's numbers are in a table beside it
 * (visually hidden, read by screen readers), with the chart's title as the table's caption.
 */
import type { ReactNode } from "react";

export type BarDatum = { label: string; value: number; note?: string };

const BAR_HEIGHT = 22;
const BAR_GAP = 6;
const LABEL_WIDTH = 150;
const VALUE_WIDTH = 90;
const CHART_WIDTH = 560;

/** Cuts a long label for the picture (the table keeps it whole). */
function short(label: string, max = 22): string {
  return label.length > max ? `${label.slice(0, max - 1)}…` : label;
}

/**
 * Horizontal bars, one per row, longest first as given. `format` writes a value (default: grouped whole
 * numbers); `columns` names the table's two columns.
 */
export function BarChart({
  title,
  data,
  columns,
  format = (n) => n.toLocaleString("en-US"),
  empty = "No data for this period.",
}: {
  title: string;
  data: BarDatum[];
  columns: [string, string];
  format?: (n: number) => string;
  empty?: string;
}) {
  const max = Math.max(1, ...data.map((d) => d.value));
  const height = data.length * (BAR_HEIGHT + BAR_GAP);
  const barSpace = CHART_WIDTH - LABEL_WIDTH - VALUE_WIDTH;
  return (
    <ChartFigure title={title}>
      {data.length === 0 ? (
        <p className="chart-empty">{empty}</p>
      ) : (
        <>
          <svg className="chart" viewBox={`0 0 ${CHART_WIDTH} ${height}`} width="100%" aria-hidden="true" focusable="false" preserveAspectRatio="xMinYMin meet">
            {data.map((d, i) => {
              const y = i * (BAR_HEIGHT + BAR_GAP);
              const width = Math.max(d.value > 0 ? 2 : 0, Math.round((d.value / max) * barSpace));
              return (
                <g key={`${d.label}-${i}`}>
                  <text x={LABEL_WIDTH - 8} y={y + BAR_HEIGHT / 2} textAnchor="end" dominantBaseline="central" className="chart-label">
                    {short(d.label)}
                  </text>
                  <rect x={LABEL_WIDTH} y={y} width={width} height={BAR_HEIGHT} rx={3} className="chart-bar" />
                  <text x={LABEL_WIDTH + width + 6} y={y + BAR_HEIGHT / 2} dominantBaseline="central" className="chart-value">
                    {format(d.value)}
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
                    {format(d.value)}
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

const LINE_HEIGHT = 200;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

/**
 * Lines over time: one line per series (`series` names them, in the order of each point's `values`),
 * with the first, middle and last labels under the axis and the highest value beside it.
 */
export function LineChart({
  title,
  points,
  series,
  xLabel,
  empty = "No data for this period.",
}: {
  title: string;
  points: LinePoint[];
  series: string[];
  xLabel: string;
  empty?: string;
}) {
  if (points.every((p) => p.values.every((v) => v === 0))) {
    return (
      <ChartFigure title={title}>
        <p className="chart-empty">{empty}</p>
      </ChartFigure>
    );
  }
  const max = Math.max(1, ...points.flatMap((p) => p.values));
  const plotWidth = CHART_WIDTH - PAD.left - PAD.right;
  const plotHeight = LINE_HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (points.length <= 1 ? plotWidth / 2 : (i / (points.length - 1)) * plotWidth);
  const y = (v: number) => PAD.top + plotHeight - (v / max) * plotHeight;
  const ticks = [...new Set([0, Math.floor((points.length - 1) / 2), points.length - 1])].filter((i) => i >= 0 && i < points.length);
  return (
    <ChartFigure title={title}>
      <svg className="chart" viewBox={`0 0 ${CHART_WIDTH} ${LINE_HEIGHT}`} width="100%" aria-hidden="true" focusable="false">
        <line x1={PAD.left} x2={CHART_WIDTH - PAD.right} y1={PAD.top + plotHeight} y2={PAD.top + plotHeight} className="chart-axis" />
        <line x1={PAD.left} x2={PAD.left} y1={PAD.top} y2={PAD.top + plotHeight} className="chart-axis" />
        <text x={PAD.left - 6} y={PAD.top} textAnchor="end" dominantBaseline="central" className="chart-label">
          {max.toLocaleString("en-US")}
        </text>
        <text x={PAD.left - 6} y={PAD.top + plotHeight} textAnchor="end" dominantBaseline="central" className="chart-label">
          0
        </text>
        {ticks.map((i) => (
          <text key={i} x={x(i)} y={LINE_HEIGHT - 8} textAnchor={i === 0 ? "start" : i === points.length - 1 ? "end" : "middle"} className="chart-label">
            {points[i]!.label}
          </text>
        ))}
        {series.map((name, s) => (
          <polyline
            key={name}
            className={`chart-line chart-line-${s}`}
            fill="none"
            points={points.map((p, i) => `${x(i).toFixed(1)},${y(p.values[s] ?? 0).toFixed(1)}`).join(" ")}
          />
        ))}
      </svg>
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
                <td key={s}>{v.toLocaleString("en-US")}</td>
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
