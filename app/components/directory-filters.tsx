/**
 * The freelancer directory's filters (/freelancers): a GET form, so it works without JavaScript (Show freelancers
 * submits it) and every page of results is a link. Fields are keyed by the URL so they show the state the page
 * was loaded with, also after back/forward.
 */
import { Form, useLocation, useNavigation } from "@remix-run/react";
import { Link } from "~/components/link";
import { LEVEL_KEY, type Level } from "~/domain/catalog-vocabulary";
import { useCategoryWords } from "~/hooks/use-category-words";
import { useT } from "~/i18n/react";

export type DirectoryFormValues = {
  category?: string;
  skill?: string;
  level?: Level;
  location?: string;
  language?: string;
  rating?: number;
  vetted?: boolean;
  sort: "rating" | "level" | "active";
};

const SELLER_LEVELS: Level[] = ["new", "level_1", "level_2", "top_rated"];
const RATINGS = [4.5, 4, 3];
const SORT_KEY = { rating: "catalog.directory.sort.rating", level: "catalog.directory.sort.level", active: "catalog.directory.sort.active" } as const;

export function DirectoryFilters({ values: v, categories }: { values: DirectoryFormValues; categories: { slug: string; name: string }[] }) {
  const key = useLocation().search;
  const { t } = useT();
  const { categoryName } = useCategoryWords();
  const busy = useNavigation().state === "loading";
  const active = [v.category, v.skill, v.level, v.location, v.language, v.rating, v.vetted].filter((x) => x !== undefined && x !== false).length;
  return (
    <Form method="get" action="/freelancers" className="directory-filters" aria-label={t("catalog.directory.filters")} key={key}>
      <div className="filter-fields">
        <div className="field">
          <label htmlFor="dir-category">{t("catalog.directory.category")}</label>
          <select id="dir-category" name="category" defaultValue={v.category ?? ""}>
            <option value="">{t("catalog.directory.anyCategory")}</option>
            {categories.map((c) => (
              <option key={c.slug} value={c.slug}>
                {categoryName(c.slug, c.name)}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="dir-skill">{t("catalog.directory.skill")}</label>
          <input id="dir-skill" name="skill" type="text" maxLength={40} defaultValue={v.skill ?? ""} />
        </div>
        <div className="field">
          <label htmlFor="dir-level">{t("catalog.directory.level")}</label>
          <select id="dir-level" name="level" defaultValue={v.level ?? ""}>
            <option value="">{t("catalog.directory.anyLevel")}</option>
            {SELLER_LEVELS.map((level) => (
              <option key={level} value={level}>
                {t(LEVEL_KEY[level])}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="dir-location">{t("catalog.directory.location")}</label>
          <input id="dir-location" name="location" type="text" maxLength={100} defaultValue={v.location ?? ""} />
        </div>
        <div className="field">
          <label htmlFor="dir-language">{t("catalog.directory.language")}</label>
          <input id="dir-language" name="language" type="text" maxLength={40} defaultValue={v.language ?? ""} />
        </div>
        <div className="field">
          <label htmlFor="dir-rating">{t("catalog.directory.rating")}</label>
          <select id="dir-rating" name="rating" defaultValue={v.rating === undefined ? "" : String(v.rating)}>
            <option value="">{t("catalog.directory.anyRating")}</option>
            {RATINGS.map((r) => (
              <option key={r} value={String(r)}>
                {t("catalog.directory.ratingAtLeast", { rating: r })}
              </option>
            ))}
          </select>
        </div>
        <div className="field field-check">
          <input id="dir-vetted" name="vetted" type="checkbox" value="1" defaultChecked={Boolean(v.vetted)} />
          <label htmlFor="dir-vetted">{t("catalog.directory.vettedOnly")}</label>
        </div>
        <div className="field">
          <label htmlFor="dir-sort">{t("catalog.directory.sortBy")}</label>
          <select id="dir-sort" name="sort" defaultValue={v.sort}>
            {(Object.keys(SORT_KEY) as (keyof typeof SORT_KEY)[]).map((sort) => (
              <option key={sort} value={sort}>
                {t(SORT_KEY[sort])}
              </option>
            ))}
          </select>
        </div>
      </div>
      <p className="filter-actions">
        <button type="submit" className="button" aria-busy={busy || undefined}>
          {busy ? t("catalog.directory.showing") : t("catalog.directory.show")}
        </button>
        {active ? <Link to="/freelancers">{t("catalog.directory.clear")}</Link> : null}
      </p>
    </Form>
  );
}
