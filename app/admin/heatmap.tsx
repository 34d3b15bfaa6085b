import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation } from "@remix-run/react";
import { getClickHouse } from "~/analytics/clickhouse.server";
import { clickedPages, heatmap, HEATMAP_DEVICES, HeatmapPage, rangeParam, readOrFailure, type HeatmapDevice } from "~/analytics/insights.server";
import { adminBase, FigureTable, HeatmapGrid, InsightLinks, RangeSelect } from "~/components/analytics-insights";
import { ErrorList } from "~/components/forms";
import { msg } from "~/i18n/message-key";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import insightsStylesUrl from "~/styles/insights.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

/**
 * `/heatmap?page&range` on the admin host, `/admin/heatmap` on the main host (GET /admin/heatmap):
 * one page's clicks binned on an 80 px grid over the page's outline (insights.server.ts), with the hottest
 * cells in a table. Page and range (default 7d) come from a GET form; the most clicked pages are offered.
 */
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: insightsStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.heatmap.title") }, { name: "robots", content: "noindex" }];
};

/** "Clicks on phones only.": the device filter's sentence, per device. */
const DEVICE_ONLY: Record<HeatmapDevice, string> = {
  mobile: "admin.heatmap.onlyMobile",
  tablet: "admin.heatmap.onlyTablet",
  desktop: "admin.heatmap.onlyDesktop",
};

/** The page field's example: a path, the same in every language. */
const EXAMPLE_PAGE = "/gig/12";

/** The hottest cells listed in the table. */
const TABLE_CELLS = 20;

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const url = new URL(request.url);
  const { range, error: rangeError } = rangeParam(url.searchParams, "7d");
  const words = await pageMessages(request, ["admin"]);
  const rawPage = url.searchParams.get("page");
  const page = rawPage === null || rawPage.trim() === "" ? null : HeatmapPage.safeParse(rawPage);
  const pageError = page && !page.success ? (page.error.issues[0]?.message ?? "admin.heatmap.choosePage") : null;
  const base = adminBase(url.pathname);
  const client = getClickHouse();
  const rawDevice = url.searchParams.get("device") ?? "";
  const device = (HEATMAP_DEVICES as readonly string[]).includes(rawDevice) ? (rawDevice as HeatmapDevice) : null;
  const deviceError = rawDevice !== "" && !device ? msg("admin.heatmap.chooseDevice", { devices: HEATMAP_DEVICES.join(", ") }) : null;
  const form = { page: rawPage ?? "", range, device: device ?? "" };
  if (rangeError || pageError || deviceError) {
    return data({ base, form, rangeError, pageError, deviceError, pages: [], map: null, failure: null, ...words }, { status: 400 });
  }
  // The log keeps the English; the page says the catalogue's words.
  const read = await readOrFailure(
    Promise.all([clickedPages(client, range), page?.success ? heatmap(client, page.data, range, { device }) : Promise.resolve(null)]),
    "Failed to fetch heatmap data",
  );
  if (!read.ok) {
    return data({ base, form, rangeError, pageError, deviceError, pages: [], map: null, failure: "admin.heatmap.failed", ...words }, { status: 503 });
  }
  const [pages, map] = read.value;
  return { base, form, rangeError, pageError, deviceError, pages, map, failure: null, ...words };
}

export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminHeatmap() {
  const { base, form, rangeError, pageError, deviceError, pages, map, failure } = useLoaderData<typeof loader>();
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.location?.pathname.endsWith("/heatmap");
  const { t } = useT();
  return (
    <section className="container insights" aria-labelledby="heatmap-title">
      <h1 id="heatmap-title">{t("admin.heatmap.heading")}</h1>
      <InsightLinks base={base} />
      <Form method="get" className="insight-form">
        <div className="field">
          <label htmlFor="heatmap-page">{t("admin.heatmap.page")}</label>
          <input
            id="heatmap-page"
            name="page"
            type="text"
            list="clicked-pages"
            defaultValue={form.page}
            placeholder={EXAMPLE_PAGE}
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
          <label htmlFor="heatmap-device">{t("admin.heatmap.device")}</label>
          <select
            id="heatmap-device"
            name="device"
            defaultValue={form.device}
            aria-invalid={deviceError ? true : undefined}
            aria-describedby={deviceError ? "device-error" : undefined}
          >
            <option value="">{t("admin.heatmap.allDevices")}</option>
            <option value="mobile">{t("admin.heatmap.phones")}</option>
            <option value="tablet">{t("admin.heatmap.tablets")}</option>
            <option value="desktop">{t("admin.heatmap.desktops")}</option>
          </select>
          <ErrorList id="device-error" errors={deviceError ? [deviceError] : undefined} />
        </div>
        <button type="submit" className="button" disabled={loading}>
          {loading ? t("admin.heatmap.loading") : t("admin.heatmap.show")}
        </button>
      </Form>
      <ErrorList errors={failure ? [failure] : undefined} />

      {map ? (
        <>
          <h2>{map.page}</h2>
          {form.device ? <p>{t(DEVICE_ONLY[form.device as HeatmapDevice])}</p> : null}
          <p>
            {map.unplaced > 0
              ? t("admin.heatmap.clicksUnplaced", { count: map.clicks, unplaced: map.unplaced })
              : t("admin.heatmap.clicks", { count: map.clicks })}{" "}
            {t("admin.heatmap.cells", { cell: map.cellPx, width: map.columns * map.cellPx })}
          </p>
          <HeatmapGrid
            title={t("admin.heatmap.clicksOn", { page: map.page })}
            cells={Array.from({ length: map.rows }, (_, row) =>
              Array.from({ length: map.columns }, (_, col) => map.cells.find((c) => c.row === row && c.col === col)?.clicks ?? 0),
            )}
          />
          {map.cells.length === 0 ? (
            <p>{t("admin.heatmap.noClicksOnPage")}</p>
          ) : (
            <FigureTable
              caption={t("admin.heatmap.hottest", { page: map.page, shown: Math.min(TABLE_CELLS, map.cells.length), total: map.cells.length })}
              head={[t("admin.heatmap.colAcross"), t("admin.heatmap.colDown"), t("admin.heatmap.colClicks")]}
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

      <h2>{t("admin.heatmap.mostClicked")}</h2>
      {failure ? null : pages.length === 0 ? (
        <p>{t("admin.heatmap.noClicks")}</p>
      ) : (
        <FigureTable caption={t("admin.heatmap.mostClickedCaption")} head={[t("admin.heatmap.page"), t("admin.heatmap.colClicks")]}>
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
