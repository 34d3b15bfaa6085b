import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { CatalogScreen } from "~/components/catalog";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { useCategoryWords } from "~/hooks/use-category-words";
import type { loader as rootLoader } from "~/root";
import { loadCatalog } from "~/server/catalog.server";

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  const category = data?.categories.find((c) => c.slug === data.query.category);
  // The category's name in the reader's language, from the root loader (useCategoryWords' source).
  const words = (matches.find((m) => m.id === "root")?.data as Awaited<ReturnType<typeof rootLoader>> | undefined)?.categoryWords;
  const name = category ? (words?.[category.slug]?.name ?? category.name) : null;
  return [{ title: name ? _("catalog.meta.named", { name }) : _("catalog.browse.metaTitle") }];
};

export async function loader({ request, context }: LoaderFunctionArgs) {
  // The rate limit first (loadCatalog throws a 429 or 503), then the page's words.
  const catalog = await loadCatalog(request, context.clientIp);
  return { ...catalog, ...(await pageMessages(request, ["catalog"])) };
}
export { actionHeaders as headers } from "~/utils/headers";

export default function Browse() {
  const data = useLoaderData<typeof loader>();
  const { t } = useT();
  const { categoryName } = useCategoryWords();
  const category = data.categories.find((c) => c.slug === data.query.category);
  return (
    <CatalogScreen action="/browse" title={category ? categoryName(category.slug, category.name) : t("catalog.browse.title")} noun="services" data={data} />
  );
}
