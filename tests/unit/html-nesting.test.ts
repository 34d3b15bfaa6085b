/**
 * No element the HTML parser would move sits where the JSX puts it: a block (a form, a div, a list, a
 * <details>) inside a <p> or a heading-like phrasing element, a link or a control inside a link or a button, a
 * form inside a form. The browser closes the paragraph (or drops the inner link) while it reads the server's
 * HTML, so React's hydration finds another tree, throws (React errors 418 and 423) and renders the page again, wiping what
 * was typed. This walks app/'s JSX: every intrinsic element, and every component of app/ by what it may render
 * anywhere inside it (Form is a form, Link and NavLink are anchors), under each intrinsic ancestor within the
 * same file's tree. The end-to-end specs catch the rest on the pages they visit (tests/support/e2e.ts).
 */
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const root = path.resolve(import.meta.dirname, "../..");

function tsxFiles(dir: string): string[] {
  return fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = path.join(dir, entry.name);
    if (entry.isDirectory()) return tsxFiles(rel);
    return entry.name.endsWith(".tsx") && !entry.name.endsWith(".test.tsx") ? [rel] : [];
  });
}

// HTML's phrasing content (plus SVG's parts): what a <p> may hold.
const PHRASING = new Set(
  "a abbr b bdi bdo br button canvas cite code data datalist del dfn em embed i iframe img input ins kbd label map mark meter noscript object output picture progress q ruby s samp script select slot small span strong sub sup svg template textarea time u var video wbr path circle rect line polyline polygon g text tspan title desc defs linearGradient stop".split(
    " ",
  ),
);
const INTERACTIVE = new Set(["a", "button", "input", "select", "textarea", "label", "details", "embed", "iframe", "form"]);
// Elements whose content model is phrasing content only.
const PHRASING_ONLY = new Set([
  "p",
  "span",
  "strong",
  "em",
  "small",
  "b",
  "i",
  "label",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "dt",
  "legend",
  "time",
  "abbr",
  "code",
]);

function misplaced(ancestor: string, tag: string): boolean {
  if (PHRASING_ONLY.has(ancestor) && !PHRASING.has(tag)) return true;
  if ((ancestor === "a" || ancestor === "button") && INTERACTIVE.has(tag)) return true;
  return ancestor === "form" && tag === "form";
}

type Source = { file: string; sf: ts.SourceFile };
const tagName = (n: ts.JsxOpeningLikeElement) => n.tagName.getText();
const isIntrinsic = (tag: string) => /^[a-z]/.test(tag);

/** Each component of app/ (a capitalised function or const) and the intrinsic tags and components it renders. */
function componentsOf(sources: Source[]) {
  const parts = new Map<string, { tags: Set<string>; uses: Set<string> }>([
    ["Form", { tags: new Set(["form"]), uses: new Set() }],
    ["Link", { tags: new Set(["a"]), uses: new Set() }],
    ["NavLink", { tags: new Set(["a"]), uses: new Set() }],
  ]);
  for (const { sf } of sources) {
    const visit = (n: ts.Node, owner: string | null) => {
      let current = owner;
      if (ts.isFunctionDeclaration(n) && n.name && /^[A-Z]/.test(n.name.text)) current = n.name.text;
      if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && /^[A-Z]/.test(n.name.text) && n.initializer && !ts.isObjectLiteralExpression(n.initializer))
        current = n.name.text;
      if (current && (ts.isJsxOpeningElement(n) || ts.isJsxSelfClosingElement(n))) {
        const part = parts.get(current) ?? { tags: new Set<string>(), uses: new Set<string>() };
        parts.set(current, part);
        const tag = tagName(n);
        if (isIntrinsic(tag)) part.tags.add(tag);
        else part.uses.add(tag.split(".").pop()!);
      }
      ts.forEachChild(n, (child) => visit(child, current));
    };
    visit(sf, null);
  }
  const rendered = (name: string, seen = new Set<string>()): Set<string> => {
    const part = parts.get(name);
    if (!part || seen.has(name)) return new Set();
    seen.add(name);
    return new Set([...part.tags, ...[...part.uses].flatMap((use) => [...rendered(use, seen)])]);
  };
  return rendered;
}

/** Every misplaced element in the sources, as "file:line <Tag> (renders <x>) inside <p> of line N". */
function nestingProblems(sources: Source[]): string[] {
  const rendered = componentsOf(sources);
  const problems: string[] = [];
  for (const { file, sf } of sources) {
    const check = (n: ts.Node, ancestors: { tag: string; line: number }[]) => {
      let inner = ancestors;
      if (ts.isJsxElement(n) || ts.isJsxSelfClosingElement(n)) {
        const open = ts.isJsxElement(n) ? n.openingElement : n;
        const tag = tagName(open);
        const line = sf.getLineAndCharacterOfPosition(open.getStart()).line + 1;
        const tags = isIntrinsic(tag) ? new Set([tag]) : rendered(tag.split(".").pop()!);
        for (const a of ancestors) {
          for (const t of tags) {
            if (misplaced(a.tag, t)) problems.push(`${file}:${line} <${tag}>${t === tag ? "" : ` (renders <${t}>)`} inside <${a.tag}> of line ${a.line}`);
          }
        }
        if (isIntrinsic(tag)) inner = [...ancestors, { tag, line }];
      }
      ts.forEachChild(n, (child) => check(child, inner));
    };
    check(sf, []);
  }
  return problems;
}

const parse = (file: string, text: string): Source => ({ file, sf: ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX) });

describe("HTML nesting in app/'s JSX", () => {
  it("puts no block in a paragraph, no control in a link or button, no form in a form", () => {
    const sources = tsxFiles("app").map((file) => parse(file, fs.readFileSync(path.join(root, file), "utf8")));
    expect(sources.length).toBeGreaterThan(50);
    expect(nestingProblems(sources)).toEqual([]);
  });

  it("finds each kind, directly and through a component", () => {
    const sample = parse(
      "sample.tsx",
      `function Note() { return <details><summary>Why</summary></details>; }
       function Contact() { return <Form method="post"><button>Contact</button></Form>; }
       export function Page() {
         return (
           <div>
             <p>Text <Note /></p>
             <p className="party">Seller: <Link to="/u">Sam</Link> · <Contact /></p>
             <a href="/x"><button>Go</button></a>
             <p>Fine: <strong>bold</strong> and <Link to="/y">a link</Link></p>
           </div>
         );
       }`,
    );
    expect(nestingProblems([sample])).toEqual([
      "sample.tsx:6 <Note> (renders <details>) inside <p> of line 6",
      "sample.tsx:6 <Note> (renders <summary>) inside <p> of line 6",
      "sample.tsx:7 <Contact> (renders <form>) inside <p> of line 7",
      "sample.tsx:8 <button> inside <a> of line 8",
    ]);
  });
});
