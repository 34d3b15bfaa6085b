/**
 * The catalog screens' shared parts: the filter form (a GET form, so the whole state is in the URL and works
 * without JavaScript), the results grid with skeleton cards while a real request is pending, and Load More
 * (a plain link to the next page; with JavaScript it appends the next page in place).
 */
import { Form, useFetcher, useLocation, useNavigation, useSubmit } from "@remix-run/react";
import { T, useT } from "~/i18n/react";
import { usePreferences } from "~/hooks/use-preferences";
import { useCategoryWords } from "~/hooks/use-category-words";
import { Link } from "~/components/link";
import { useEffect, useState, type ReactNode } from "react";
import { GigCard } from "~/components/gig-card";
import type { GigCard as GigCardData } from "~/models/gig.server";
import { catalogSearch, DELIVERY_FILTERS, PRICE_RANGES, QUERY_MAX, RATING_FILTERS, SORTS, type CatalogQuery } from "~/domain/catalog-vocabulary";

/** A choice: its value in the URL and the catalogue key of its label (a category's name is shown as it is). */
type Option = { value: string; label: string };
const options = (record: Record<string, string | { label: string }>): Option[] =>
  Object.entries(record).map(([value, v]) => ({ value, label: typeof v === "string" ? v : v.label }));

/** Best first: object keys that look like integers ("4") would otherwise come before "4.5". */
const RATINGS = options(RATING_FILTERS).sort((a, b) => Number(b.value) - Number(a.value));

function Select({
  name,
  label,
  value,
  all,
  choices,
  keyed = true,
}: {
  name: string;
  label: string;
  value: string | null;
  all?: string;
  choices: Option[];
  /** The choices' labels are catalogue keys (false: names as they are, a category's). */
  keyed?: boolean;
}) {
  const submit = useSubmit();
  const { t } = useT();
  return (
    <div className="field">
      <label htmlFor={`filter-${name}`}>{label}</label>
      <select
        id={`filter-${name}`}
        name={name}
        defaultValue={value ?? ""}
        // With JavaScript a choice applies at once; without it, the Apply button submits the form.
        onChange={(e) => e.currentTarget.form && submit(e.currentTarget.form, { preventScrollReset: true })}
      >
        {all ? <option value="">{all}</option> : null}
        {choices.map((c) => (
          <option key={c.value} value={c.value}>
            {keyed ? t(c.label) : c.label}
          </option>
        ))}
      </select>
    </div>
  );
}

/**
 * The keyword box, and the filters behind a Filters button (a `<details>`: no JavaScript needed), closed at
 * first and saying how many filters are on. Fields are keyed by the URL so they show the state the page was
 * loaded with, also after back/forward; the `<details>` is not, so it stays open while filters change in place.
 */
export function CatalogFilters({
  action,
  query,
  categories,
}: {
  action: "/browse" | "/search";
  query: CatalogQuery;
  categories: { slug: string; name: string }[];
}) {
  const key = useLocation().search;
  const { t } = useT();
  const { categoryName } = useCategoryWords();
  const active = [query.category, query.price, query.rating, query.delivery, query.vetted, query.sort === "relevance" ? null : query.sort].filter(
    Boolean,
  ).length;
  return (
    <Form method="get" action={action} className="catalog-filters" role="search" aria-label={t("catalog.filter.form")}>
      <div className="field field-search">
        <label htmlFor="filter-q" className="visually-hidden">
          {t("catalog.shared.search")}
        </label>
        <input key={key} id="filter-q" type="search" name="q" defaultValue={query.q} maxLength={QUERY_MAX} placeholder={t("catalog.filter.placeholder")} />
        <button type="submit" className="button">
          {t("catalog.shared.search")}
        </button>
      </div>
      <details className="filters">
        <summary className="button button-secondary">{t("catalog.filter.summary", { count: active })}</summary>
        <div className="filter-fields">
          <Select
            key={`category${key}`}
            name="category"
            label={t("catalog.filter.category")}
            value={query.category}
            all={t("catalog.filter.allCategories")}
            choices={categories.map((c) => ({ value: c.slug, label: categoryName(c.slug, c.name) }))}
            keyed={false}
          />
          <Select
            key={`price${key}`}
            name="price"
            label={t("catalog.filter.price")}
            value={query.price}
            all={t("catalog.filter.anyPrice")}
            choices={options(PRICE_RANGES)}
          />
          <Select
            key={`rating${key}`}
            name="rating"
            label={t("catalog.shared.rating")}
            value={query.rating}
            all={t("catalog.filter.anyRating")}
            choices={RATINGS}
          />
          <Select
            key={`delivery${key}`}
            name="delivery"
            label={t("catalog.filter.delivery")}
            value={query.delivery}
            all={t("catalog.filter.anyTime")}
            choices={options(DELIVERY_FILTERS)}
          />
          <div className="checkbox">
            <input key={`vetted${key}`} id="filter-vetted" type="checkbox" name="vetted" value="1" defaultChecked={query.vetted} />
            <label htmlFor="filter-vetted">{t("catalog.vetted.filter")}</label>
          </div>
          <Select key={`sort${key}`} name="sort" label={t("catalog.filter.sort")} value={query.sort} choices={options(SORTS)} />
          <p className="filter-actions">
            <button type="submit" className="button">
              {t("catalog.filter.apply")}
            </button>
            {active ? (
              <Link to={`${action}${catalogSearch({ q: query.q, category: null, price: null, rating: null, delivery: null, sort: "relevance" })}`}>
                {t("catalog.filter.clear")}
              </Link>
            ) : null}
          </p>
        </div>
      </details>
    </Form>
  );
}

export function SkeletonCards({ count = 6 }: { count?: number }) {
  return (
    <ul className="card-grid gig-grid" aria-hidden="true">
      {Array.from({ length: count }, (_, i) => (
        <li key={i}>
          <div className="gig-card skeleton-card" data-testid="skeleton-card">
            <div className="gig-thumb skeleton" />
            <div className="gig-body">
              <p className="skeleton skeleton-line" />
              <p className="skeleton skeleton-line skeleton-short" />
            </div>
          </div>
        </li>
      ))}
    </ul>
  );
}

/** A page of results; `savedGigIds`: which of them the signed-in member saved (their hearts, ADR 052). */
type Page = { gigs: GigCardData[]; nextCursor: string | null; savedGigIds?: number[] };

/**
 * The result grid. While the browser is loading another catalog URL (a filter changed, a search was sent),
 * skeleton cards replace the results: they show only while that real request is pending.
 */
export function CatalogResults({ action, query, page, empty }: { action: "/browse" | "/search"; query: CatalogQuery; page: Page; empty: ReactNode }) {
  const navigation = useNavigation();
  const { t } = useT();
  const fetcher = useFetcher<Page>();
  const [more, setMore] = useState<Page[]>([]);
  const base = catalogSearch({ ...query, cursor: null });

  // A new query starts a new list.
  useEffect(() => setMore([]), [base, page.nextCursor]);
  useEffect(() => {
    const data = fetcher.data;
    if (fetcher.state === "idle" && data && Array.isArray(data.gigs)) {
      setMore((pages) => (pages.some((p) => p.nextCursor === data.nextCursor && p.gigs[0]?.id === data.gigs[0]?.id) ? pages : [...pages, data]));
    }
  }, [fetcher.state, fetcher.data]);

  const loadingCatalog = navigation.state === "loading" && navigation.location.pathname === action;
  if (loadingCatalog) {
    return (
      <div aria-busy="true">
        <p role="status">{t("catalog.list.loading")}</p>
        <SkeletonCards />
      </div>
    );
  }
  if (page.gigs.length === 0) return <>{empty}</>;

  const gigs = [...page.gigs, ...more.flatMap((p) => p.gigs)];
  const saved = new Set([page, ...more].flatMap((p) => p.savedGigIds ?? []));
  const known = Boolean(page.savedGigIds);
  const next = more.length ? more[more.length - 1]!.nextCursor : page.nextCursor;
  const nextHref = next ? `${action}${catalogSearch({ ...query, cursor: next })}` : null;
  return (
    <>
      <ul className="card-grid gig-grid" aria-label={t("catalog.list.label")}>
        {gigs.map((gig) => (
          <li key={gig.id}>
            {/* The screen's h1 is the only heading above the cards: h2, not h3 (Lighthouse's heading-order). */}
            <GigCard gig={gig} headingLevel={2} saved={known ? saved.has(gig.id) : undefined} />
          </li>
        ))}
      </ul>
      {fetcher.state === "loading" ? <SkeletonCards count={3} /> : null}
      <nav className="pager" aria-label={t("catalog.list.more")}>
        {query.cursor ? <Link to={`${action}${base}`}>{t("catalog.list.first")}</Link> : null}
        {nextHref ? (
          <Link
            to={nextHref}
            className="button button-secondary"
            preventScrollReset
            onClick={(e) => {
              // With JavaScript: append the next page here instead of leaving this one.
              e.preventDefault();
              if (fetcher.state === "idle") fetcher.load(nextHref);
            }}
            aria-disabled={fetcher.state !== "idle"}
          >
            {fetcher.state !== "idle" ? t("catalog.list.loadingMore") : t("catalog.list.loadMore")}
          </Link>
        ) : null}
      </nav>
    </>
  );
}

/** How many there are, for each screen's noun: up to 1,000, then "1,000+". */
const COUNT = { services: "catalog.count.services", results: "catalog.count.results" } as const;
const COUNT_OVER = { services: "catalog.count.servicesOver", results: "catalog.count.resultsOver" } as const;
/** Counts above this are said as "1,000+" (the count stops there). */
const COUNT_CAP = 1000;

/** A catalog screen: /browse and /search differ only in their title, their nouns and where the form goes. */
export function CatalogScreen({
  action,
  title,
  noun,
  data,
}: {
  action: "/browse" | "/search";
  title: string;
  /** What the count counts: "12 services" (browse) or "12 results" (search). */
  noun: keyof typeof COUNT;
  data: Page & { query: CatalogQuery; categories: { slug: string; name: string }[]; total: number | null; searchedFor: string | null };
}) {
  const { t } = useT();
  const { number } = usePreferences();
  const total = data.total;
  const count = total === null ? "" : total > COUNT_CAP ? t(COUNT_OVER[noun], { count: number(COUNT_CAP) }) : t(COUNT[noun], { count: total });
  return (
    <section className="container catalog" aria-labelledby="catalog-title">
      <h1 id="catalog-title">{title}</h1>
      <CatalogFilters action={action} query={data.query} categories={data.categories} />
      {data.query.category && !data.categories.some((c) => c.slug === data.query.category) ? (
        // A hidden or unknown category (ADR 026): its filter matches nothing, said plainly.
        <p className="notice" role="note">
          <T id="catalog.list.unknownCategory" components={{ 0: <Link to={action} /> }} />
        </p>
      ) : null}
      <p className="result-count" role="status">
        {count}
        {data.searchedFor ? <> · {t("catalog.list.showingFor", { query: data.searchedFor })}</> : null}
      </p>
      <CatalogResults
        action={action}
        query={data.query}
        page={data}
        empty={
          <div className="empty-state">
            <h2>{t("catalog.list.emptyTitle")}</h2>
            <p>
              <T id="catalog.list.emptyText" components={{ 0: <Link to="/browse" /> }} />
            </p>
          </div>
        }
      />
    </section>
  );
}
