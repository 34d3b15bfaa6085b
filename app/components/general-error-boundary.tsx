import { isRouteErrorResponse, useRouteError, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";
import { useT } from "~/i18n/react";

/** `message` is the thrown response's text, when it has one meant for the visitor (400 and 415). */
type StatusHandler = (props: { status: number; message: string | null }) => JSX.Element;

/** The words of each status's page: a heading and a sentence (the thrown text replaces the sentence where shown). */
const STATUS_WORDS: Record<number, { title: string; text: string; more?: string }> = {
  404: { title: "common.error.notFoundTitle", text: "common.error.notFoundText" },
  403: { title: "common.error.deniedTitle", text: "common.error.deniedText", more: "common.error.deniedAdmin" },
  400: { title: "common.error.badRequestTitle", text: "common.error.badRequestText" },
  // A POST to a page that takes none (an admin screen): not ours to retry.
  405: { title: "common.error.badRequestTitle", text: "common.error.badRequestText" },
  413: { title: "common.error.tooLargeTitle", text: "common.error.tooLargeText" },
  429: { title: "common.error.slowDownTitle", text: "common.error.slowDownText" },
  503: { title: "common.error.unavailableTitle", text: "common.error.unavailableText" },
  415: { title: "common.error.unreadableTitle", text: "common.error.unreadableText" },
};

function DefaultHandler({ status, message }: { status: number; message: string | null }) {
  const { t } = useT();
  const words = STATUS_WORDS[status];
  if (!words) return null;
  return (
    <>
      <h1>{t(words.title)}</h1>
      <p>{message ?? t(words.text)}</p>
      {words.more ? <p>{t(words.more)}</p> : null}
    </>
  );
}

/** Statuses whose thrown text is written for the visitor (a form that could not be read, a missing choice). */
const SHOWS_MESSAGE = new Set([400, 413, 415, 429, 503]);

/** The one error boundary: a handler per status, and a calm message for anything unexpected. */
export function GeneralErrorBoundary({ handlers = {} }: { handlers?: Record<number, StatusHandler> }) {
  const { t } = useT();
  const error = useRouteError();
  // Undefined when the root loader itself failed; the links then fall back to the main site's.
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const Handler = handlers[status] ?? (STATUS_WORDS[status] ? DefaultHandler : undefined);
  const message = isRouteErrorResponse(error) && SHOWS_MESSAGE.has(status) && typeof error.data === "string" && error.data ? error.data : null;
  if (!isRouteErrorResponse(error)) console.error(error);
  return (
    <section className="container error-page" aria-labelledby="error-title">
      <p className="error-code" aria-hidden="true">
        {status}
      </p>
      <div id="error-title">
        {Handler ? (
          <Handler status={status} message={message} />
        ) : (
          <>
            <h1>{t("common.error.title")}</h1>
            <p>{t("common.error.text")}</p>
          </>
        )}
      </div>
      <p className="error-actions">
        {root?.site === "admin" && status === 403 ? (
          <a href={root.mainSiteUrl} className="button">
            {t("common.error.backToMain")}
          </a>
        ) : (
          <Link to="/" className="button">
            {t("common.error.home")}
          </Link>
        )}
        {root?.site === "admin" ? null : <Link to="/help">{t("common.error.help")}</Link>}
      </p>
    </section>
  );
}
