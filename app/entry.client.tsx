import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode, Suspense } from "react";
import { hydrateRoot } from "react-dom/client";

/**
 * The browser build runs on Preact (preact/compat in React's place; ADR 046), the development server on React.
 * Preact cannot hydrate `document` itself: it would match the page against the doctype and build a second
 * <html> inside the first. It hydrates a stand-in parent whose only child is the page's <html> element, as
 * Preact's authors suggest for Remix; a new <html> (a remount of the whole page) replaces the one in the document.
 * RemixBrowser suspends until the page's streamed data is decoded: React takes its root as the boundary,
 * Preact needs one of its own (it keeps the server's DOM while it waits).
 */
function hydrationRoot(): Document {
  if (!import.meta.env.SOKO_PREACT) return document;
  const html = document.documentElement;
  // Whichever <html> is in the document now: after an error boundary remounts the page it is Preact's own.
  const replace = (node: Node) => (document.documentElement ? document.replaceChild(node, document.documentElement) : document.appendChild(node));
  return { childNodes: [html], firstChild: html, insertBefore: replace, appendChild: replace } as unknown as Document;
}

startTransition(() => {
  hydrateRoot(
    hydrationRoot(),
    <StrictMode>
      <Suspense fallback={null}>
        <RemixBrowser />
      </Suspense>
    </StrictMode>,
  );
});
