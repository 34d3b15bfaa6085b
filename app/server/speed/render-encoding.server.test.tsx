import { createRequire } from "node:module";
import fc from "fast-check";
import { createElement } from "react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { installRenderEncoding, POOLED_MAX_LENGTH, PooledTextEncoder, rendererFiles } from "./render-encoding.server";

const require = createRequire(import.meta.url);
type Renderer = { renderToReadableStream(element: React.ReactElement): Promise<ReadableStream<Uint8Array>> };

/** Drops the renderer's modules from Node's cache, so the next require loads them afresh (as a new process would). */
function forgetRenderer() {
  for (const file of rendererFiles()) delete require.cache[file];
}

/** A page's bytes as the renderer hands them over. */
async function render(renderer: Renderer, text: string): Promise<Buffer> {
  const stream = await renderer.renderToReadableStream(
    createElement("main", { title: text.slice(0, 40) }, createElement("p", null, text), createElement("p", null, "ŋ ★ 😀")),
  );
  const chunks: Uint8Array[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
  return Buffer.concat(chunks);
}

// Long enough to be handed on whole (over the renderer's 512-byte view), with characters of one to four bytes.
const LONG = "Omukozi ayagala okukola ku gig eno — ★★★★☆ 😀 ".repeat(20);

afterEach(() => {
  forgetRenderer();
  vi.restoreAllMocks();
});

describe("React's renderer with pooled encoding", () => {
  it("loads the renderer with a PooledTextEncoder, leaves the global TextEncoder alone, and renders the same bytes", async () => {
    forgetRenderer();
    const stock = globalThis.TextEncoder;
    expect(installRenderEncoding()).toBe(true);
    expect(globalThis.TextEncoder).toBe(stock);
    const bufferFrom = vi.spyOn(Buffer, "from");
    const patched = await render(require("react-dom/server.browser") as Renderer, LONG);
    // The page's short strings went through Buffer.from (the stock renderer never calls it).
    expect(bufferFrom.mock.calls.some(([value]) => value === "ŋ ★ 😀")).toBe(true);
    bufferFrom.mockClear();

    forgetRenderer();
    const unpatched = await render(require("react-dom/server.browser") as Renderer, LONG);
    expect(bufferFrom).not.toHaveBeenCalled();
    expect(patched.equals(unpatched)).toBe(true);
    expect(patched.toString("utf8")).toContain(LONG.trim());
    // The long string's array was handed on (and detached) by the byte stream: Buffer's pool still works.
    expect(Buffer.from("after the page", "utf8").toString()).toBe("after the page");
  });

  it("is left out when the renderer was loaded first", () => {
    forgetRenderer();
    require("react-dom/server.browser");
    expect(installRenderEncoding()).toBe(false);
  });

  it("encodes any string as TextEncoder does, lone surrogates included, a long one into an array of its own", () => {
    const pooled = new PooledTextEncoder();
    const stock = new TextEncoder();
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 400 }), (text) => {
        const bytes = pooled.encode(text);
        expect(Buffer.from(bytes).equals(Buffer.from(stock.encode(text)))).toBe(true);
        if (text.length > POOLED_MAX_LENGTH) expect(bytes.buffer.byteLength).toBe(bytes.byteLength);
      }),
      { numRuns: 1000 },
    );
    expect(Array.from(pooled.encode("a\uD800b"))).toEqual([0x61, 0xef, 0xbf, 0xbd, 0x62]);
    expect(pooled.encode().length).toBe(0);
  });
});
