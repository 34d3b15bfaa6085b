/**
 * ESLint (flat config): typescript-eslint's recommended rules, React hooks and jsx-a11y on the components,
 * and the repository's own import rules (docs/decisions/039-lint-and-format.md), each scoped to the files it
 * governs. Formatting is Prettier's (.prettierrc.json), so no stylistic rule is on here.
 */
import js from "@eslint/js";
import jsxA11y from "eslint-plugin-jsx-a11y";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** A rule that reports every node matching one of its selectors, with that selector's message. */
function restricted(description, entries) {
  return {
    meta: { type: "problem", docs: { description }, schema: [] },
    create(context) {
      const visitors = {};
      for (const { selector, message } of entries) visitors[selector] = (node) => context.report({ node, message });
      return visitors;
    },
  };
}

/** Strings and identifiers (code, not comments) that match a pattern: the same text a reviewer would grep for. */
const textMatching = (pattern, message) => [
  { selector: `Literal[value=${pattern}]`, message },
  { selector: `TemplateElement[value.raw=${pattern}]`, message },
  { selector: `JSXText[value=${pattern}]`, message },
];

// A query builder on a table (`db("users")`, `trx("x")`, `tx.trx("x")`, `getDb()("x")`): a chain that starts
// with one and calls a write method writes to Postgres.
const BUILDER = [
  "CallExpression[callee.name=/^(db|trx|knex|admin)$/][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
  "CallExpression[callee.object.name='tx'][callee.property.name='trx'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
  "CallExpression[callee.callee.name='getDb'][arguments.0.type=/^(Literal|TemplateLiteral)$/]",
];
const WRITE_METHOD = "CallExpression[callee.property.name=/^(insert|update|del|delete|increment|decrement|truncate|upsert)$/]";
const RAW_WRITE = "/\\b(INSERT\\s+INTO|UPDATE\\s+\\w+\\s+SET|DELETE\\s+FROM|TRUNCATE|ALTER\\s+TABLE|CREATE\\s+TABLE|DROP\\s+TABLE)\\b/i";
const WRITES = "writes to Postgres: a change of state goes through app/operations/ (docs/decisions/012-operations-layer.md)";

/**
 * Words a person reads, written straight into the code (ADR 047): JSX text, the text of attributes people read,
 * and a result's `message`. Every such word comes from the catalogues (app/locales). Names that are the same in
 * every language (Soko, UGX, MTN) and punctuation are not words to translate.
 */
const SAME_IN_EVERY_LANGUAGE = /^[\s\p{P}\p{S}\d]*(?:(?:Soko|UGX|USD|MTN|MoMo|Airtel|Airtel Money|MTN MoMo|API|CSV|S|OK)[\s\p{P}\p{S}\d]*)*$/u;
const READ_ATTRIBUTES = new Set([
  "placeholder",
  "title",
  "alt",
  "aria-label",
  "aria-description",
  "aria-roledescription",
  "label",
  "hint",
  "pendingLabel",
  "legend",
  "summary",
  "description",
  "emptyText",
  "confirm",
]);
const isWords = (text) => typeof text === "string" && /\p{L}{2,}/u.test(text) && !SAME_IN_EVERY_LANGUAGE.test(text);
/** A catalogue key ("orders.checkout.title") or one with values: not words. */
const isKey = (text) => /^[a-z][a-zA-Z0-9]*(?:\.[a-zA-Z0-9_-]+)+(?:\|.*)?$/s.test(text);
const noLiteralWords = {
  meta: { type: "problem", docs: { description: "Words people read come from the message catalogues" }, schema: [] },
  create(context) {
    const say = (node, where) => context.report({ node, message: `Words in ${where} come from the catalogues (app/locales, docs/i18n.md): use t("ns.key").` });
    const literalText = (node) =>
      node.type === "Literal" ? node.value : node.type === "TemplateLiteral" ? node.quasis.map((q) => q.value.cooked).join(" ") : null;
    return {
      JSXText(node) {
        if (isWords(node.value)) say(node, "JSX");
      },
      JSXAttribute(node) {
        const name = typeof node.name.name === "string" ? node.name.name : null;
        if (!name || !READ_ATTRIBUTES.has(name) || !node.value) return;
        const value = node.value.type === "JSXExpressionContainer" ? node.value.expression : node.value;
        const text = literalText(value);
        if (isWords(text) && !isKey(text)) say(node, `the ${name} attribute`);
      },
      // {"words"}, {ok ? "Yes" : "No"}, {label ?? "None"} inside JSX.
      "JSXExpressionContainer > Literal, JSXExpressionContainer > TemplateLiteral, JSXExpressionContainer > ConditionalExpression > Literal, JSXExpressionContainer > ConditionalExpression > TemplateLiteral, JSXExpressionContainer > LogicalExpression > Literal"(
        node,
      ) {
        const container = node.parent.type === "JSXExpressionContainer" ? node.parent : node.parent.parent;
        // An attribute's value: the JSXAttribute visitor judges the attributes people read.
        if (container.parent.type === "JSXAttribute") {
          const name = container.parent.name.name;
          if (!READ_ATTRIBUTES.has(name) || node.parent === container) return;
        }
        const text = literalText(node);
        if (isWords(text) && !isKey(text)) say(node, "JSX");
      },
      Property(node) {
        if (node.key.type !== "Identifier" || node.key.name !== "message") return;
        const text = literalText(node.value);
        if (isWords(text) && !isKey(text) && /\s/.test(text)) say(node, "a message");
      },
    };
  },
};

const soko = {
  rules: {
    "no-literal-words": noLiteralWords,
    "no-writes-outside-operations": restricted("Only app/operations/ and app/models/ write to Postgres", [
      ...BUILDER.map((builder) => ({ selector: `${WRITE_METHOD}:has(${builder})`, message: `This ${WRITES}.` })),
      { selector: `CallExpression[callee.property.name='raw'][arguments.0.value=${RAW_WRITE}]`, message: `This raw statement ${WRITES}.` },
      {
        selector: `CallExpression[callee.property.name='raw'] > TemplateLiteral > TemplateElement[value.raw=${RAW_WRITE}]`,
        message: `This raw statement ${WRITES}.`,
      },
      { selector: "CallExpression[callee.property.name='transaction'][callee.object.name=/^(db|knex)$/]", message: `A transaction ${WRITES}.` },
      { selector: "CallExpression[callee.property.name='transaction'][callee.object.callee.name='getDb']", message: `A transaction ${WRITES}.` },
    ]),
    "knex-in-one-place": restricted("Only app/server/db.server.ts opens knex among the doors", [
      {
        selector: "ImportDeclaration[source.value='knex'][importKind!='type']",
        message: "Only app/server/db.server.ts opens knex here; import its types with `import type`.",
      },
    ]),
    "cookies-in-one-place": restricted("Cookies are read and written only by app/server/cookies.server.ts", [
      { selector: "ImportDeclaration[source.value='cookie']", message: "Cookies are parsed and serialised only in app/server/cookies.server.ts." },
      { selector: "ImportExpression[source.value='cookie']", message: "Cookies are parsed and serialised only in app/server/cookies.server.ts." },
      // A Set-Cookie value written by hand, or a regex that looks for `name=` at a cookie boundary.
      ...textMatching("/Path=\\x2F|SameSite=|HttpOnly|Max-Age=/", "A Set-Cookie value is written only by app/server/cookies.server.ts."),
      { selector: "Literal[regex.pattern=/\\(\\?:\\^\\|;|\\(\\^\\|;/]", message: "A cookie header is parsed only by app/server/cookies.server.ts." },
      ...textMatching("/\\(\\?:\\^\\|;|\\(\\^\\|;/", "A cookie header is parsed only by app/server/cookies.server.ts."),
    ]),
    "clickhouse-client-in-one-place": restricted("ClickHouse clients are made only by app/analytics/clickhouse.server.ts", [
      { selector: "CallExpression[callee.name='createClient']", message: "ClickHouse clients are made only by app/analytics/clickhouse.server.ts." },
      { selector: "CallExpression[callee.property.name='createClient']", message: "ClickHouse clients are made only by app/analytics/clickhouse.server.ts." },
      {
        selector: "ImportDeclaration[source.value='@clickhouse/client'] > ImportSpecifier[imported.name='createClient']",
        message: "ClickHouse clients are made only by app/analytics/clickhouse.server.ts.",
      },
    ]),
    "clickhouse-credentials-in-one-place": restricted("Only app/analytics/clickhouse.server.ts reads the ClickHouse credentials", [
      { selector: "Identifier[name=/^CLICKHOUSE_(USER|PASSWORD)$/]", message: "Only app/analytics/clickhouse.server.ts reads the ClickHouse credentials." },
      ...textMatching("/CLICKHOUSE_USER|CLICKHOUSE_PASSWORD/", "Only app/analytics/clickhouse.server.ts reads the ClickHouse credentials."),
    ]),
    "servers-in-one-place": restricted("Free ports and the web server for tests and benchmarks come from scripts/lib/servers.ts", [
      { selector: "FunctionDeclaration[id.name='freePort']", message: "freePort lives in scripts/lib/servers.ts; import it." },
      { selector: "VariableDeclarator[id.name='freePort'][init]", message: "freePort lives in scripts/lib/servers.ts; import it." },
      {
        selector: ":matches(CallExpression[callee.name='spawn'], CallExpression[callee.property.name='spawn']) > ArrayExpression[elements.0.value='server.ts']",
        message: "The web server for tests and benchmarks is started by scripts/lib/servers.ts.",
      },
    ]),
  },
};

/** The doors of docs/decisions/012-operations-layer.md: everything but operations, models and the migrations. */
const DOORS = {
  files: ["app/**/*.{ts,tsx}", "worker/**/*.ts", "server.ts"],
  ignores: ["app/operations/**", "app/models/**", "**/migrate.server.ts", "**/*.test.{ts,tsx}"],
};
const SOURCES = ["app/**/*.{ts,tsx}", "worker/**/*.ts", "scripts/**/*.{ts,mjs}", "tests/**/*.{ts,tsx}", "server.ts"];
/** Server code, where a cookie is a header to parse (the browser tracker reads document.cookie itself). */
const SERVER = { files: ["app/**/*.{ts,tsx}", "worker/**/*.ts", "server.ts"], ignores: ["**/*.test.{ts,tsx}", "**/*tracker*", "app/server/cookies.server.ts"] };

export default tseslint.config(
  { ignores: ["build/", ".data/", ".cache/", "public/build/", "node_modules/", "test-results/", "tests/fixtures/lint/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser }, ecmaVersion: 2022, sourceType: "module" },
    // Several files carry directives written for rules this config leaves off (no-var on `declare global`).
    linterOptions: { reportUnusedDisableDirectives: "off" },
    rules: {
      // `_`-prefixed names are deliberately unused (a positional argument, a rest sibling that drops a key).
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
      // Rows from knex and parsed JSON are `any` at the edge; the models type them on the way out.
      "@typescript-eslint/no-explicit-any": "off",
      // `a && b()` and `cond ? x() : y()` as statements are used on purpose for effects.
      "@typescript-eslint/no-unused-expressions": ["error", { allowShortCircuit: true, allowTernary: true, allowTaggedTemplates: true }],
      // Control characters in a regex are how the code strips them from user input and file names.
      "no-control-regex": "off",
    },
  },
  {
    files: ["**/*.tsx"],
    plugins: { "react-hooks": reactHooks, "jsx-a11y": jsxA11y },
    languageOptions: { parserOptions: { ecmaFeatures: { jsx: true } } },
    rules: {
      ...reactHooks.configs.recommended.rules,
      ...jsxA11y.flatConfigs.recommended.rules,
      // A gallery's alt text says which picture it is ("<gig>: image 2"); the word is information there.
      "jsx-a11y/img-redundant-alt": "off",
      // A scrolling log is focusable so a keyboard can scroll it (axe's scrollable-region-focusable).
      "jsx-a11y/no-noninteractive-tabindex": ["error", { tags: [], roles: ["tabpanel", "log"], allowExpressionValues: true }],
    },
  },
  { plugins: { soko } },
  { ...DOORS, rules: { "soko/no-writes-outside-operations": "error" } },
  { ...DOORS, ignores: [...DOORS.ignores, "app/server/db.server.ts"], rules: { "soko/knex-in-one-place": "error" } },
  { ...SERVER, rules: { "soko/cookies-in-one-place": "error" } },
  {
    // What people read, in the app's pages and in what its operations and API answer.
    files: ["app/**/*.{ts,tsx}", "worker/**/*.ts"],
    // The tracker's collection endpoint answers the site's own script, not a person (its files say so); the
    // environment's checks speak to the operator starting the server.
    ignores: [
      "**/*.test.{ts,tsx}",
      "app/routes/dev.*.tsx",
      "app/routes/api.docs.tsx",
      "app/analytics/events.ts",
      "app/analytics/ingest.server.ts",
      "app/server/env.server.ts",
    ],
    rules: { "soko/no-literal-words": "error" },
  },
  {
    files: SOURCES,
    // The report tests' chDB engine is a client on an in-process engine: no URL, no credentials.
    ignores: ["app/analytics/clickhouse.server.ts", "tests/support/clickhouse-engines.ts"],
    rules: { "soko/clickhouse-client-in-one-place": "error" },
  },
  {
    files: SOURCES,
    // The environment schema declares them; its own tests and the compose file's test check them there.
    ignores: [
      "app/analytics/clickhouse.server.ts",
      "app/server/env.server.ts",
      "tests/integration/clickhouse-client.test.ts",
      "tests/unit/docker-compose.test.ts",
    ],
    rules: { "soko/clickhouse-credentials-in-one-place": "error" },
  },
  {
    files: SOURCES,
    // npm start's supervisor runs server.ts for people; bench:pages --baseline runs another checkout's server.ts.
    ignores: ["scripts/lib/servers.ts", "scripts/start.ts", "scripts/bench-pages.ts"],
    rules: { "soko/servers-in-one-place": "error" },
  },
);
