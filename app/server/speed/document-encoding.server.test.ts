import http from "node:http";
import type { AddressInfo } from "node:net";
import compression from "compression";
import express from "express";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { documentEncoding, encodeDocument } from "./document-encoding.server";

// A page of the size and make of ours (markup, repeated class names, Ugandan shillings), and one under 1 KB.
const PAGE = Buffer.from(
  `<!DOCTYPE html><html lang="en"><body>${Array.from({ length: 400 }, (_, i) => `<li class="gig-card"><a href="/gig/${i}">Logo design ${i}</a><span>UGX ${(i * 7919) % 500_000}</span></li>`).join("")}</body></html>`,
);
const SMALL = Buffer.from("<!DOCTYPE html><p>Short page</p>");

let baseUrl = "";
let server: http.Server;
beforeAll(async () => {
  // What server.ts did to every document before: compression() with its defaults over the whole body.
  const app = express();
  app.use(compression());
  app.get("/:page", (req, res) => res.type("html").send(req.params.page === "small" ? SMALL : PAGE));
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

/** compression()'s answer, undecoded: its Content-Encoding and the bytes as sent. */
function viaCompression(page: string, acceptEncoding: string | undefined) {
  return new Promise<{ encoding: string | null; body: Buffer }>((resolve, reject) => {
    const headers = acceptEncoding === undefined ? {} : { "Accept-Encoding": acceptEncoding };
    http
      .get(`${baseUrl}/${page}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ encoding: (res.headers["content-encoding"] as string | undefined) ?? null, body: Buffer.concat(chunks) }));
      })
      .on("error", reject);
  });
}

const ACCEPTED = [
  undefined,
  "",
  "identity",
  "gzip",
  "gzip, deflate",
  "gzip, deflate, br",
  "gzip, deflate, br, zstd",
  "br;q=0.5, gzip",
  "deflate",
  "deflate, gzip;q=0.9",
  "*",
  "gzip;q=0, *",
  "br;q=0, gzip;q=0, deflate;q=0",
  "compress",
  "GZIP",
];

describe("a rendered document compressed in one call", () => {
  it.each(ACCEPTED)("chooses what compression() chooses, and sends the same bytes, for Accept-Encoding %j", async (acceptEncoding) => {
    const headers = acceptEncoding === undefined ? {} : { "accept-encoding": acceptEncoding };
    for (const [name, page] of [
      ["page", PAGE],
      ["small", SMALL],
    ] as const) {
      const expected = await viaCompression(name, acceptEncoding);
      const ours = encodeDocument(page as Buffer<ArrayBuffer>, documentEncoding(headers));
      expect(ours.encoding, `${name}: Content-Encoding`).toBe(expected.encoding);
      expect(ours.body.equals(expected.body), `${name}: the bytes sent`).toBe(true);
    }
  });

  it("compresses a real page (brotli and gzip both well under half its size)", () => {
    expect(encodeDocument(PAGE as Buffer<ArrayBuffer>, "br").body.length).toBeLessThan(PAGE.length / 4);
    expect(encodeDocument(PAGE as Buffer<ArrayBuffer>, "gzip").body.length).toBeLessThan(PAGE.length / 4);
  });
});
