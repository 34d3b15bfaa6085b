/**
 * The catalogue files pages load (ADR 048, app/i18n/words.ts): `/words/<language>/<names>.<hash>.js`, a script
 * that registers one catalogue's compiled messages. Served before the page machinery, as the built assets are
 * (static-files.server.ts): nosniff, same-origin CORP, a year's immutable cache when the name's hash is the
 * content's. Each file is compressed once (brotli quality 11 and gzip level 9, off the main thread) and kept.
 *
 * Also here: the mark on a navigation's data request (`/path.data`), which tells the page's loaders to send
 * their words inline (messages.server.ts).
 */
import { promisify } from "node:util";
import zlib from "node:zlib";
import type { RequestHandler } from "express";
import { wordsOfRef } from "~/i18n/catalog.server";
import { DATA_REQUEST_HEADER } from "~/i18n/messages.server";

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

type WordsFile = { plain: Buffer; br: Buffer | null; gzip: Buffer | null; current: boolean };

/** Files by reference: the current ones for good (one per page's list of names), others among the last few. */
const files = new Map<string, Promise<WordsFile | null>>();
const MAX_FILES = 500;

/** A JavaScript string literal of `text` (JSON's, with the two line separators older engines refuse escaped). */
const jsString = (text: string) =>
  JSON.stringify(text)
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");

async function makeFile(ref: string): Promise<WordsFile | null> {
  const found = wordsOfRef(ref);
  if (!found) return null;
  // JSON.parse of a string is quicker for an engine to take in than the same object as a literal.
  const source = `(self.__sokoWords||(self.__sokoWords={}))[${jsString(ref)}]=JSON.parse(${jsString(found.messages)});\n`;
  const plain = Buffer.from(source, "utf8");
  // Only a current file is compressed (once, at the slow settings) and kept: any hash can be asked for, and a
  // stale or made-up one must cost no more than its plain answer, nor evict the pages' own files.
  if (!found.current) return { plain, br: null, gzip: null, current: false };
  const [br, gz] = await Promise.all([
    brotli(plain, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: plain.length } }),
    gzip(plain, { level: 9 }),
  ]);
  return { plain, br, gzip: gz, current: found.current };
}

function fileOf(ref: string): Promise<WordsFile | null> {
  let file = files.get(ref);
  if (!file) {
    if (files.size >= MAX_FILES) files.clear();
    files.set(ref, (file = makeFile(ref)));
    // A name that is no catalogue is not kept (made-up names must not fill the memory).
    void file.then(
      (made) => (made?.current ? made : files.delete(ref)),
      () => files.delete(ref),
    );
  }
  return file;
}

/** Mounted at WORDS_PATH: answers `<ref>.js`, else passes on (the page machinery's 404). */
export function wordsFiles(): RequestHandler {
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    if (!name.endsWith(".js") || name.length > 600) return next();
    fileOf(name.slice(0, -3)).then((file) => {
      if (!file) return next();
      const accepts = String(req.headers["accept-encoding"] ?? "");
      const encoding = !file.current ? null : /\bbr\b/.test(accepts) ? "br" : /\bgzip\b/.test(accepts) ? "gzip" : null;
      const body = (encoding === "br" ? file.br : encoding === "gzip" ? file.gzip : null) ?? file.plain;
      res.setHeader("Content-Type", "text/javascript; charset=utf-8");
      res.setHeader("X-Content-Type-Options", "nosniff");
      res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
      // A page made before the catalogues changed asks for its old hash: today's words, not to be kept.
      res.setHeader("Cache-Control", file.current ? "public, max-age=31536000, immutable" : "no-cache");
      res.setHeader("Vary", "Accept-Encoding");
      if (encoding) res.setHeader("Content-Encoding", encoding);
      res.setHeader("Content-Length", String(body.length));
      res.end(req.method === "HEAD" ? undefined : body);
    }, next);
  };
}

/** Marks a navigation's data request for the loaders, and removes the mark from any other request. */
export const markDataRequests: RequestHandler = (req, _res, next) => {
  if (req.path.endsWith(".data")) req.headers[DATA_REQUEST_HEADER] = "1";
  else if (DATA_REQUEST_HEADER in req.headers) delete req.headers[DATA_REQUEST_HEADER];
  next();
};
