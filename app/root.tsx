import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Links, Meta, Outlet, Scripts, ScrollRestoration, useLoaderData, useLocation, useMatches, useRouteLoaderData } from "@remix-run/react";
import { useEffect, useRef, type ReactNode } from "react";
import { ConsentBanner, consentBannerShown } from "~/components/consent-banner";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { SiteFooter } from "~/components/site-footer";
import { SiteHeader } from "~/components/site-header";
import { AdminHeader } from "~/components/admin-header";
import type { HeaderCounts } from "~/models/notification.server";
import { getUser, getUserWithHeaderCounts } from "~/server/auth.server";
import { readConsent } from "~/server/cookies.server";
import { getDisplayCurrency } from "~/server/currency.server";
import { isDataSaver, SHOW_IMAGE_SCRIPT } from "~/server/data-saver.server";
import { getDb } from "~/server/db.server";
import { getAdminSiteUrl, getMainSiteUrl, getSiteHost } from "~/server/host.server";
import { useNonce } from "~/utils/nonce-provider";
import appStylesUrl from "~/styles/app.css?url";
import { wordsFor } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { categoryWords } from "~/i18n/categories.server";
import { LANGUAGE_DIRECTION } from "~/i18n/locales";
import { FALLBACK_ID, I18nScope, matchedWordsRefs, metaI18n, useFallbackWords, useT } from "~/i18n/react";
import { wordsUrl } from "~/i18n/words";

export const links: LinksFunction = () => [
  { rel: "stylesheet", href: appStylesUrl },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export async function loader({ request, context }: LoaderFunctionArgs) {
  const site = getSiteHost(request);
  // The marketplace's header shows the member's unread counts: read with the session, in one statement.
  const { user, counts } = site === "main" ? await getUserWithHeaderCounts(request) : { user: await getUser(request), counts: null };
  // The page view server.ts recorded for this HTML document (absent for data requests and bots). With
  // analytics allowed, the tracker re-sends it with the same id and time, so the one row gets the tab's
  // session (and a signed-in visitor's user id).
  // Sent as one string, "<eventId> <time>": the page cache (app/server/page-cache.server.ts) stores pages with
  // a placeholder for it and fills in each response's own.
  const view = context.pageview;
  const pageview = view ? `${view.eventId} ${view.time}` : null;
  const consent = readConsent(request.headers.get("Cookie"));
  const currency = await getDisplayCurrency(getDb(), request, user);
  // The member's saved language, else the switcher's cookie, else the browser's Accept-Language (ADR 047).
  const locale = await requestLocale(request);
  /** Data-saver mode (ADR 054): the member's preference, else the visitor's cookie. */
  const dataSaver = isDataSaver(request, user);
  return {
    locale,
    /** The words every page shares (header, footer, banners, forms' checks); each page's loader sends its own. */
    i18n: wordsFor(request, locale, ["common"]),
    /** The categories' names and descriptions in this language (null in English: the rows' own). */
    categoryWords: await categoryWords(locale),
    user: user ? { name: user.name, username: user.username, role: user.role } : null,
    currency,
    /** The member's unread notifications and messages, for the header (the marketplace's only). */
    counts,
    timeZone: user?.timeZone ?? "EAT",
    site,
    mainSiteUrl: getMainSiteUrl(request),
    adminSiteUrl: getAdminSiteUrl(request),
    year: new Date().getFullYear(),
    /** The analytics choice (`soko_consent`), null until the visitor makes one: the banner asks. */
    consent,
    pageview,
    dataSaver,
    // The one script of a data-saver page, sent in its document only: pages with the app's scripts never carry it.
    showImageScript: dataSaver ? SHOW_IMAGE_SCRIPT : null,
  };
}

export const meta: MetaFunction = ({ matches }) => {
  // An action's error page is drawn without the root's data, so without the words of the title: the name alone.
  if (!matches.find((m) => m.id === "root")?.data) return [{ title: "Soko" }];
  const { _ } = metaI18n(matches);
  return [{ title: _("common.meta.title") }, { name: "description", content: _("common.meta.description") }];
};

/** Props that keep a script the browser draws from running (Remix's ScriptProps leave out `type`, hence the cast). */
const INERT_SCRIPT = { type: "text/plain" } as object;

export function Layout({ children }: { children: ReactNode }) {
  return (
    <I18nScope>
      <Document>{children}</Document>
    </I18nScope>
  );
}

function Document({ children }: { children: ReactNode }) {
  const nonce = useNonce();
  const { t, locale } = useT();
  const data = useRouteLoaderData<typeof loader>("root");
  // A page that reads the member's messages as it loads (/messages) returns the counts it leaves behind:
  // the root loader ran beside it and may have counted before the reading.
  const matches = useMatches();
  const freshCounts = matches
    .map((m) => (m.data as { headerCounts?: HeaderCounts } | undefined)?.headerCounts)
    .filter((c): c is HeaderCounts => Boolean(c))
    .at(-1);
  const site = data?.site ?? "main";
  const { pathname } = useLocation();
  // Without the root's data (an action's error page), the common words travel in the document for the browser.
  const fallback = useFallbackWords(data);
  // A data-saver document is sent without the app's scripts and words (ADR 054): it works as every page does
  // without JavaScript, and one inline script shows an image in place. A page already running (switched on in
  // place) keeps its scripts.
  const scriptless = data?.dataSaver === true && typeof document === "undefined";
  return (
    <html lang={locale} dir={LANGUAGE_DIRECTION[locale]}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="theme-color" content="#0f5132" />
        <Meta />
        {data?.pageview ? <meta name="soko-pageview" content={data.pageview} /> : null}
        <Links />
        {/* The page's words (ADR 048): deferred, so they run before the app's module script, which comes later. */}
        {(scriptless ? [] : matchedWordsRefs(matches)).map((ref) => (
          <script key={ref} defer src={wordsUrl(ref)} data-words={ref} nonce={nonce} {...(typeof document === "undefined" ? {} : INERT_SCRIPT)} />
        ))}
        {fallback ? (
          <script
            type="application/json"
            id={FALLBACK_ID}
            nonce={nonce}
            // JSON in a script: "<" escaped so no "</script>" can close it early.
            dangerouslySetInnerHTML={{ __html: JSON.stringify(fallback).replace(/</g, "\\u003c") }}
          />
        ) : null}
      </head>
      <body data-site={site}>
        <a className="skip-link" href="#main">
          {t("common.skipToContent")}
        </a>
        {site === "admin" ? (
          <AdminHeader mainSiteUrl={data?.mainSiteUrl ?? "/"} user={data?.user ?? null} />
        ) : (
          <SiteHeader user={data?.user ?? null} counts={freshCounts ?? data?.counts ?? null} />
        )}
        <main id="main" className="site-main" tabIndex={-1}>
          {children}
        </main>
        {/* After the page in reading order; held at the foot of the screen by CSS until it is answered. */}
        {data && data.consent === null && consentBannerShown(pathname) ? <ConsentBanner /> : null}
        {site === "main" ? <SiteFooter year={data?.year ?? new Date().getFullYear()} /> : null}
        {/* Its script runs once, from the server's page. Drawn again in the browser (an error boundary remounts the
            whole document) it must stay inert: React makes such scripts inert, Preact (ADR 046) would run them. */}
        {scriptless ? (
          <script nonce={nonce} dangerouslySetInnerHTML={{ __html: data?.showImageScript ?? "" }} />
        ) : (
          <>
            <ScrollRestoration nonce={nonce} {...(typeof document === "undefined" ? {} : INERT_SCRIPT)} />
            <Scripts nonce={nonce} />
          </>
        )}
      </body>
    </html>
  );
}

export default function App() {
  const data = useLoaderData<typeof loader>();
  useTracker(data);
  // Marks the document once React has hydrated: end-to-end specs wait for it before clicking.
  useEffect(() => {
    document.documentElement.dataset.hydrated = "true";
  }, []);
  return <Outlet />;
}

/** The server's page view as the tracker takes it, from the root's `"<eventId> <time>"`. */
function pageviewOf(text: string | null): { eventId: string; time: number } | null {
  if (!text) return null;
  const [eventId = "", time = ""] = text.split(" ");
  return { eventId, time: Number(time) };
}

/**
 * Starts the browser tracker (app/analytics/tracker.client.ts, its own small chunk, loaded only with
 * consent) and tells it of every route change, client-side navigations included. Also records the signup
 * conversion and the sign-in user action, seen here as the visitor becoming signed in on leaving the
 * join or sign-in pages.
 */
function useTracker(data: ReturnType<typeof useLoaderData<typeof loader>>) {
  const location = useLocation();
  const granted = data.consent === "granted";
  // What this document started with: the server's page view belongs to its first page only.
  const doc = useRef({ pageview: pageviewOf(data.pageview), path: location.pathname, used: false, lastPath: "", signedIn: Boolean(data.user), seen: "" });
  useEffect(() => {
    const d = doc.current;
    // Once per route change: React's StrictMode runs a new effect twice in development, which would
    // otherwise count every page twice.
    const seen = `${granted} ${location.pathname}${location.search}`;
    if (d.seen === seen) return;
    d.seen = seen;
    const signedIn = Boolean(data.user);
    const becameSignedIn = signedIn && !d.signedIn;
    const from = d.lastPath;
    d.signedIn = signedIn;
    d.lastPath = location.pathname;
    if (data.consent === "denied") {
      // Nothing kept from an earlier "allow" survives the change of mind.
      try {
        localStorage.removeItem("soko_outbox");
        sessionStorage.removeItem("soko_sid");
      } catch {
        /* storage unavailable */
      }
    }
    if (!granted) return;
    const first = !d.used && d.path === location.pathname ? d.pageview : null;
    d.used = true;
    void import("~/analytics/tracker.client").then((tracker) => {
      tracker.pageview(signedIn, first);
      // A signup is a business fact the server records itself (ADR 007); the browser only notes a sign-in.
      if (becameSignedIn && from === "/login") tracker.userAction("signed_in");
    });
    // A route change is a new path or query; loader data changing alone is not one.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [granted, location.pathname, location.search]);
}

/** An error page the root's boundary renders (a 429 or 503 thrown by a loader) keeps the thrown Retry-After. */
export { actionHeaders as headers } from "~/utils/headers";

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
