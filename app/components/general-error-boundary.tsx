import { isRouteErrorResponse, useRouteError, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { loader as rootLoader } from "~/root";

/** `message` is the thrown response's text, when it has one meant for the visitor (400 and 415). */
type StatusHandler = (props: { status: number; message: string | null }) => JSX.Element;

const defaultHandlers: Record<number, StatusHandler> = {
  404: () => (
    <>
      <h1>Page not found</h1>
      <p>We could not find that page. It may have moved, or the link may be mistyped.</p>
    </>
  ),
  403: () => (
    <>
      <h1>Access Denied</h1>
      <p>You don't have permission to access this area.</p>
      <p>You don't have administrator privileges.</p>
    </>
  ),
  400: ({ message }) => (
    <>
      <h1>Bad request</h1>
      <p>{message ?? "Something in that request was not right. Please check the address and try again."}</p>
    </>
  ),
  413: ({ message }) => (
    <>
      <h1>That was too much to send</h1>
      <p>{message ?? "This form is larger than we accept. Send less at once and try again."}</p>
    </>
  ),
  429: ({ message }) => (
    <>
      <h1>Please slow down</h1>
      <p>{message ?? "Too many requests from your network in a short time. Please wait a moment and try again."}</p>
    </>
  ),
  503: ({ message }) => (
    <>
      <h1>Unavailable for a moment</h1>
      <p>{message ?? "This is unavailable for a moment. Please try again in a few seconds."}</p>
    </>
  ),
  415: ({ message }) => (
    <>
      <h1>This form could not be read</h1>
      <p>{message ?? "Send the form from its own page."}</p>
    </>
  ),
};

/** Statuses whose thrown text is written for the visitor (a form that could not be read, a missing choice). */
const SHOWS_MESSAGE = new Set([400, 413, 415, 429, 503]);

/** The one error boundary: a handler per status, and a calm message for anything unexpected. */
export function GeneralErrorBoundary({ handlers = {} }: { handlers?: Record<number, StatusHandler> }) {
  const error = useRouteError();
  // Undefined when the root loader itself failed; the links then fall back to the main site's.
  const root = useRouteLoaderData<typeof rootLoader>("root");
  const status = isRouteErrorResponse(error) ? error.status : 500;
  const Handler = handlers[status] ?? defaultHandlers[status];
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
            <h1>Something went wrong</h1>
            <p>We could not load this page. Please try again in a moment.</p>
          </>
        )}
      </div>
      <p className="error-actions">
        {root?.site === "admin" && status === 403 ? (
          <a href={root.mainSiteUrl} className="button">
            Back to the main site
          </a>
        ) : (
          <Link to="/" className="button">
            Go to the home page
          </Link>
        )}
        {root?.site === "admin" ? null : <Link to="/help">Visit the help centre</Link>}
      </p>
    </section>
  );
}
