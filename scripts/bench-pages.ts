/**
 * Page weight and Lighthouse benchmark: what a first visit to the landing (/), browse (/browse), a gig page
 * (/gig/<id>) and, signed in as the demo client, checkout (/gig/<id>/order), an order page (/orders/<id>) and a
 * chat thread (/messages/<id>) costs a phone, and how Lighthouse's mobile audit scores them. The three public
 * pages are measured in each language (English, Luganda, Swahili: the browser's Accept-Language asks for it), and
 * browse once more in data-saver mode (ADR 054: the visitor's `soko_data_saver=on` cookie), whose target counts
 * everything transferred, images too: ≤ 40 KB.
 *
 *   npm run bench:pages [-- --runs 3] [--https] [--build] [--no-docs] [--baseline <dir>] [--checkout <dir>]
 *                       [--database soko_bench_pages]
 *
 * 1. (Re)creates its own Postgres database (soko_bench_pages) and ClickHouse database, migrated, with the demo
 *    data as `npm start` loads it (scripts/migrate.ts --seed, covers in a temporary upload directory; see
 *    scripts/lib/demo-site.ts). The signed-in pages are measured with the demo client's session, signed in
 *    through the sign-in page once per server and sent by Lighthouse as a Cookie header on every request.
 * 2. Runs the production build (building it when missing or with `--build`) against it, as bench:catalog
 *    does. With `--baseline <dir>` it also runs another checkout's built server (its own build/ and server.ts,
 *    e.g. `git archive <commit> | tar -x -C <dir>`, node_modules linked, built there) on the same data, and
 *    measures the two alternately in the same sitting. `--checkout <dir>` measures another checkout in place of
 *    this one the same way (build/ here is shared: a build finishing mid-run would swap its files).
 *    With `--https` each server is reached through a TLS proxy of the benchmark's own (a self-signed certificate
 *    made with openssl), as phones reach the site in production. (Chromium offers brotli, and zstd, over https
 *    and to localhost alike, so the bytes come out the same either way here.)
 * 3. For each page, `--runs` times, runs Lighthouse (the `lighthouse` package; mobile form factor, simulated
 *    throttling: its defaults) in Debian's Chromium (/usr/bin/chromium, headless, a new profile), each run a
 *    cold first view (Lighthouse clears the cache and storage first).
 * 4. Reports per page the medians of: bytes transferred (on the wire, headers included) by type (HTML, CSS,
 *    JS, other; images left out, as the target leaves them out), the performance and accessibility scores,
 *    LCP and TBT; and whether the page meets the targets: ≤ 100 KB transferred without images, performance
 *    and accessibility ≥ 95. Lighthouse's failed accessibility audits are listed.
 *
 * 5. The web process's CPU per rendered page in each language is scripts/bench-page-cpu.ts's (`--language`).
 *
 * It is a report, not a test: missed targets still exit 0; only errors (a page that does not answer 200,
 * Chromium or Lighthouse failing) exit non-zero. Appends its run to docs/benchmarks/history/pages.md unless --no-docs.
 */
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import lighthouse from "lighthouse";
import { buildApp, root } from "./build";
import { commitOf, loadAverage, machine, markdownTable, median, plainTable, appendBenchmarkRun } from "./lib/bench";
import { DEMO_LOGINS, demoSiteEnv, prepareDemoSite, signInCookie } from "./lib/demo-site";
import { freePort, startAppServer, waitUntil, type AppServer, type Child } from "./lib/servers";

const CHROMIUM = "/usr/bin/chromium";
/** The flags that run Debian's Chromium here without its background traffic, headless. */
const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const TARGET_KB = 100;
/** Data-saver browse (ADR 054): everything transferred on a first view, images included. */
const DATA_SAVER_TARGET_KB = 40;
const TARGET_SCORE = 95;
const HEADING = "## Pages: `npm run bench:pages`";

type Options = {
  runs: number;
  https: boolean;
  build: boolean;
  docs: boolean;
  baseline: string | null;
  checkout: string | null;
  database: string;
};

function readOptions(): Options {
  const { values } = parseArgs({
    options: {
      runs: { type: "string", default: "3" },
      https: { type: "boolean", default: false },
      build: { type: "boolean", default: false },
      "no-docs": { type: "boolean", default: false },
      baseline: { type: "string" },
      checkout: { type: "string" },
      database: { type: "string", default: "soko_bench_pages" },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs must be a whole number ≥ 1, got "${values.runs}"`);
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(values.database)) throw new Error(`--database must be a plain lower-case name, got "${values.database}"`);
  const built = (option: string, dir: string | undefined) => {
    if (!dir) return null;
    const resolved = path.resolve(dir);
    if (!fs.existsSync(path.join(resolved, "build", "server", "index.js"))) {
      throw new Error(`--${option} ${resolved} has no build/: build it there first (NODE_ENV=production npx remix vite:build)`);
    }
    return resolved;
  };
  return {
    runs,
    https: values.https,
    build: values.build,
    docs: !values["no-docs"],
    baseline: built("baseline", values.baseline),
    checkout: built("checkout", values.checkout),
    database: values.database,
  };
}

// ---------------------------------------------------------------------------------------------------------
// Servers: ours (this checkout's build) and, with --baseline, another checkout's.

/**
 * Runs another checkout's web server (its own build/) with `tsx server.ts`, which every checkout has, also one
 * from before the server was compiled to JavaScript: the bytes a page sends are the same either way.
 */
async function startServerIn(dir: string, env: Record<string, string>, name: string): Promise<AppServer> {
  const port = await freePort();
  const child = spawn(path.join(dir, "node_modules", ".bin", "tsx"), ["server.ts"], {
    cwd: dir,
    env: { ...process.env, NODE_ENV: "production", ALLOW_HTTP: "1", ...env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  let output = "";
  const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000));
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const exit = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const server: Child = {
    name: `${name} (${dir})`,
    child,
    output: () => output,
    exited,
    exit,
    stop: async () => {
      if (exited() || child.pid === undefined) return;
      const kill = (sig: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, sig);
        } catch {
          // gone
        }
      };
      const killer = setTimeout(() => kill("SIGKILL"), 10_000);
      kill("SIGTERM");
      await exit;
      clearTimeout(killer);
    },
  };
  const baseUrl = `http://localhost:${port}`;
  try {
    await waitUntil(
      server,
      async () => (await fetch(`${baseUrl}/healthz`, { signal: AbortSignal.timeout(2_000) })).status === 200,
      "answer 200 to GET /healthz",
    );
  } catch (error) {
    await server.stop();
    throw error;
  }
  return { ...server, port, baseUrl, adminUrl: `http://admin.localhost:${port}` };
}

/**
 * An https front for a server (TLS ends here, as at a production proxy), with a self-signed certificate for
 * localhost; Chromium is started with --ignore-certificate-errors. Returns its base URL and how to close it.
 */
async function tlsProxy(target: AppServer, certDir: string): Promise<{ baseUrl: string; close: () => Promise<void> }> {
  const key = path.join(certDir, "key.pem");
  const cert = path.join(certDir, "cert.pem");
  if (!fs.existsSync(cert)) {
    execFileSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"], {
      stdio: "ignore",
    });
  }
  const proxy = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (req, res) => {
    const upstream = http.request(
      { host: "127.0.0.1", port: target.port, method: req.method, path: req.url, headers: { ...req.headers, "x-forwarded-proto": "https" } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  const port = await freePort();
  await new Promise<void>((resolve) => proxy.listen(port, "127.0.0.1", resolve));
  return {
    baseUrl: `https://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        proxy.closeAllConnections();
        proxy.close(() => resolve());
      }),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Chromium and Lighthouse.

type Browser = { port: number; stop: () => Promise<void> };

async function startChromium(ignoreCertificateErrors: boolean): Promise<Browser> {
  const port = await freePort();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), "soko-bench-pages-chromium-"));
  const flags = ignoreCertificateErrors ? [...CHROMIUM_FLAGS, "--ignore-certificate-errors"] : CHROMIUM_FLAGS;
  const child = spawn(CHROMIUM, [...flags, `--remote-debugging-port=${port}`, `--user-data-dir=${profile}`, "about:blank"], {
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let output = "";
  child.stderr.on("data", (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-5_000)));
  const exit = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid) {
      try {
        process.kill(-child.pid, "SIGKILL");
      } catch {
        // gone
      }
      await exit;
    }
    fs.rmSync(profile, { recursive: true, force: true });
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`Chromium exited before its DevTools port answered:\n${output}`);
    const ok = await fetch(`http://127.0.0.1:${port}/json/version`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`Chromium's DevTools port did not answer within 30 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { port, stop };
}

type Bytes = { html: number; css: number; js: number; other: number; images: number };
type Measure = { bytes: Bytes; total: number; performance: number; accessibility: number; lcpMs: number; tbtMs: number; failed: string[] };

type NetworkItem = { url: string; transferSize?: number; resourceType?: string; mimeType?: string; statusCode?: number };

/** Lighthouse's report of one page load; a failed trace (NO_NAVSTART and the like, seen under heavy load) is tried again, twice at most. */
async function lighthouseReport(browser: Browser, url: string, headers: Record<string, string>) {
  for (let attempt = 1; ; attempt++) {
    const result = await lighthouse(url, {
      port: browser.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance", "accessibility"],
      // A signed-in page: the session on every request (Lighthouse clears the browser's own cookies first); a
      // page in another language: the Accept-Language a phone set to it sends.
      ...(Object.keys(headers).length ? { extraHeaders: headers } : {}),
    });
    if (!result) throw new Error(`Lighthouse returned nothing for ${url}`);
    const { lhr } = result;
    if (!lhr.runtimeError) return lhr;
    if (attempt === 3) throw new Error(`Lighthouse could not audit ${url}: ${lhr.runtimeError.code} ${lhr.runtimeError.message}`);
    console.log(`  (${url}: ${lhr.runtimeError.code}, trying again)`);
  }
}

/** The headers a page is asked for with: the member's session cookie, and the language asked for. */
function headersOf(page: { lang?: string; dataSaver?: boolean }, cookie: string | null): Record<string, string> {
  const cookies = [cookie, page.dataSaver ? "soko_data_saver=on" : null].filter(Boolean).join("; ");
  return { ...(cookies ? { Cookie: cookies } : {}), ...(page.lang ? { "Accept-Language": page.lang } : {}) };
}

/** One cold first view of `url` (with `headers`: a session, a language), audited by Lighthouse (mobile, simulated throttling: its defaults). */
async function audit(browser: Browser, url: string, headers: Record<string, string>): Promise<Measure> {
  const lhr = await lighthouseReport(browser, url, headers);
  const items = ((lhr.audits["network-requests"]?.details as { items?: NetworkItem[] } | undefined)?.items ?? []) as NetworkItem[];
  const bytes: Bytes = { html: 0, css: 0, js: 0, other: 0, images: 0 };
  // A file that failed to load weighs nothing and would flatter the page (a build replacing build/ mid-run does it).
  const broken = items.filter((item) => item.statusCode !== undefined && (item.statusCode < 200 || item.statusCode >= 400));
  if (broken.length) throw new Error(`${url}: ${broken.map((item) => `${item.url} answered ${item.statusCode}`).join(", ")}`);
  for (const item of items) {
    const size = item.transferSize ?? 0;
    if (item.resourceType === "Document") bytes.html += size;
    else if (item.resourceType === "Stylesheet") bytes.css += size;
    else if (item.resourceType === "Script") bytes.js += size;
    else if (item.resourceType === "Image" || item.mimeType?.startsWith("image/")) bytes.images += size;
    else bytes.other += size;
  }
  const failed = Object.values(lhr.categories.accessibility?.auditRefs ?? [])
    .map((ref) => lhr.audits[ref.id])
    .filter((a) => a && a.score !== null && a.score < 1 && a.scoreDisplayMode !== "notApplicable" && a.scoreDisplayMode !== "informative")
    .map((a) => a!.id);
  return {
    bytes,
    total: bytes.html + bytes.css + bytes.js + bytes.other,
    performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
    accessibility: Math.round((lhr.categories.accessibility?.score ?? 0) * 100),
    lcpMs: lhr.audits["largest-contentful-paint"]?.numericValue ?? Number.NaN,
    tbtMs: lhr.audits["total-blocking-time"]?.numericValue ?? Number.NaN,
    failed,
  };
}

/** The medians of several runs of one page (each figure its own median); failed audits as seen in any run. */
function summarise(runs: Measure[]): Measure {
  const m = (pick: (r: Measure) => number) => median(runs.map(pick));
  return {
    bytes: {
      html: m((r) => r.bytes.html),
      css: m((r) => r.bytes.css),
      js: m((r) => r.bytes.js),
      other: m((r) => r.bytes.other),
      images: m((r) => r.bytes.images),
    },
    total: m((r) => r.total),
    performance: m((r) => r.performance),
    accessibility: m((r) => r.accessibility),
    lcpMs: m((r) => r.lcpMs),
    tbtMs: m((r) => r.tbtMs),
    failed: [...new Set(runs.flatMap((r) => r.failed))],
  };
}

// ---------------------------------------------------------------------------------------------------------

const kb = (bytes: number) => (bytes / 1024).toFixed(1);

async function main() {
  const options = readOptions();
  const database = options.database;
  const env = demoSiteEnv(database, "soko-bench-pages");

  if (!options.checkout && (options.build || !fs.existsSync(path.join(root, "build", "server", "index.js")))) {
    console.log("Building the app (production)...");
    if (buildApp() !== 0) throw new Error("the build failed");
  }
  console.log(`Loading the demo data into ${database}...`);
  const demo = await prepareDemoSite(env, database);
  // Signed in (`as`): the demo client checks out the newest gig, and opens a delivered order and their chat thread.
  const publicPages = [
    { name: "landing", label: "landing (/)", path: "/" },
    { name: "browse", label: "browse (/browse)", path: "/browse" },
    { name: "gig page", label: "gig page (/gig/:id)", path: `/gig/${demo.gigId}` },
  ];
  const pages: { name: string; label: string; path: string; as?: string; lang?: string; dataSaver?: boolean }[] = [
    ...publicPages,
    // The same pages for a visitor whose browser asks for Luganda, then Swahili (ADR 047).
    ...["lg", "sw"].flatMap((lang) => publicPages.map((page) => ({ ...page, name: `${page.name} ${lang}`, label: `${page.label} ${lang}`, lang }))),
    // A visitor in data-saver mode (ADR 054): no images until asked for, no app scripts.
    { name: "browse saver", label: "browse, data saver (/browse)", path: "/browse", dataSaver: true },
    { name: "checkout", label: "checkout (/gig/:id/order)", path: `/gig/${demo.gigId}/order?package=basic`, as: DEMO_LOGINS.client },
    { name: "order", label: "order page (/orders/:id)", path: `/orders/${demo.deliveredOrderId}`, as: DEMO_LOGINS.client },
    { name: "chat", label: "chat thread (/messages/:id)", path: `/messages/${demo.conversationId}`, as: DEMO_LOGINS.client },
  ];

  const servers: { label: string; server: AppServer; url: string; cookies: Map<string, string> }[] = [];
  const proxies: { close: () => Promise<void> }[] = [];
  const certDir = fs.mkdtempSync(path.join(os.tmpdir(), "soko-bench-pages-tls-"));
  const started: { label: string; server: AppServer }[] = [];
  let browser: Browser | null = null;
  try {
    if (options.baseline) started.push({ label: "baseline", server: await startServerIn(options.baseline, env, "baseline server") });
    started.push({
      label: options.baseline ? "new" : "this checkout",
      server: options.checkout ? await startServerIn(options.checkout, env, "web server") : await startAppServer(env, { processGroup: true }),
    });
    for (const { label, server } of started) {
      let url = server.baseUrl;
      if (options.https) {
        const proxy = await tlsProxy(server, certDir);
        proxies.push(proxy);
        url = proxy.baseUrl;
      }
      // Each signed-in member's session on this server, signed in once (the sessions stay valid for the run).
      const cookies = new Map<string, string>();
      for (const email of new Set(pages.flatMap((page) => (page.as ? [page.as] : [])))) cookies.set(email, await signInCookie(server.baseUrl, email));
      servers.push({ label, server, url, cookies });
      for (const page of pages) {
        const cookie = page.as ? cookies.get(page.as)! : null;
        const res = await fetch(server.baseUrl + page.path, { headers: headersOf(page, cookie), redirect: "manual" });
        if (res.status !== 200) throw new Error(`${label}: GET ${page.path}${page.as ? ` as ${page.as}` : ""} answered ${res.status}`);
        const lang = /<html lang="([a-z]+)"/.exec(await res.text())?.[1] ?? "en";
        if (page.lang && lang !== page.lang && label !== "baseline") throw new Error(`${label}: GET ${page.path} in ${page.lang} answered in ${lang}`);
      }
    }
    browser = await startChromium(options.https);
    const results = new Map<string, Measure[]>();
    const loadBefore = loadAverage();
    for (let run = 1; run <= options.runs; run++) {
      for (const page of pages) {
        // Old and new alternately, so a burst of load on the shared machine hits both.
        const order = run % 2 === 0 ? [...servers].reverse() : servers;
        for (const { label, url, cookies } of order) {
          const measure = await audit(browser, url + page.path, headersOf(page, page.as ? cookies.get(page.as)! : null));
          const key = `${label}\t${page.name}`;
          results.set(key, [...(results.get(key) ?? []), measure]);
          console.log(
            `run ${run} ${label.padEnd(13)} ${page.name.padEnd(9)} ${kb(measure.total).padStart(6)} KB  perf ${measure.performance}  a11y ${measure.accessibility}  ` +
              `LCP ${Math.round(measure.lcpMs)} ms  TBT ${Math.round(measure.tbtMs)} ms`,
          );
        }
      }
    }
    const loadAfter = loadAverage();

    const header = [
      "page",
      "checkout",
      "HTML KB",
      "CSS KB",
      "JS KB",
      "other KB",
      "total KB (no images)",
      "images KB",
      "performance",
      "accessibility",
      "LCP ms",
      "TBT ms",
      "meets targets",
    ];
    const rows: string[][] = [header];
    const failedAudits: string[] = [];
    for (const page of pages) {
      for (const { label } of servers) {
        const s = summarise(results.get(`${label}\t${page.name}`)!);
        // Data saver's budget counts the images too.
        const weight = page.dataSaver ? s.total + s.bytes.images : s.total;
        const meets = weight <= (page.dataSaver ? DATA_SAVER_TARGET_KB : TARGET_KB) * 1024 && s.performance >= TARGET_SCORE && s.accessibility >= TARGET_SCORE;
        rows.push([
          page.label,
          label,
          kb(s.bytes.html),
          kb(s.bytes.css),
          kb(s.bytes.js),
          kb(s.bytes.other),
          kb(s.total),
          kb(s.bytes.images),
          String(s.performance),
          String(s.accessibility),
          String(Math.round(s.lcpMs)),
          String(Math.round(s.tbtMs)),
          meets ? "yes" : "no",
        ]);
        if (s.failed.length) failedAudits.push(`${page.name} (${label}): ${s.failed.join(", ")}`);
      }
    }
    const m = machine();
    console.log(`\n${plainTable(rows).join("\n")}`);
    if (failedAudits.length) console.log(`\nAccessibility audits not passed:\n  ${failedAudits.join("\n  ")}`);

    const section = [
      HEADING,
      "",
      `Commit ${commitOf()}${options.checkout ? ` (measured: ${options.checkout})` : ""}${options.baseline ? ` (baseline: ${options.baseline})` : ""}, ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC. ` +
        `${m.cpu}, ${m.memoryGb} GB, ${m.os}, Node ${m.node}. Load average ${loadBefore} before, ${loadAfter} after.`,
      "",
      `Lighthouse ${(await import("lighthouse/package.json", { with: { type: "json" } })).default.version} (mobile, simulated throttling: its defaults) in ${CHROMIUM}, ` +
        `a cold first view each run, medians of ${options.runs} run(s) per page${servers.length > 1 ? ", the two checkouts alternately" : ""}. ` +
        `${options.https ? "Over https (a TLS proxy in front of each server). " : "Over http to localhost. "}Chromium accepts brotli either way. ` +
        `Bytes are as transferred (compressed, response headers included); images are left out of the total. Targets: ≤ ${TARGET_KB} KB, performance and accessibility ≥ ${TARGET_SCORE}; ` +
        `browse in data-saver mode ≤ ${DATA_SAVER_TARGET_KB} KB with its images counted (ADR 054).`,
      "",
      ...markdownTable(rows),
      ...(failedAudits.length ? ["", "Accessibility audits not passed:", "", ...failedAudits.map((f) => `- ${f}`)] : []),
    ].join("\n");
    if (options.docs) {
      const file = appendBenchmarkRun("pages", section);
      console.log(`\nAppended this run to ${path.relative(process.cwd(), file)}`);
    }
  } finally {
    await browser?.stop();
    for (const proxy of proxies) await proxy.close();
    for (const { server } of started) await server.stop();
    fs.rmSync(certDir, { recursive: true, force: true });
    fs.rmSync(env.UPLOAD_DIR!, { recursive: true, force: true });
  }
}

await main();
