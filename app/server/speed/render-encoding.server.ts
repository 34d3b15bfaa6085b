/**
 * A rendered page's strings turned into bytes by Buffer.from, not TextEncoder.encode (ADR 024).
 *
 * Written against: react-dom 18.3 (`react-dom/server.browser`, the web-streams renderer entry.server uses,
 *   ADR 027); installed only over 18.3.x, and only if that renderer is not loaded yet.
 * Replaces: the TextEncoder the renderer makes when its module loads (`new TextEncoder()`, one per module) and
 *   then calls for every text, attribute and tag it writes (about 600 strings on /terms, 1,600 on /browse).
 *   Node's TextEncoder.encode allocates an ArrayBuffer for each one; Buffer.from writes a short string into
 *   its shared 8 KB pool, about three times as fast per string on this machine, with the same bytes (both are
 *   UTF-8, a lone surrogate becoming U+FFFD in each). So the renderer's module is loaded here with a TextEncoder
 *   whose `encode` is Buffer.from in place of the global one, which is put back at once: nothing else in the
 *   process sees it. The renderer copies a short string's bytes into its own 512-byte views; a longer string
 *   keeps TextEncoder's own array, because the renderer hands it on whole through a byte stream, which detaches
 *   its ArrayBuffer (a pool slice there would detach Buffer's pool for the whole process).
 * What it saves: see ADR 024.
 * Remove it when: the renderer encodes into a view of its own (React 19's node renderer does, without the zero
 *   bytes of ADR 027); then delete this file and its line in index.server.ts.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { log } from "~/server/log.server";

const require = createRequire(import.meta.url);
const SUPPORTED_VERSION = /^18\.3\./;

/**
 * The longest string given to Buffer.from: its UTF-8 (at most 3 bytes a UTF-16 unit) fits the renderer's 512-byte
 * view, into which the renderer copies it. A longer one is enqueued as it is on the renderer's byte stream, which
 * transfers (detaches) its ArrayBuffer: that must be the string's own, never Buffer's shared pool.
 */
export const POOLED_MAX_LENGTH = Math.floor(512 / 3);

/** TextEncoder's encode, a short string's through Node's pooled Buffer: a Uint8Array of the string's UTF-8. */
export class PooledTextEncoder extends TextEncoder {
  override encode(input = ""): Uint8Array<ArrayBuffer> {
    return input.length <= POOLED_MAX_LENGTH ? (Buffer.from(input, "utf8") as Uint8Array<ArrayBuffer>) : super.encode(input);
  }
}

/** The renderer's module files (the entry and both of its builds), as Node resolves them. */
export function rendererFiles(): string[] {
  const entry = require.resolve("react-dom/server.browser");
  const mode = process.env.NODE_ENV === "production" ? "production.min" : "development";
  return [entry, join(dirname(entry), "cjs", `react-dom-server.browser.${mode}.js`)];
}

/** Loads the web-streams renderer with a PooledTextEncoder; false (with a warning) where it cannot. */
export function installRenderEncoding(): boolean {
  const version = (require("react-dom/package.json") as { version: string }).version;
  if (!SUPPORTED_VERSION.test(version)) {
    log.warn(`[web] react-dom ${version} is not the release render-encoding was written against (18.3): left out`);
    return false;
  }
  if (rendererFiles().some((file) => require.cache[file])) {
    log.warn("[web] react-dom/server.browser was loaded before the speed patches: render-encoding left out");
    return false;
  }
  const global = globalThis as { TextEncoder: typeof TextEncoder };
  const stock = global.TextEncoder;
  global.TextEncoder = PooledTextEncoder;
  try {
    require("react-dom/server.browser");
  } finally {
    global.TextEncoder = stock;
  }
  return true;
}
