import type { LinksFunction } from "@remix-run/node";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { FAQ_QUERY_MAX_LENGTH, SUPPORT_EMAIL, SUPPORT_HOURS_KEY, SUPPORT_PHONE, SUPPORT_PHONE_HREF, faqText, searchFaq } from "~/content/faq";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";
import helpStylesUrl from "~/styles/help.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: helpStylesUrl }];

export async function loader({ request }: LoaderFunctionArgs) {
  // `get` takes the first of repeated values; `q[]=x` is simply absent. searchFaq trims and caps the rest, and
  // searches the questions and answers in the reader's language.
  const { query, groups, matchCount } = searchFaq(new URL(request.url).searchParams.get("q"), await requestT(request));
  return { query, groups, matchCount, ...(await pageMessages(request, ["legal"])) };
}

export default function Help() {
  const { query, groups, matchCount } = useLoaderData<typeof loader>();
  const { t } = useT();
  const searching = query !== "";
  return (
    <>
      <section className="hero hero-compact" aria-labelledby="help-title">
        <div className="container">
          <h1 id="help-title">{t("legal.help.title")}</h1>
          <p className="hero-lead">{t("legal.help.lead")}</p>
          <Form method="get" action="/help" className="search-form" role="search">
            <label htmlFor="help-q" className="visually-hidden">
              {t("legal.help.searchLabel")}
            </label>
            {/* key: a new search resets the field to the server's (normalized) query after client navigation */}
            <input
              key={query}
              id="help-q"
              type="search"
              name="q"
              defaultValue={query}
              placeholder={t("legal.help.searchPlaceholder")}
              maxLength={FAQ_QUERY_MAX_LENGTH}
            />
            <button type="submit" className="button">
              {t("legal.help.searchButton")}
            </button>
          </Form>
        </div>
      </section>
      <div className="container help-layout">
        <section aria-labelledby="faq-title" className="faq">
          <h2 id="faq-title">{t("legal.help.faqTitle")}</h2>
          {searching ? (
            <p className="search-summary" role="status">
              {/* The query goes in as an element, never as text: a "<0>" typed into the box stays words, not markup. */}
              {matchCount === 0 ? (
                <T id="legal.help.noResults" values={{ query: <>{query}</> }} components={{ 0: <strong />, 1: <Link to="/help" /> }} />
              ) : (
                <T id="legal.help.matches" values={{ count: matchCount, query: <>{query}</> }} components={{ 0: <Link to="/help" /> }} />
              )}
            </p>
          ) : null}
          {groups.map((group) => (
            <section key={group.id} className="faq-group" aria-labelledby={`faq-${group.id}`}>
              <h3 id={`faq-${group.id}`}>{t(group.title)}</h3>
              {group.items.map((item) => {
                const { question, answer } = faqText(item, t);
                return (
                  <details key={item.id} id={item.id} className="faq-item" open={searching || undefined}>
                    <summary>{question}</summary>
                    <p>{answer}</p>
                  </details>
                );
              })}
            </section>
          ))}
        </section>
        <aside className="panel support-panel" aria-labelledby="support-title">
          <h2 id="support-title">{t("legal.help.supportTitle")}</h2>
          <p>{t("legal.help.supportText", { hours: t(SUPPORT_HOURS_KEY) })}</p>
          {/* The anchors' own children satisfy the linter; <T> puts the message's text (the same) inside them. */}
          <ul className="contact-list">
            <li>
              <T id="legal.help.email" values={{ email: SUPPORT_EMAIL }} components={{ 0: <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a> }} />
            </li>
            <li>
              <T id="legal.help.phone" values={{ phone: SUPPORT_PHONE }} components={{ 0: <a href={SUPPORT_PHONE_HREF}>{SUPPORT_PHONE}</a> }} />
            </li>
            <li>{t("legal.help.office")}</li>
          </ul>
          <h3>{t("legal.help.apiTitle")}</h3>
          <p>
            <T id="legal.help.apiText" components={{ 0: <Link to="/api/docs" /> }} />
          </p>
        </aside>
      </div>
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  return [
    { title: data?.query ? _("legal.help.metaTitleSearch", { query: data.query }) : _("legal.help.metaTitle") },
    { name: "description", content: _("legal.help.metaDescription") },
  ];
};

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
