import type { MetaFunction } from "@remix-run/node";
import { GeneralErrorBoundary } from "~/components/general-error-boundary";

/** Any path no other route matches: a real 404 status, rendered inside the site layout. */
export async function loader() {
  throw new Response("Not Found", { status: 404 });
}

export default function NotFound() {
  // Never rendered: the loader always throws, so the ErrorBoundary shows instead.
  return null;
}

export const meta: MetaFunction = () => [{ title: "Page not found | Soko" }, { name: "robots", content: "noindex" }];

export function ErrorBoundary() {
  return <GeneralErrorBoundary />;
}
