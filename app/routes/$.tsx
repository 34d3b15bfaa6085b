import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";

/**
 * Any path no other route matches, on the host asked (app/utils/site-routes.ts): a real 404 status,
 * rendered inside that host's layout. A POST gets the same answer, not a 405 for a page that is not here.
 */
export async function loader() {
  throw new Response("Not Found", { status: 404 });
}

export const action = loader;

export default function NotFound() {
  // Never rendered: the loader always throws, so the ErrorBoundary shows instead.
  return null;
}

export const meta: MetaFunction = () => [{ title: "Page not found | Soko" }, { name: "robots", content: "noindex" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
