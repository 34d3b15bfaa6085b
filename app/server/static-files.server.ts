/**
 * The web process's files: the build's hashed assets (before the page machinery), the build's other files
 * and public/ (after it). server.ts mounts them.
 */
import fs from "node:fs";
import path from "node:path";
import express, { type RequestHandler } from "express";

/**
 * The built scripts and stylesheets (/assets/<name>-<hash>.js|css), mounted at /assets before tracking, the
 * page-view recorder and the page headers: they are not documents, so the page headers (CSP, COOP, frame
 * options, referrer policy...) would do nothing on them but add bytes to each of the several a first view loads
 * (ADR 024). They keep what a script or stylesheet needs: nosniff (only run as the type we say), CORP as helmet
 * sets it (no other site may embed them) and the year's immutable cache (hashed names never change content).
 * No validators (ETag, Last-Modified) and no Accept-Ranges: a hashed file is never revalidated nor fetched in
 * parts, and those headers were ~100 bytes on each of a page's dozen scripts.
 * A name not found goes on to the pages, so its 404 is a document with all the page headers.
 */
const IMMUTABLE = { immutable: true, maxAge: "1y", etag: false, lastModified: false, acceptRanges: false };

export function builtAssets(assetsDir: string): RequestHandler[] {
  const assetHeaders: RequestHandler = (_req, res, next) => {
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Cross-Origin-Resource-Policy", "same-origin");
    next();
  };
  return [assetHeaders, precompressedAssets(assetsDir), express.static(assetsDir, IMMUTABLE)];
}

/**
 * The build's other files (the icons), for an hour, and /favicon.ico (asked for by browsers and bots that never
 * read the page's <link rel=icon>) for 30 days.
 */
export function builtFiles(clientDir: string): RequestHandler {
  const iconCache = (res: express.Response, file: string) => {
    if (path.basename(file) === "favicon.ico") res.setHeader("Cache-Control", "public, max-age=2592000");
  };
  return filesOnly(express.static(clientDir, { maxAge: "1h", setHeaders: iconCache }));
}

/** public/, for an hour. */
export function publicFiles(publicDir: string): RequestHandler {
  return filesOnly(express.static(publicDir, { maxAge: "1h" }));
}

/** A file's path has a dot in its last segment and a page's never does: pages skip the disk look-ups. */
function filesOnly(serve: RequestHandler): RequestHandler {
  return (req, res, next) => (/\.[^/]*$/.test(req.path) ? serve(req, res, next) : next());
}

/**
 * The browser assets' brotli (quality 11) and gzip (level 9) copies written at build (vite.config.ts,
 * `precompress`), sent as they are: brotli where the browser takes it (Chromium offers it over https only),
 * else gzip. compression() leaves a response that already has a Content-Encoding alone. Files without copies
 * (under 1 KB) go on to express.static.
 */
function precompressedAssets(dir: string): RequestHandler {
  const copies = new Set(
    fs.existsSync(dir)
      ? fs
          .readdirSync(dir)
          .filter((f) => f.endsWith(".br"))
          .map((f) => f.slice(0, -3))
      : [],
  );
  return (req, res, next) => {
    if (req.method !== "GET" && req.method !== "HEAD") return next();
    const name = req.path.slice(1);
    if (!copies.has(name)) return next();
    const accepts = String(req.headers["accept-encoding"] ?? "");
    const encoding = /\bbr\b/.test(accepts) ? "br" : /\bgzip\b/.test(accepts) ? "gzip" : null;
    res.vary("Accept-Encoding");
    if (!encoding) return next();
    res.type(path.extname(name));
    res.setHeader("Content-Encoding", encoding);
    res.sendFile(path.join(dir, `${name}.${encoding === "br" ? "br" : "gz"}`), IMMUTABLE, (error) => {
      if (error && !res.headersSent) {
        res.removeHeader("Content-Encoding");
        next();
      }
    });
  };
}
