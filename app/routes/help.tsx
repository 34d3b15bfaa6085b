import type { LinksFunction } from "@remix-run/node";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Form, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { FAQ_QUERY_MAX_LENGTH, SUPPORT_EMAIL, SUPPORT_HOURS, SUPPORT_PHONE, SUPPORT_PHONE_HREF, searchFaq } from "~/content/faq";
import helpStylesUrl from "~/styles/help.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: helpStylesUrl }];

export async function loader({ request }: LoaderFunctionArgs) {
  // `get` takes the first of repeated values; `q[]=x` is simply absent. searchFaq trims and caps the rest.
  const { query, groups, matchCount } = searchFaq(new URL(request.url).searchParams.get("q"));
  return { query, groups, matchCount };
}

export default function Help() {
  const { query, groups, matchCount } = useLoaderData<typeof loader>();
  const searching = query !== "";
  return (
    <>
      <section className="hero hero-compact" aria-labelledby="help-title">
        <div className="container">
          <h1 id="help-title">How it works: Help centre</h1>
          <p className="hero-lead">Answers about hiring, selling, payments and orders on Soko.</p>
          <Form method="get" action="/help" className="search-form" role="search">
            <label htmlFor="help-q" className="visually-hidden">
              Search the help centre
            </label>
            {/* key: a new search resets the field to the server's (normalized) query after client navigation */}
            <input
              key={query}
              id="help-q"
              type="search"
              name="q"
              defaultValue={query}
              placeholder="Search questions, e.g. “fees” or “escrow”"
              maxLength={FAQ_QUERY_MAX_LENGTH}
            />
            <button type="submit" className="button">
              Search
            </button>
          </Form>
        </div>
      </section>
      <div className="container help-layout">
        <section aria-labelledby="faq-title" className="faq">
          <h2 id="faq-title">Frequently asked questions</h2>
          {searching ? (
            <p className="search-summary" role="status">
              {matchCount === 0 ? (
                <>
                  <strong>No results found</strong> for “{query}”. Try another word, or <Link to="/help">show all questions</Link>.
                </>
              ) : (
                <>
                  {matchCount} {matchCount === 1 ? "question matches" : "questions match"} “{query}”. <Link to="/help">Show all questions</Link>
                </>
              )}
            </p>
          ) : null}
          {groups.map((group) => (
            <section key={group.id} className="faq-group" aria-labelledby={`faq-${group.id}`}>
              <h3 id={`faq-${group.id}`}>{group.title}</h3>
              {group.items.map((item) => (
                <details key={item.id} id={item.id} className="faq-item" open={searching || undefined}>
                  <summary>{item.question}</summary>
                  <p>{item.answer}</p>
                </details>
              ))}
            </section>
          ))}
        </section>
        <aside className="panel support-panel" aria-labelledby="support-title">
          <h2 id="support-title">Still need help?</h2>
          <p>Our support team is in Kampala and answers {SUPPORT_HOURS}.</p>
          <ul className="contact-list">
            <li>
              Email: <a href={`mailto:${SUPPORT_EMAIL}`}>{SUPPORT_EMAIL}</a>
            </li>
            <li>
              Phone: <a href={SUPPORT_PHONE_HREF}>{SUPPORT_PHONE}</a>
            </li>
            <li>Office: Kampala, Uganda</li>
          </ul>
          <h3>Building an app?</h3>
          <p>
            Our JSON API does what the website does. The <Link to="/api/docs">API reference</Link> lists every call.
          </p>
        </aside>
      </div>
    </>
  );
}

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data?.query ? `“${data.query}” in Help centre | Soko` : "How it works: Help centre | Soko" },
  {
    name: "description",
    content: "How Soko works: fees, escrow payments, payouts, orders, disputes and how to contact support.",
  },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
