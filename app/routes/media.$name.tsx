import { Readable } from "node:stream";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileNotFound } from "~/server/files/file-response.server";
import { fileStore } from "~/server/files/file-store.server";
import { deriveSmallImage, imageStoreKey, type ImageSize } from "~/server/files/storage.server";

/**
 * Serves a stored image by its key and size, streamed from the file store (the disk or S3, ADR 056). Keys are
 * random and files never change: cache for a year. An image stored before the small size existed gets it made
 * from its thumb on first ask (ADR 054).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const match = /^([0-9a-f-]{36})-(avatar|small|thumb|large)\.webp$/.exec(params.name ?? "");
  const key = match ? imageStoreKey(match[1]!, match[2] as ImageSize) : null;
  if (!key) throw await fileNotFound(request);
  const store = fileStore();
  let file = await store.get(key);
  if (!file && match![2] === "small" && (await deriveSmallImage(match![1]!, store))) file = await store.get(key);
  if (!file) throw await fileNotFound(request);
  // A HEAD answer has no body: the stream is let go of now rather than holding a file or a connection to S3.
  if (request.method === "HEAD") file.body.destroy();
  return new Response(request.method === "HEAD" ? null : (Readable.toWeb(file.body) as ReadableStream<Uint8Array>), {
    headers: {
      "Content-Type": "image/webp",
      "Content-Length": String(file.size),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
