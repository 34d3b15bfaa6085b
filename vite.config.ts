import { vitePlugin as remix } from "@remix-run/dev";
import { defineConfig, type Plugin } from "vite";
import fs from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { promisify } from "node:util";

declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

/**
 * The page shell: what root.tsx renders on every page (the header and its bell, the error boundary) and the
 * small helpers every catalog page uses (gig cards, prices, dates, image URLs), in one browser chunk instead of
 * a chunk each. Each was 0.1 to 2 KB gzipped and cost a request of its own, whose response headers alone
 * (~850 bytes over HTTP/1.1) often weighed more than its code: the landing loaded 11 scripts
 * (`npm run bench:pages`). Only small, browser-safe modules belong here; route modules never (Remix loads each
 * route's own chunk), and nothing heavy that only some pages use (zod, Conform, socket.io, charts).
 */
const SHELL_MODULES = [
  "app/components/site-header.tsx",
  "app/components/notification-bell.tsx",
  "app/components/general-error-boundary.tsx",
  "app/content/faq.ts",
  "app/utils/media.ts",
  "app/domain/money.ts",
  "app/utils/dates.ts",
  "app/hooks/use-preferences.ts",
  // The footer's data-saver switch and the images it governs, on every page (ADR 054).
  "app/components/data-saver.tsx",
  // The member pages' small shared pieces (under 1 KB each): the order states' words, the review's star range
  // and the URL of the orders stylesheet, which five pages link.
  "app/domain/order-rules.ts",
  "app/domain/package-tiers.ts",
  "app/domain/review-rules.ts",
  "app/styles/orders.css",
];
const shellPaths = new Set(SHELL_MODULES.map((m) => fileURLToPath(new URL(`./${m}`, import.meta.url))));

/**
 * The gig card and what only it and the catalog pages use (its save heart, the catalog's and levels' words), in
 * one chunk that the pages showing gigs load. In the shell they cost every other page (an order, a chat,
 * checkout) about 2 KB compressed; apart, a page of gigs pays one request more.
 */
const CATALOG = /\/app\/(components\/(gig-card|save-button)\.tsx|domain\/(catalog|seller)-vocabulary\.ts)$/;

/**
 * The browser build runs on Preact through preact/compat (ADR 046): React and React DOM were 32 KB of the 74 KB
 * compressed framework chunk every page loads, preact/compat is about 4 KB. The server keeps React (its
 * renderer, error handling and streaming are what Remix is built and tested on), as does the development
 * server (`npm run dev`, whose browser code is not built). app/entry.client.tsx hydrates the way Preact needs.
 */
const PREACT_ALIASES = [
  { find: /^react$/, replacement: "preact/compat" },
  { find: /^react-dom$/, replacement: "preact/compat" },
  { find: /^react-dom\/client$/, replacement: "preact/compat/client" },
  { find: /^react\/jsx-runtime$/, replacement: "preact/jsx-runtime" },
  { find: /^react\/jsx-dev-runtime$/, replacement: "preact/jsx-runtime" },
];

/** Preact (or React) and Remix stay one chunk of their own (as Rollup made it before), cached across our deploys. */
const FRAMEWORK = /\/node_modules\/(preact|react|react-dom|scheduler|react-router|react-router-dom|@remix-run\/[^/]+|turbo-stream)\//;

/**
 * Conform's form state and our hook over it: every page with a checked form loads both. Conform's field
 * helpers go with our form fields (app/components/forms.tsx), which pages without such a form use too.
 */
const CONFORM = /\/node_modules\/@conform-to\/(react\/dist\/(context|hooks|integrations)\.mjs|dom\/)|\/app\/hooks\/use-schema-form\.ts$/;
/**
 * Lingui's runtime and our words in the browser (app/i18n: the page's instance, formatting, the languages, the
 * catalogue files' register): every page says its words through them, so they go with the shell. Left
 * unassigned, Rollup put them in the form fields' chunk, and every page loaded our form fields and Conform's
 * helpers with them (6 KB compressed).
 */
const WORDS = /\/node_modules\/@lingui\/|\/app\/i18n\/(react\.tsx|format\.ts|locales\.ts|words\.ts|message-key\.ts)$|\/app\/components\/language-switch\.tsx$/;
/**
 * The wait for a form's first use (app/hooks/use-on-first-focus.ts) goes with them: Conform's forms use it, and
 * so do the order page's light forms (app/hooks/use-light-form.ts), which must not load Conform's chunk with
 * the page (left unassigned, Rollup put it in Conform's chunk, which uses it).
 */
const FORM_FIELDS =
  /\/node_modules\/@conform-to\/react\/dist\/(helpers|_virtual\/.*)\.mjs$|\/app\/components\/forms\.tsx$|\/app\/hooks\/use-on-first-focus\.ts$/;

function shellChunk(id: string): string | undefined {
  // Vite's helper for dynamic imports, which the shell's bell uses: left unassigned, Rollup put it in the first
  // manual chunk to reach it (Conform's), and every page then loaded Conform.
  if (id === "\0vite/preload-helper.js") return "shell";
  if (FRAMEWORK.test(id)) return "framework";
  if (WORDS.test(id)) return "shell";
  if (CONFORM.test(id)) return "conform";
  if (FORM_FIELDS.test(id)) return "forms";
  if (CATALOG.test(id.split("?")[0]!)) return "catalog";
  return shellPaths.has(id.split("?")[0]!) ? "shell" : undefined;
}

const brotli = promisify(zlib.brotliCompress);
const gzip = promisify(zlib.gzip);

/**
 * Writes a brotli (quality 11) and a gzip (level 9) copy beside each browser asset, for the server to send as
 * they are: compression() compresses on the fly at brotli quality 4, which comes out no smaller than gzip (the
 * React and Remix chunk: 86.0 KB at brotli 4, 85.1 KB gzipped, 74.2 KB at brotli 11). Files under 1 KB are
 * left alone (headers outweigh any saving).
 */
function precompress(): Plugin {
  let ssr = false;
  return {
    name: "soko-precompress",
    apply: "build",
    configResolved(config) {
      ssr = Boolean(config.build.ssr);
    },
    async writeBundle(options, bundle) {
      if (ssr || !options.dir) return;
      const files = Object.keys(bundle).filter((name) => /\.(js|css|svg)$/.test(name));
      await Promise.all(
        files.map(async (name) => {
          const file = path.join(options.dir!, name);
          const body = await fs.readFile(file);
          if (body.length < 1024) return;
          const params = { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length };
          await fs.writeFile(`${file}.br`, await brotli(body, { params }));
          await fs.writeFile(`${file}.gz`, await gzip(body, { level: 9 }));
        }),
      );
    },
  };
}

export default defineConfig({
  resolve: {
    alias: { "~": fileURLToPath(new URL("./app", import.meta.url)) },
  },
  build: { target: "es2019" },
  plugins: [
    // The browser build only: the server's bundle stays one file.
    {
      name: "soko-browser-chunks",
      apply: "build",
      config: (_config, { isSsrBuild }) =>
        isSsrBuild
          ? undefined
          : {
              resolve: { alias: PREACT_ALIASES },
              define: { "import.meta.env.SOKO_PREACT": "true" },
              build: { rollupOptions: { output: { manualChunks: shellChunk } } },
            },
    },
    precompress(),
    // Vitest runs without the Remix plugin: it is left out while VITEST is set.
    !process.env.VITEST &&
      remix({
        future: {
          v3_fetcherPersist: true,
          v3_relativeSplatPath: true,
          v3_throwAbortReason: true,
          v3_singleFetch: true,
          v3_lazyRouteDiscovery: true,
          v3_routeConfig: true,
        },
      }),
  ],
});
