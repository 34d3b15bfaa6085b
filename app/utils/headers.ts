import type { HeadersFunction } from "@remix-run/node";

/**
 * Passes an action's own headers (such as Retry-After on a 429) on to the document response; Remix drops
 * them for document requests unless the route says so.
 */
export const actionHeaders: HeadersFunction = ({ actionHeaders }) => {
  const headers = new Headers();
  const retryAfter = actionHeaders.get("Retry-After");
  if (retryAfter) headers.set("Retry-After", retryAfter);
  return headers;
};
