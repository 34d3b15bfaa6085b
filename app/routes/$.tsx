import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { isRouteErrorResponse } from "@remix-run/react";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";
import { requestT } from "~/i18n/messages.server";

/**
 * Any path no other route matches, on the host asked (app/utils/site-routes.ts): a real 404 status,
 * rendered inside that host's layout. A POST gets the same answer, not a 405 for a page that is not here.
 * The thrown text is the page's title in the reader's language: a loader that throws sends no messages, so
 * the meta below takes it from the error.
 */
export async function loader({ request }: LoaderFunctionArgs) {
  const t = await requestT(request);
  throw new Response(t("catalog.notFound.pageTitle"), { status: 404, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export const action = loader;

export default function NotFound() {
  // Never rendered: the loader always throws, so the ErrorBoundary shows instead.
  return null;
}

export const meta: MetaFunction = ({ error }) => [
  { title: isRouteErrorResponse(error) && typeof error.data === "string" && error.data ? error.data : "404 | Soko" },
  { name: "robots", content: "noindex" },
];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
