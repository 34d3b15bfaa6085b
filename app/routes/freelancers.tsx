import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { DirectoryFilters, type DirectoryFormValues } from "~/components/directory-filters";
import { FreelancerCard } from "~/components/freelancer-card";
import { Link } from "~/components/link";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { listCategoryOptions } from "~/models/category.server";
import { decodeDirectoryCursor, encodeDirectoryCursor, listFreelancers } from "~/models/freelancer-directory.server";
import { savedSellerIdsAmong } from "~/models/saved.server";
import { DirectoryFilters as DirectorySchema } from "~/schemas/directory.server";
import { getUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import directoryStylesUrl from "~/styles/directory.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: directoryStylesUrl }];

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("catalog.directory.metaTitle") }, { name: "description", content: _("catalog.directory.intro") }];
};

const PAGE_SIZE = 20;

const plain = (status: number, text: string) => new Response(text, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });

/**
 * The directory of freelancers (ADR 052): the GET form's filters and sort from the URL, a page of the model the
 * JSON API's GET /users/freelancers reads too, and links to the next and previous pages (`cursor`, `before`: each
 * sort's keyset cursors). A member's hearts come from their own rows.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const params = Object.fromEntries(new URL(request.url).searchParams);
  const parsed = DirectorySchema.safeParse({ ...params, cursor: params.cursor || undefined });
  const before = params.before ? decodeDirectoryCursor(params.before) : null;
  const wrongSort = (c: { sort: string } | null) => c !== null && parsed.success && c.sort !== parsed.data.sort;
  if (!parsed.success || (params.before && !before) || wrongSort(parsed.success ? parsed.data.cursor : null) || wrongSort(before)) {
    throw plain(400, (await requestT(request))("catalog.directory.badQuery"));
  }
  const { cursor, ...filters } = parsed.data;
  const db = getDb();
  const [page, categories, user] = await Promise.all([
    listFreelancers(db, { ...filters, limit: PAGE_SIZE, after: cursor, before }),
    listCategoryOptions(db),
    getUser(request),
  ]);
  const saved = user
    ? await savedSellerIdsAmong(
        db,
        user.id,
        page.items.map((f) => f.id),
      )
    : null;
  const values: DirectoryFormValues = filters;
  return {
    values,
    categories,
    freelancers: page.items.map((f) => ({ ...f, saved: !user ? null : f.id === user.id ? undefined : saved!.includes(f.id) })),
    next: page.next ? encodeDirectoryCursor(page.next) : null,
    previous: page.previous ? encodeDirectoryCursor(page.previous) : null,
    ...(await pageMessages(request, ["catalog"])),
  };
}

/** The address of this search with another page's cursor. */
function pageHref(values: DirectoryFormValues, cursor: { cursor?: string; before?: string }): string {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(values)) {
    if (value === undefined || value === false || value === "") continue;
    q.set(name, value === true ? "1" : String(value));
  }
  if (cursor.cursor) q.set("cursor", cursor.cursor);
  if (cursor.before) q.set("before", cursor.before);
  return `/freelancers?${q.toString()}`;
}

export default function Freelancers() {
  const { values, categories, freelancers, next, previous } = useLoaderData<typeof loader>();
  const { t } = useT();
  return (
    <section className="container directory-page" aria-labelledby="directory-title">
      <h1 id="directory-title">{t("catalog.directory.title")}</h1>
      <p>{t("catalog.directory.intro")}</p>
      <DirectoryFilters values={values} categories={categories} />
      {freelancers.length ? (
        <ul className="freelancer-list" aria-label={t("catalog.directory.results")}>
          {freelancers.map(({ saved, ...f }) => (
            <li key={f.id}>
              <FreelancerCard freelancer={f} saved={saved} />
            </li>
          ))}
        </ul>
      ) : (
        <div className="empty-state">
          <p>{t("catalog.directory.empty")}</p>
          <Link to="/freelancers" className="button">
            {t("catalog.directory.clear")}
          </Link>
        </div>
      )}
      {next || previous ? (
        <nav className="pager" aria-label={t("catalog.directory.pages")}>
          {previous ? (
            <Link to={pageHref(values, { before: previous })} rel="prev">
              {t("catalog.directory.previous")}
            </Link>
          ) : null}
          {next ? (
            <Link to={pageHref(values, { cursor: next })} rel="next">
              {t("catalog.directory.next")}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </section>
  );
}
