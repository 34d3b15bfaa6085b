import type { HeadersFunction } from "@remix-run/node";

/**
 * Passes Retry-After (a 429 or 503) from an action's answer or a thrown error response on to the document
 * response; Remix drops them for document requests unless the route says so.
 */
export const actionHeaders: HeadersFunction = ({ actionHeaders, errorHeaders }) => {
  const headers = new Headers();
  const retryAfter = actionHeaders.get("Retry-After") ?? errorHeaders?.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return headers;
};
