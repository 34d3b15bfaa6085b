import type { AppLoadContext, EntryContext } from "@remix-run/node";
import { RemixServer } from "@remix-run/react";
import { renderToPipeableStream } from "react-dom/server";
import { encodeDocument } from "~/utils/document-encoding.server";
import { NonceProvider } from "~/utils/nonce-provider";

const ABORT_DELAY_MS = 5_000;
export const streamTimeout = ABORT_DELAY_MS;

/**
 * Renders the whole document, then sends it as one body. Our loaders have resolved everything before the
 * render starts (no deferred data), so streaming the shell first gained nothing, while its many small
 * chunks each cost a compression flush and a socket write: one body is cheaper for the server and, with
 * its Content-Length, for a phone on a slow network too. Bots and browsers without JavaScript get the same.
 * The finished body is compressed here, in one call, with the encoding the web handler chose for the request
 * (app/utils/document-encoding.server.ts); compression() leaves a response with a Content-Encoding alone.
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
    // A render that has not finished in time is cut short (React then ends it with what it has). The timer is
    // cleared as soon as the render is done: left to run, it held each page's whole render for six seconds
    // and then ran React's abort over a finished request (3% of a rendered page's CPU).
    let timer: NodeJS.Timeout | undefined;
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <RemixServer context={remixContext} url={request.url} abortDelay={ABORT_DELAY_MS} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          pipe(
            collected((document) => {
              clearTimeout(timer);
              responseHeaders.set("Content-Type", "text/html; charset=utf-8");
              const { body, encoding } = encodeDocument(document, loadContext.documentEncoding);
              if (encoding) {
                responseHeaders.set("Content-Encoding", encoding);
                responseHeaders.append("Vary", "Accept-Encoding");
              }
              responseHeaders.set("Content-Length", String(body.length));
              resolve(new Response(body, { headers: responseHeaders, status: failed ? 500 : responseStatusCode }));
            }),
          );
        },
        onShellError(error: unknown) {
          clearTimeout(timer);
          reject(error);
        },
        onError(error: unknown) {
          failed = true;
          console.error(error);
        },
      },
    );
    timer = setTimeout(abort, ABORT_DELAY_MS + 1_000).unref();
  });
}

/**
 * Where React writes the finished document: its chunks kept as they come and joined at the end. React's
 * `pipe` needs only `write`, `end` and `on` of its destination, so this is not a stream (a PassThrough
 * cost a transform and a "data" event for each of a page's dozens of 2 KB chunks). Nothing to wait for,
 * so never "drain"; "error" and "close" never come.
 */
function collected(done: (body: Buffer<ArrayBuffer>) => void): NodeJS.WritableStream {
  // React writes a new Uint8Array each time (or one of its constant chunks, never changed), or a string.
  const chunks: Uint8Array[] = [];
  const destination = {
    write(chunk: Uint8Array | string) {
      chunks.push(typeof chunk === "string" ? Buffer.from(chunk) : chunk);
      return true;
    },
    end() {
      done(Buffer.concat(chunks) as Buffer<ArrayBuffer>);
    },
    on() {
      return destination;
    },
  };
  return destination as unknown as NodeJS.WritableStream;
}
