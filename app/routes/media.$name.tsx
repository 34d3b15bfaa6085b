import fs from "node:fs";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileNotFound } from "~/server/files/file-response.server";
import { deriveSmallImage, imageFile, type ImageSize } from "~/server/files/storage.server";

/**
 * Serves a stored image by its key and size. Keys are random and files never change: cache for a year. An image
 * stored before the small size existed gets it made from its thumb on first ask (ADR 054).
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const match = /^([0-9a-f-]{36})-(avatar|small|thumb|large)\.webp$/.exec(params.name ?? "");
  const file = match ? imageFile(match[1]!, match[2] as ImageSize) : null;
  if (!file) throw await fileNotFound(request);
  let body = await read(file);
  if (!body && match![2] === "small" && (await deriveSmallImage(match![1]!))) body = await read(file);
  if (!body) throw await fileNotFound(request);
  return new Response(body, {
    headers: { "Content-Type": "image/webp", "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" },
  });
}

/** The file's bytes, or null when it is not there. */
const read = (file: string) => fs.promises.readFile(file).catch(() => null);
