import { PassThrough } from "node:stream";
import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { NonceProvider } from "~/utils/nonce-provider";

const ABORT_DELAY_MS = 5_000;
export const streamTimeout = ABORT_DELAY_MS;

/**
 * Renders the whole document, then sends it as one body. Our loaders have resolved everything before the
 * render starts (no deferred data), so streaming the shell first gained nothing, while its many small
 * chunks each cost a compression flush and a socket write: one body is cheaper for the server and, with
 * its Content-Length, for a phone on a slow network too. Bots and browsers without JavaScript get the same.
 */
export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  remixContext: EntryContext,
  loadContext: AppLoadContext,
) {
  const nonce = loadContext.cspNonce ?? "";
  return new Promise<Response>((resolve, reject) => {
    let failed = false;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY_MS} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          const chunks: Buffer[] = [];
          const body = new PassThrough();
          body.on("data", (chunk: Buffer) => chunks.push(chunk));
          body.on("end", () => {
            responseHeaders.set("Content-Type", "text/html; charset=utf-8");
            resolve(new Response(Buffer.concat(chunks), { headers: responseHeaders, status: failed ? 500 : responseStatusCode }));
          });
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          failed = true;
          console.error(error);
        },
      },
    );
    setTimeout(abort, ABORT_DELAY_MS + 1_000).unref();
  });
}
