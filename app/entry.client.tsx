import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode, Suspense } from "react";
import { hydrateRoot } from "react-dom/client";
import { registeredWords } from "~/i18n/words";

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

/**
 * The page's catalogue files (ADR 048) ran before this script (deferred, earlier in the document). One that did
 * not load (a dropped connection) is asked for once more; if it still fails the page is left as the server drew
 * it, working as it does without JavaScript, rather than drawn again without its words.
 */
async function pageWords(): Promise<boolean> {
  const missing = [...document.querySelectorAll<HTMLScriptElement>("script[data-words]")].filter((s) => !registeredWords(s.dataset.words!));
  await Promise.all(
    missing.map(
      (failed) =>
        new Promise<void>((resolve) => {
          const again = document.createElement("script");
          again.src = failed.src;
          again.onload = again.onerror = () => resolve();
          document.head.appendChild(again);
        }),
    ),
  );
  return missing.every((s) => registeredWords(s.dataset.words!));
}

void pageWords().then((ready) => {
  if (!ready) return;
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
});
