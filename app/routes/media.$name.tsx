import fs from "node:fs";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { fileNotFound } from "~/server/files/file-response.server";
import { imageFile, type ImageSize } from "~/server/files/storage.server";

/** Serves a stored image by its key and size. Keys are random and files never change: cache for a year. */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const match = /^([0-9a-f-]{36})-(avatar|thumb|large)\.webp$/.exec(params.name ?? "");
  const file = match ? imageFile(match[1]!, match[2] as ImageSize) : null;
  if (!file) throw await fileNotFound(request);
  try {
    const body = await fs.promises.readFile(file);
    return new Response(body, {
      headers: { "Content-Type": "image/webp", "Cache-Control": "public, max-age=31536000, immutable", "X-Content-Type-Options": "nosniff" },
    });
  } catch {
    throw await fileNotFound(request);
  }
}
