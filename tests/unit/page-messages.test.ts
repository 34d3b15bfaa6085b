/**
 * A page that sends only some areas of a namespace (`pageMessages(request, ["orders.checkout", …])`, ADR 047)
 * sends every area its screen uses: the keys of that namespace written in the route module and in the modules
 * it imports (browser code: not `.server` modules; `import type` left out) must be covered by its loader's list,
 * its parent layouts' or the root's `common`. A page that left one out would show the key itself. (A page that
 * sends whole namespaces is covered by the end-to-end specs; module-level imports are too coarse to check those:
 * a schema module holds the keys of several pages' forms.)
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { readSourceCatalogues, wordsOfRef, wordsRefFor } from "~/i18n/catalog.server";
import { LOCALES } from "~/i18n/locales";
import { areasShown } from "~/i18n/messages.server";
import { STEP_WORDS, stepForms, type OrderForm } from "~/components/order-steps";

const SERVER_ONLY = new Set(["ops", "mail", "notify", "api"]);
const keys = new Set(Object.values(readSourceCatalogues(path.resolve("app/locales")).en).flatMap((messages) => Object.keys(messages)));

/** The module a `~/…` or relative import names, if it is one of ours. */
function resolveImport(from: string, spec: string): string | null {
  const base = spec.startsWith("~/") ? path.resolve("app", spec.slice(2)) : spec.startsWith(".") ? path.resolve(path.dirname(from), spec) : null;
  if (!base) return null;
  for (const candidate of [base, `${base}.tsx`, `${base}.ts`, path.join(base, "index.ts")]) {
    if (existsSync(candidate) && /\.tsx?$/.test(candidate)) return candidate;
  }
  return null;
}

/** The catalogue keys written in a module and in the browser modules it imports. */
function keysUsed(file: string, seen = new Set<string>()): Set<string> {
  const used = new Set<string>();
  const visit = (module: string) => {
    if (seen.has(module)) return;
    seen.add(module);
    const text = readFileSync(module, "utf8");
    for (const [, key] of text.matchAll(/["'`]([a-z][a-zA-Z0-9]*(?:\.[A-Za-z0-9_-]+)+)["'`|]/g)) if (keys.has(key!)) used.add(key!);
    // Imports of code (not `import type`), and re-exports.
    for (const [, spec] of text.matchAll(/^(?:import|export)\s+(?!type\b)[^;]*?from\s+"([^"]+)"/gms)) {
      const next = resolveImport(module, spec!);
      if (next && !next.endsWith(".server.ts") && !next.includes(`${path.sep}i18n${path.sep}`)) visit(next);
    }
  };
  visit(file);
  return used;
}

/**
 * The areas of a table of a page's parts (`...areasShown(NAME, shown)`): the strings of `const NAME = { … };`,
 * in the module or in the one it imports NAME from.
 */
function tableAreas(file: string, name: string): string[] {
  const text = readFileSync(file, "utf8");
  const table = new RegExp(`^(?:export )?const ${name}\\b[^=]*= \\{$([\\s\\S]*?)^\\};$`, "m").exec(text);
  if (table) return [...table[1]!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!);
  for (const [, names, spec] of text.matchAll(/^import \{([^}]*)\} from "([^"]+)"/gm)) {
    const from = names!.split(",").some((n) => n.trim() === name) ? resolveImport(file, spec!) : null;
    if (from) return tableAreas(from, name);
  }
  throw new Error(`${path.relative(process.cwd(), file)}: no table ${name} found for areasShown`);
}

/**
 * What a route module's loader asks pageMessages for (every call's list): its names, and every area of a
 * table whose parts it sends as it shows them (`...areasShown(TABLE, shown)`): the page may send any.
 */
function declared(file: string): string[] {
  const text = readFileSync(file, "utf8");
  return [...text.matchAll(/pageMessages\(\s*request\s*,\s*\[([^\]]*)\]/g)].flatMap(([, list]) => [
    ...[...list!.matchAll(/"([^"]+)"/g)].map((m) => m[1]!),
    ...[...list!.matchAll(/areasShown\(\s*(\w+)/g)].flatMap(([, table]) => tableAreas(file, table!)),
  ]);
}

/** A flat route's parent layouts: `messages.$id.tsx` is inside `messages.tsx` (a segment ending in `_` is not). */
function parents(file: string): string[] {
  const dir = path.dirname(file);
  const segments = path.basename(file, ".tsx").split(".");
  const out: string[] = [];
  for (let i = 1; i < segments.length; i++) {
    if (segments[i - 1]!.endsWith("_")) break;
    const parent = path.join(dir, `${segments.slice(0, i).join(".")}.tsx`);
    if (existsSync(parent)) out.push(parent);
  }
  return out;
}

const covers = (names: string[], key: string) => names.some((name) => key === name || key.startsWith(`${name}.`));

const routeFiles = ["app/routes", "app/admin"].flatMap((dir) =>
  readdirSync(path.resolve(dir))
    .filter((f) => f.endsWith(".tsx") && !f.endsWith(".test.tsx"))
    .map((f) => path.resolve(dir, f)),
);

describe("each page's words", () => {
  it("finds the route modules, their keys, and what they send", () => {
    expect(routeFiles.length).toBeGreaterThan(40);
    expect(keysUsed(path.resolve("app/routes/orders_.$id.tsx")).size).toBeGreaterThan(100);
    expect(declared(path.resolve("app/routes/gig.$id_.order.tsx"))).toContain("orders.checkout");
    expect(declared(path.resolve("app/routes/orders_.$id.tsx"))).toEqual(expect.arrayContaining(["orders.order", "orders.steps.deliver", "orders.review"]));
    expect(parents(path.resolve("app/routes/messages.$id.tsx"))).toEqual([path.resolve("app/routes/messages.tsx")]);
    expect(parents(path.resolve("app/routes/orders_.$id.tsx"))).toEqual([]);
  });

  it.each(routeFiles.map((f) => [path.relative(process.cwd(), f), f]))("%s sends every key its screen uses", (_name, file) => {
    const sent = ["common", ...declared(file), ...parents(file).flatMap(declared)];
    // The namespaces this page sends only areas of.
    const partial = new Set(sent.filter((name) => name.includes(".")).map((name) => name.split(".")[0]!));
    const missing = [...keysUsed(file)].filter((key) => partial.has(key.split(".")[0]!) && !SERVER_ONLY.has(key.split(".")[0]!) && !covers(sent, key));
    expect(missing).toEqual([]);
  });

  it.each(routeFiles.map((f) => [path.relative(process.cwd(), f), f]))("%s's words can be served as the file its document names (ADR 048)", (_name, file) => {
    const names = declared(file);
    if (!names.length) return;
    for (const locale of LOCALES) {
      const ref = wordsRefFor(locale, names);
      expect(wordsOfRef(ref), ref).toMatchObject({ current: true });
    }
  });
});

describe("the order page's step forms", () => {
  /** Each form of app/components/order-steps.tsx, and the step whose words it says. */
  const FORM_OF: Record<string, OrderForm> = {
    DeliverForm: "deliver",
    RevisionForm: "revision",
    ReviewForm: "review",
    ApproveStep: "approve",
    CancelStep: "cancel",
    DisputeStep: "dispute",
  };

  it("each says only its own step's words, which the page sends with it (STEP_WORDS)", () => {
    const text = readFileSync(path.resolve("app/components/order-steps.tsx"), "utf8");
    const components = [...text.matchAll(/^export function (\w+)\(/gm)].map((m, i, all) => ({ name: m[1]!, body: text.slice(m.index, all[i + 1]?.index) }));
    expect(components.filter((c) => c.name in FORM_OF).map((c) => c.name)).toEqual(expect.arrayContaining(Object.keys(FORM_OF)));
    for (const { name, body } of components) {
      const stepKeys = [...body.matchAll(/"(orders\.steps\.[A-Za-z.]+)"/g)].map((m) => m[1]!).filter((key) => keys.has(key));
      const form = FORM_OF[name];
      if (!form) {
        expect(stepKeys, `${name} is no step form`).toEqual([]);
        continue;
      }
      expect(stepKeys.length, name).toBeGreaterThan(0);
      expect(
        stepKeys.filter((key) => !covers([...STEP_WORDS[form]], key)),
        `${name}: words of another step`,
      ).toEqual([]);
    }
  });

  it("sends a table's areas for the parts shown, in the table's order", () => {
    expect(areasShown(STEP_WORDS, new Set<OrderForm>(["dispute", "review"]))).toEqual(["orders.steps.review", "orders.review", "orders.steps.dispute"]);
    expect(areasShown(STEP_WORDS, stepForms(["deliver", "request_cancel", "dispute"], true))).toEqual([
      "orders.steps.deliver",
      "orders.steps.cancel",
      "orders.steps.dispute",
    ]);
  });
});
