import type { HeadersFunction } from "@remix-run/node";

/**
 * Passes Retry-After (a 429 or 503) and Allow (a 405) from an action's answer or a thrown error response on to
 * the document response; Remix drops them for document requests unless the route says so.
 */
export const actionHeaders: HeadersFunction = ({ actionHeaders, errorHeaders }) => {
  const headers = new Headers();
  for (const name of ["Retry-After", "Allow"]) {
    const value = actionHeaders.get(name) ?? errorHeaders?.get(name);
    if (value) headers.set(name, value);
  }
  return headers;
};
