/**
 * Nothing writes to Postgres except through app/operations/ (docs/decisions/012-operations-layer.md). A door
 * (a route, component, utility, analytics module, the worker or server.ts) that writes itself is a lint error
 * (soko/no-writes-outside-operations in eslint.config.js, checked by tests/integration/lint-rules.test.ts).
 * What a lint rule cannot see is which model functions write: this walks the source, finds the model
 * functions whose body runs an insert, update, delete, a raw write or a transaction (or calls one that does),
 * and fails if a door imports one. Operations may; models may (they are what operations call); the
 * migration tooling writes the schema and is not a door.
 */
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function sourceFiles(dir: string): string[] {
  const full = path.join(root, dir);
  if (!fs.existsSync(full)) return [];
  if (fs.statSync(full).isFile()) return [dir];
  return fs.readdirSync(full, { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.(ts|tsx)$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

/** Comments out of the way, so a comment that mentions "insert" is not a write. */
const withoutComments = (source: string) => source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1");

/** A query builder on a table (`db("users")`, `trx("x as y")`, `tx.trx(...)`) or a raw statement. */
const BUILDER = /\b(?:db|trx|knex|tx\.trx|getDb\(\)|admin)\s*\(\s*["'`]/;
const WRITE_METHOD = /\.(?:insert|update|del|delete|increment|decrement|truncate|upsert)\s*\(/;
const RAW_WRITE = /\.raw\s*\(\s*[`"'][\s\S]*?\b(?:INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|TRUNCATE|ALTER\s+TABLE|CREATE\s+TABLE|DROP\s+TABLE)\b/i;
const TRANSACTION = /\b(?:db|knex|getDb\(\))\.transaction\s*\(/;

/** Whether a piece of code writes to Postgres: a statement that builds on a table and calls a write method, a raw write, or opens a transaction. */
export function writes(code: string): boolean {
  const clean = withoutComments(code);
  if (RAW_WRITE.test(clean) || TRANSACTION.test(clean)) return true;
  return clean.split(/;\s*\n|;\s*$/m).some((statement) => BUILDER.test(statement) && WRITE_METHOD.test(statement));
}

/** The top-level functions of a module (exported or not), with their bodies (up to the next top-level declaration). */
function topLevelFunctions(source: string): Map<string, { body: string; exported: boolean }> {
  const found = new Map<string, { body: string; exported: boolean }>();
  const starts = [
    ...source.matchAll(/^(export\s+)?(?:default\s+)?(?:async\s+)?(?:function\s+(\w+)|const\s+(\w+)\s*=|let\s|class\s|type\s|interface\s|declare\s)/gm),
  ];
  starts.forEach((m, i) => {
    const name = m[2] ?? m[3];
    if (!name) return;
    const end = i + 1 < starts.length ? starts[i + 1]!.index! : source.length;
    found.set(name, { body: source.slice(m.index!, end), exported: Boolean(m[1]) });
  });
  return found;
}

/** `import { a, b as c } from "…"`: the names imported and the module they come from. */
function namedImports(source: string): { names: string[]; from: string }[] {
  return [...source.matchAll(/import\s+(?:type\s+)?\{([^}]*)\}\s+from\s+["']([^"']+)["']/g)]
    .filter((m) => !/^\s*import\s+type\b/.test(m[0]))
    .map((m) => ({
      names: m[1]!
        .split(",")
        .map((n) => n.trim())
        .filter((n) => n && !n.startsWith("type "))
        .map((n) => n.split(/\s+as\s+/)[0]!.trim()),
      from: m[2]!,
    }));
}

/** The repository path of an import, for `~/…` and relative specifiers; null for packages. */
function resolve(from: string, importer: string): string | null {
  let base: string;
  if (from.startsWith("~/")) base = path.join("app", from.slice(2));
  else if (from.startsWith(".")) base = path.join(path.dirname(importer), from);
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, path.join(base, "index.ts")]) {
    if (fs.existsSync(path.join(root, candidate)) && fs.statSync(path.join(root, candidate)).isFile()) return path.normalize(candidate);
  }
  return null;
}

const MODELS = sourceFiles("app/models");
/**
 * Model functions that write, by module path: a function whose body writes, or calls a function of its own
 * module or an imported model function that writes (repeated until nothing more is found).
 */
function modelWriters(): Map<string, Set<string>> {
  const modules = MODELS.map((file) => {
    const source = fs.readFileSync(path.join(root, file), "utf8");
    return { file, functions: topLevelFunctions(source), imports: namedImports(source).map((i) => ({ ...i, target: resolve(i.from, file) })) };
  });
  const writing = new Map<string, Set<string>>(modules.map((m) => [m.file, new Set<string>()]));
  for (const m of modules) for (const [name, f] of m.functions) if (writes(f.body)) writing.get(m.file)!.add(name);
  for (let changed = true; changed;) {
    changed = false;
    for (const m of modules) {
      const known = writing.get(m.file)!;
      const called = new Set(known);
      for (const i of m.imports) for (const n of i.names) if (i.target && writing.get(i.target)?.has(n)) called.add(n);
      for (const [name, f] of m.functions) {
        if (known.has(name)) continue;
        if ([...called].some((w) => w !== name && new RegExp(`\\b${w}\\s*\\(`).test(f.body))) {
          known.add(name);
          changed = true;
        }
      }
    }
  }
  const exported = new Map<string, Set<string>>();
  for (const m of modules) exported.set(m.file, new Set([...writing.get(m.file)!].filter((n) => m.functions.get(n)?.exported)));
  return exported;
}

/** The doors and everything they share: routes, components, utilities, analytics, the worker, the server. */
const DOORS = [...sourceFiles("app"), ...sourceFiles("worker"), "server.ts"].filter(
  (file) =>
    !file.startsWith(path.join("app", "operations")) &&
    !file.startsWith(path.join("app", "models")) &&
    // Schema migrations are not a door: they write the schema, before anything serves.
    !/migrate\.server\.ts$/.test(file),
);

function violations(files: string[], writers: Map<string, Set<string>>): string[] {
  const found: string[] = [];
  for (const file of files) {
    const source = fs.readFileSync(path.join(root, file), "utf8");
    for (const { names, from } of namedImports(source)) {
      const target = resolve(from, file);
      const modelWrites = target ? writers.get(target) : undefined;
      if (!modelWrites) continue;
      for (const name of names) if (modelWrites.has(name)) found.push(`${file} imports ${name} (a write) from ${target}`);
    }
  }
  return found;
}

describe("the operations boundary", () => {
  it("recognises a write, so the walk below can fail", () => {
    expect(writes(`await db("users").where({ id }).update({ name });`)).toBe(true);
    expect(writes(`await trx("activity")\n  .insert({ user_id: id });`)).toBe(true);
    expect(writes(`await db.raw("DELETE FROM sessions WHERE id = ?", [id]);`)).toBe(true);
    expect(writes(`await db.transaction(async (trx) => {});`)).toBe(true);
    expect(writes(`const rows = await db("users").where({ id }).first("name");\nform.delete("images");`)).toBe(false);
    expect(writes(`// db("users").update({ x }) in a comment\nconst a = 1;`)).toBe(false);
    const writers = modelWriters();
    expect(writers.get(path.join("app", "models", "session.server.ts"))?.has("createSession")).toBe(true);
    expect(writers.get(path.join("app", "models", "session.server.ts"))?.has("getSessionUser")).toBe(false);
    // Through a function of its own module that writes.
    expect(writers.get(path.join("app", "models", "user.server.ts"))?.has("getSettings")).toBe(false);
  });

  it("finds no route, component, utility, worker module or server.ts that imports a model function that writes", () => {
    expect(DOORS.length).toBeGreaterThan(40);
    expect(violations(DOORS, modelWriters())).toEqual([]);
  });
});
