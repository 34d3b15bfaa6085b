import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { clickedPages, heatmap, HEATMAP_DEVICES, HeatmapPage, rangeParam, readOrFailure, type HeatmapDevice } from "~/analytics/insights.server";
import { adminBase, FigureTable, HeatmapGrid, InsightLinks, RangeSelect } from "~/components/analytics-insights";
import { ErrorList } from "~/components/forms";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";

/**
 * `/heatmap?page&range` on the admin host, `/admin/heatmap` on the main host (GET /admin/heatmap):
 * one page's clicks binned on an 80 px grid over the page's outline (insights.server.ts), with the hottest
 * cells in a table. Page and range (default 7d) come from a GET form; the most clicked pages are offered.
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction = () => [{ title: "Click heatmap | Soko Admin" }, { name: "robots", content: "noindex" }];

const DEVICE_WORDS: Record<HeatmapDevice, string> = { mobile: "phones", tablet: "tablets", desktop: "desktops" };

/** The hottest cells listed in the table. */
const TABLE_CELLS = 20;

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const { range, error: rangeError } = rangeParam(url.searchParams, "7d");
  const rawPage = url.searchParams.get("page");
  const page = rawPage === null || rawPage.trim() === "" ? null : HeatmapPage.safeParse(rawPage);
  const pageError = page && !page.success ? (page.error.issues[0]?.message ?? "Choose a page") : null;
  const base = adminBase(url.pathname);
  const client = getClickHouse();
  const rawDevice = url.searchParams.get("device") ?? "";
  const device = (HEATMAP_DEVICES as readonly string[]).includes(rawDevice) ? (rawDevice as HeatmapDevice) : null;
  const deviceError = rawDevice !== "" && !device ? `Choose a device: all, ${HEATMAP_DEVICES.join(", ")}` : null;
  const form = { page: rawPage ?? "", range, device: device ?? "" };
  if (rangeError || pageError || deviceError) {
    return data({ base, form, rangeError, pageError, deviceError, pages: [], map: null, failure: null }, { status: 400 });
  }
  const read = await readOrFailure(
    Promise.all([clickedPages(client, range), page?.success ? heatmap(client, page.data, range, { device }) : Promise.resolve(null)]),
    "Failed to fetch heatmap data",
  );
  if (!read.ok) return data({ base, form, rangeError, pageError, deviceError, pages: [], map: null, failure: read.message }, { status: 503 });
  const [pages, map] = read.value;
  return { base, form, rangeError, pageError, deviceError, pages, map, failure: null };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminHeatmap() {
  const { base, form, rangeError, pageError, deviceError, pages, map, failure } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.location?.pathname.endsWith("/heatmap");
  return (
    <section className="container insights" aria-labelledby="heatmap-title">
      <h1 id="heatmap-title">Click heatmap</h1>
      <InsightLinks base={base} />
      <Form method="get" className="insight-form">
        <div className="field">
          <label htmlFor="heatmap-page">Page</label>
          <input
            id="heatmap-page"
            name="page"
            type="text"
            list="clicked-pages"
            defaultValue={form.page}
            placeholder="/gig/12"
            maxLength={500}
            aria-invalid={pageError ? true : undefined}
            aria-describedby={pageError ? "page-error" : undefined}
          />
          <datalist id="clicked-pages">
            {pages.map((p) => (
              <option key={p.page} value={p.page} />
            ))}
          </datalist>
          <ErrorList id="page-error" errors={pageError ? [pageError] : undefined} />
        </div>
        <RangeSelect value={form.range} error={rangeError} />
        <div className="field">
          <label htmlFor="heatmap-device">Device</label>
          <select
            id="heatmap-device"
            name="device"
            defaultValue={form.device}
            aria-invalid={deviceError ? true : undefined}
            aria-describedby={deviceError ? "device-error" : undefined}
          >
            <option value="">All devices</option>
            <option value="mobile">Phones</option>
            <option value="tablet">Tablets</option>
            <option value="desktop">Desktops</option>
          </select>
          <ErrorList id="device-error" errors={deviceError ? [deviceError] : undefined} />
        </div>
        <button type="submit" className="button" disabled={loading}>
          {loading ? "Loading…" : "Show heatmap"}
        </button>
      </Form>
      <ErrorList errors={failure ? [failure] : undefined} />

      {map ? (
        <>
          <h2>{map.page}</h2>
          {form.device ? <p>Clicks on {DEVICE_WORDS[form.device as HeatmapDevice]} only.</p> : null}
          <p>
            {map.clicks} {map.clicks === 1 ? "click" : "clicks"} with a position
            {map.unplaced > 0 ? `, and ${map.unplaced} without one (pressed by keyboard or script, not drawn)` : ""}. Each cell is {map.cellPx} × {map.cellPx}{" "}
            CSS pixels of a page {map.columns * map.cellPx} pixels wide; clicks further right or lower are in the last column or row.
          </p>
          <HeatmapGrid
            title={`Clicks on ${map.page}`}
            cells={Array.from({ length: map.rows }, (_, row) =>
              Array.from({ length: map.columns }, (_, col) => map.cells.find((c) => c.row === row && c.col === col)?.clicks ?? 0),
            )}
          />
          {map.cells.length === 0 ? (
            <p>No clicks on this page in the range.</p>
          ) : (
            <FigureTable
              caption={`Hottest cells of ${map.page} (top ${Math.min(TABLE_CELLS, map.cells.length)} of ${map.cells.length})`}
              head={["Across (px)", "Down (px)", "Clicks"]}
            >
              {map.cells.slice(0, TABLE_CELLS).map((c) => (
                <tr key={`${c.row}-${c.col}`}>
                  <td>
                    {c.col * map.cellPx}–{c.col * map.cellPx + map.cellPx - 1}
                  </td>
                  <td>
                    {c.row * map.cellPx}–{c.row * map.cellPx + map.cellPx - 1}
                  </td>
                  <td>{c.clicks}</td>
                </tr>
              ))}
            </FigureTable>
          )}
        </>
      ) : null}

      <h2>Most clicked pages</h2>
      {failure ? null : pages.length === 0 ? (
        <p>No clicks in the range.</p>
      ) : (
        <FigureTable caption="Pages with the most clicks in the range" head={["Page", "Clicks"]}>
          {pages.map((p) => (
            <tr key={p.page}>
              <td>
                <a href={`${base}/heatmap?${new URLSearchParams({ page: p.page, range: form.range })}`}>{p.page}</a>
              </td>
              <td>{p.clicks}</td>
            </tr>
          ))}
        </FigureTable>
      )}
    </section>
  );
}
