import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { GigCard } from "~/components/gig-card";
import { categoryInitials } from "~/domain/catalog-vocabulary";
import { listFeaturedGigs } from "~/models/catalog-search.server";
import { listCategories } from "~/models/category.server";
import { getDb } from "~/server/db.server";
import { getUser } from "~/server/auth.server";
import { savedGigIdsAmong } from "~/models/saved.server";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";
import { useCategoryWords } from "~/hooks/use-category-words";

/** The main host's home page (the admin host's `/` is the admin dashboard: app/utils/site-routes.ts). */
export async function loader({ request }: LoaderFunctionArgs) {
  const db = getDb();
  const [categories, featured, messages, user] = await Promise.all([
    listCategories(db),
    listFeaturedGigs(db),
    pageMessages(request, ["catalog"]),
    getUser(request),
  ]);
  // A member's hearts, from their own rows (ADR 052); a visitor's page has none.
  const savedGigIds = user
    ? await savedGigIdsAmong(
        db,
        user.id,
        featured.map((g) => g.id),
      )
    : null;
  return { categories, featured, savedGigIds, ...messages };
}

export default function Index() {
  const data = useLoaderData<typeof loader>();
  const { t } = useT();
  const { categoryName, categoryDescription } = useCategoryWords();
  return (
    <>
      <Hero />
      <WhatIsSoko />
      <section className="section section-alt" aria-labelledby="categories-title">
        <div className="container">
          <h2 id="categories-title">{t("catalog.home.categoriesTitle")}</h2>
          <ul className="card-grid category-grid">
            {data.categories.map((category) => (
              <li key={category.id}>
                <Link to={`/browse?category=${encodeURIComponent(category.slug)}`} className="category-card">
                  <span className={`category-badge cat-${category.slug}`} aria-hidden="true">
                    {/* The English name's initials: the badge looks the same in every language. */}
                    {categoryInitials(category.name)}
                  </span>
                  <span className="category-name">{categoryName(category.slug, category.name)}</span>
                  <span className="category-description">{categoryDescription(category.slug, category.description)}</span>
                  <span className="category-count">{t("catalog.count.services", { count: category.gigCount })}</span>
                </Link>
              </li>
            ))}
          </ul>
        </div>
      </section>
      <section className="section" aria-labelledby="featured-title">
        <div className="container">
          <div className="section-head">
            <h2 id="featured-title">{t("catalog.home.featuredTitle")}</h2>
            <Link to="/browse">{t("catalog.home.viewAll")}</Link>
          </div>
          {data.featured.length > 0 ? (
            <ul className="card-grid gig-grid">
              {data.featured.map((gig) => (
                <li key={gig.id}>
                  <GigCard gig={gig} saved={data.savedGigIds?.includes(gig.id)} />
                </li>
              ))}
            </ul>
          ) : (
            <p>
              <T id="catalog.home.noFeatured" components={{ 0: <Link to="/freelancer/register" /> }} />
            </p>
          )}
        </div>
      </section>
      <HowItWorks />
      <WhyChooseSoko />
      <section className="section cta" aria-labelledby="cta-title">
        <div className="container">
          <h2 id="cta-title">{t("catalog.home.ctaTitle")}</h2>
          <p>{t("catalog.home.ctaText")}</p>
          <p className="cta-actions">
            <Link to="/register" className="button button-light">
              {t("catalog.home.join")}
            </Link>
            <Link to="/freelancer/register" className="cta-link">
              {t("catalog.shared.becomeSeller")}
            </Link>
          </p>
        </div>
      </section>
    </>
  );
}

function Hero() {
  const { t } = useT();
  return (
    <section className="hero" aria-labelledby="hero-title">
      <div className="container">
        <h1 id="hero-title">{t("catalog.home.heroTitle")}</h1>
        <p className="hero-lead">{t("catalog.home.heroLead")}</p>
        <Form method="get" action="/search" className="search-form" role="search">
          <label htmlFor="hero-q" className="visually-hidden">
            {t("catalog.home.searchLabel")}
          </label>
          <input id="hero-q" type="search" name="q" placeholder={t("catalog.home.searchPlaceholder")} maxLength={200} autoComplete="off" />
          <button type="submit" className="button">
            {t("catalog.shared.search")}
          </button>
        </Form>
        <p className="hero-actions">
          <Link to="/register" className="button button-light">
            {t("catalog.home.getStarted")}
          </Link>
          <Link to="/help" className="hero-link">
            {t("catalog.shared.howItWorks")}
          </Link>
        </p>
      </div>
    </section>
  );
}

function WhatIsSoko() {
  const { t } = useT();
  return (
    <section className="section" aria-labelledby="what-title">
      <div className="container">
        <h2 id="what-title">{t("catalog.home.whatTitle")}</h2>
        <p className="section-lead">{t("catalog.home.whatLead")}</p>
        <div className="card-grid two-up">
          <article className="panel">
            <h3>{t("catalog.home.forBusinesses")}</h3>
            <ul className="check-list">
              <li>{t("catalog.home.business1")}</li>
              <li>{t("catalog.home.business2")}</li>
              <li>{t("catalog.home.business3")}</li>
            </ul>
            <Link to="/browse">{t("catalog.home.browseServices")}</Link>
          </article>
          <article className="panel">
            <h3>{t("catalog.home.forFreelancers")}</h3>
            <ul className="check-list">
              <li>{t("catalog.home.freelancer1")}</li>
              <li>{t("catalog.home.freelancer2")}</li>
              <li>{t("catalog.home.freelancer3")}</li>
            </ul>
            <Link to="/freelancer/register">{t("catalog.shared.becomeSeller")}</Link>
          </article>
        </div>
      </div>
    </section>
  );
}

/** The steps' words, as catalogue keys. */
const steps = [
  { title: "catalog.home.step1Title", text: "catalog.home.step1Text" },
  { title: "catalog.home.step2Title", text: "catalog.home.step2Text" },
  { title: "catalog.home.step3Title", text: "catalog.home.step3Text" },
  { title: "catalog.home.step4Title", text: "catalog.home.step4Text" },
];

function HowItWorks() {
  const { t } = useT();
  return (
    <section className="section section-alt" aria-labelledby="how-title">
      <div className="container">
        <h2 id="how-title">{t("catalog.shared.howItWorks")}</h2>
        <ol className="card-grid steps">
          {steps.map((step, index) => (
            <li key={step.title} className="step">
              <span className="step-number" aria-hidden="true">
                {index + 1}
              </span>
              <h3>{t(step.title)}</h3>
              <p>{t(step.text)}</p>
            </li>
          ))}
        </ol>
      </div>
    </section>
  );
}

/** The reasons' words, as catalogue keys. */
const reasons = [
  { title: "catalog.home.reason1Title", text: "catalog.home.reason1Text" },
  { title: "catalog.home.reason2Title", text: "catalog.home.reason2Text" },
  { title: "catalog.home.reason3Title", text: "catalog.home.reason3Text" },
  { title: "catalog.home.reason4Title", text: "catalog.home.reason4Text" },
];

function WhyChooseSoko() {
  const { t } = useT();
  return (
    <section className="section" aria-labelledby="why-title">
      <div className="container">
        <h2 id="why-title">{t("catalog.home.whyTitle")}</h2>
        <ul className="card-grid reasons">
          {reasons.map((reason) => (
            <li key={reason.title} className="panel">
              <h3>{t(reason.title)}</h3>
              <p>{t(reason.text)}</p>
            </li>
          ))}
        </ul>
      </div>
    </section>
  );
}

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("catalog.home.metaTitle") }, { name: "description", content: _("catalog.home.metaDescription") }];
};
