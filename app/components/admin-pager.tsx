import { Link } from "~/components/link";
import { useT } from "~/i18n/react";

/**
 * Previous and next pages of an admin listing, as links that keep its filters (relative: the screens live
 * under /admin on the main host). Nothing when everything fits on one page. `label` is already in the
 * reader's language.
 */
export function AdminPager({ page, pages, params, label }: { page: number; pages: number; params: URLSearchParams; label: string }) {
  const { t } = useT();
  if (pages <= 1 && page <= 1) return null;
  const to = (n: number) => {
    const p = new URLSearchParams(params);
    if (n > 1) p.set("page", String(n));
    else p.delete("page");
    return `?${p}`;
  };
  return (
    <nav className="admin-pager" aria-label={label}>
      {page > 1 ? (
        <Link to={to(Math.min(page - 1, pages))} rel="prev">
          {t("admin.pager.previous")}
        </Link>
      ) : null}
      <span>{t("admin.pager.pageOf", { page, pages })}</span>
      {page < pages ? (
        <Link to={to(page + 1)} rel="next">
          {t("admin.pager.next")}
        </Link>
      ) : null}
    </nav>
  );
}
