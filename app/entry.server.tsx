import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
// The web-streams renderer, not react-dom/server's node one: see renderDocument.
import { renderToReadableStream } from "react-dom/server.browser";
import { encodeDocument } from "~/server/speed/document-encoding.server";
import { NonceProvider } from "~/utils/nonce-provider";
import { messagesFor } from "~/i18n/catalog.server";
import { requestLocale } from "~/i18n/locale.server";
import type { Locale } from "~/i18n/locales";
import { FallbackWords, type Fallback } from "~/i18n/react";
import { log } from "~/server/log.server";
import { REQUEST_ID_HEADER } from "~/server/request-context.server";

const ABORT_DELAY_MS = 5_000;

const fallbacks = new Map<Locale, Fallback>();
/** The common words of a language, for a page drawn without the root's data (one object per language). */
function fallbackWords(locale: Locale): Fallback {
  let fallback = fallbacks.get(locale);
  if (!fallback) fallbacks.set(locale, (fallback = { locale, i18n: messagesFor(locale, ["common"]) }));
  return fallback;
}
export const streamTimeout = ABORT_DELAY_MS;

/**
 * Renders the whole document, then sends it as one body. Our loaders have resolved everything before the
 * render starts (no deferred data), so streaming the shell first gained nothing, while its many small
 * chunks each cost a compression flush and a socket write: one body is cheaper for the server and, with
 * its Content-Length, for a phone on a slow network too. Bots and browsers without JavaScript get the same.
 * The finished body is compressed here, in one call, with the encoding the web handler chose for the request
 * (app/server/speed/document-encoding.server.ts); compression() leaves a response with a Content-Encoding alone.
 */
export default async function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? "";
  // The common words for a page drawn without the root loader's data (an action that threw: its error page).
  const locale = await requestLocale(request);
  const { document, failed } = await renderDocument(
    <NonceProvider value={nonce}>
      <FallbackWords.Provider value={fallbackWords(locale)}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY_MS} nonce={nonce} />
      </FallbackWords.Provider>
    </NonceProvider>,
    nonce,
  );
  responseHeaders.set("Content-Type", "text/html; charset=utf-8");
  const { body, encoding } = encodeDocument(document, loadContext.documentEncoding);
  if (encoding) {
    responseHeaders.set("Content-Encoding", encoding);
    responseHeaders.append("Vary", "Accept-Encoding");
  }
  responseHeaders.set("Content-Length", String(body.length));
  return new Response(body, { headers: responseHeaders, status: failed ? 500 : responseStatusCode });
}

/**
 * The document's bytes once everything in it has rendered, and whether any part of it failed (then logged).
 *
 * React 18's node renderer (`renderToPipeableStream`) cannot be used for this: it encodes its strings into
 * 2 KB views with `TextEncoder.encodeInto`, and where a character of two to four bytes does not fit at the end
 * of a view it sends the whole view, its unwritten last bytes included (zeros), before going on in a new one.
 * Pages with "★", "—", "ŋ" or an emoji near one of those boundaries got one to three NUL bytes there (fixed in
 * React 19, not in 18.3). The web-streams renderer encodes each string whole and sends only what it wrote, so
 * its bytes are exactly the document's UTF-8 (ADR 027).
 *
 * A render that has not finished in time is cut short (React then ends it with what it has); the timer is
 * cleared as soon as the render is done.
 */
async function renderDocument(element: React.ReactElement, nonce: string): Promise<{ document: Buffer<ArrayBuffer>; failed: boolean }> {
  let failed = false;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), ABORT_DELAY_MS + 1_000).unref();
  try {
    const stream = await renderToReadableStream(element, {
      nonce,
      signal: controller.signal,
      onError(error: unknown) {
        failed = true;
        log.error({ err: error }, "[web] render failed");
      },
    });
    await stream.allReady;
    // Each chunk is a view React made for this render and hands over (it never writes to it again).
    const chunks: Uint8Array[] = [];
    const reader = stream.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) chunks.push(read.value);
    return { document: Buffer.concat(chunks) as Buffer<ArrayBuffer>, failed };
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A loader or action that threw (Remix answers with the error boundary): one error line with its stack and the
 * request's id, rather than Remix's console.error. A request the client abandoned is not an error of ours.
 */
export function handleError(error: unknown, { request }: { request: Request }) {
  if (request.signal.aborted) return;
  log.error({ err: error, reqId: request.headers.get(REQUEST_ID_HEADER) }, "[web] loader or action failed");
}
