/**
 * The readable API reference at /api/docs (ADR 041), as plain data read from the OpenAPI document: each tag's
 * calls with their method, path, words, who may call, parameters, body fields and responses. Made on the
 * server from the same document /api/v1/openapi.json serves, so the page can describe only what the router
 * does. The page itself (app/routes/api.docs.tsx) only lays this out.
 */
import { API_CALLS } from "./calls.server";
import { openApiDocument } from "./openapi.server";
import { API_PREFIX } from "./router.server";

/** A JSON Schema as OpenAPI 3.1 writes one (only what the reference reads). */
type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  enum?: unknown[];
  const?: unknown;
  default?: unknown;
  nullable?: boolean;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
};

type Parameter = { name: string; in: string; required?: boolean; description?: string; schema?: Schema };
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  "x-access"?: string;
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, { schema: Schema }> };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
};
type Document = {
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema>; securitySchemes?: Record<string, { description?: string }> };
};

/** One field of a body, an answer, or a parameter: its type in words, its limits, and what is inside it. */
export type RefField = { name: string; type: string; required: boolean; description: string | null; limits: string[]; fields: RefField[] };
export type RefResponse = { status: string; description: string; fields: RefField[] };
export type RefCall = {
  id: string;
  method: string;
  path: string;
  summary: string;
  description: string | null;
  access: string;
  parameters: (RefField & { where: string })[];
  body: { type: string; fields: RefField[] } | null;
  responses: RefResponse[];
};
export type Reference = {
  title: string;
  version: string;
  description: string;
  base: string;
  tokens: string;
  failure: RefField[];
  tags: { name: string; id: string; calls: RefCall[] }[];
};

const ACCESS: Record<string, string> = {
  public: "Anyone: no token needed (a token, if sent, must be valid, and names the member).",
  member: "A member's token.",
  admin: "An admin's token.",
};
const NESTING = 5;

let made: Reference | null = null;

/** The reference of the app's calls, made once per process (the document does not change while it runs). */
export function apiReference(): Reference {
  made ??= referenceOf(openApiDocument(API_CALLS) as Document);
  return made;
}

/** The reference of a document: tags in the order their first call comes, calls in the document's order. */
export function referenceOf(document: Document): Reference {
  const schemas = document.components?.schemas ?? {};
  const tags = new Map<string, RefCall[]>();
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const tag = operation.tags?.[0] ?? "Other";
      if (!tags.has(tag)) tags.set(tag, []);
      tags.get(tag)!.push(callOf(path, method, operation, schemas));
    }
  }
  return {
    title: document.info.title,
    version: document.info.version,
    description: document.info.description ?? "",
    base: API_PREFIX,
    tokens: document.components?.securitySchemes?.bearer?.description ?? "",
    failure: schemas.Failure ? fieldsOf(schemas.Failure, schemas, 0) : [],
    tags: [...tags].map(([name, calls]) => ({ name, id: `tag-${slug(name)}`, calls })),
  };
}

function callOf(path: string, method: string, op: Operation, schemas: Record<string, Schema>): RefCall {
  const optional = op.security?.some((requirement) => Object.keys(requirement).length === 0) ?? true;
  const bodyType = op.requestBody ? Object.keys(op.requestBody.content)[0]! : null;
  return {
    id: op.operationId,
    method: method.toUpperCase(),
    path,
    summary: op.summary ?? "",
    description: op.description ?? null,
    access: ACCESS[op["x-access"] ?? (optional ? "public" : "member")] ?? ACCESS.member!,
    parameters: (op.parameters ?? []).map((p) => ({
      ...fieldOf(p.name, p.schema ?? {}, schemas, p.required ?? false, 0),
      ...(p.description ? { description: p.description } : {}),
      where: p.in,
    })),
    body: bodyType ? { type: bodyType, fields: fieldsOf(op.requestBody!.content[bodyType]!.schema, schemas, 0) } : null,
    responses: Object.entries(op.responses).map(([status, response]) => {
      const schema = response.content?.["application/json"]?.schema;
      // Failures all have the one shape (listed once); a success's fields are its own.
      const failure = schema?.$ref === "#/components/schemas/Failure";
      return { status, description: response.description, fields: schema && !failure ? fieldsOf(schema, schemas, 0) : [] };
    }),
  };
}

function resolve(schema: Schema, schemas: Record<string, Schema>): Schema {
  let s = schema;
  for (let i = 0; s.$ref && i < 10; i++) s = schemas[s.$ref.replace("#/components/schemas/", "")] ?? {};
  return s;
}

/** The schema's variants when it is one of several (`anyOf`/`oneOf`); a lone `allOf` is its one part. */
function variants(schema: Schema): Schema[] {
  return schema.anyOf ?? schema.oneOf ?? (schema.allOf?.length === 1 ? schema.allOf : [schema]);
}

/** A schema's type in words: `string (date-time)`, `integer or null`, `array of object`, `"android", "ios" or "api"`. */
export function typeOf(schema: Schema, schemas: Record<string, Schema>): string {
  const s = resolve(schema, schemas);
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.enum) return orList(s.enum.map((v) => JSON.stringify(v)));
  const parts = variants(s);
  if (parts.length > 1 || parts[0] !== s) return orList([...new Set(parts.map((p) => typeOf(p, schemas)))]);
  const types = Array.isArray(s.type) ? [...s.type] : s.type ? [s.type] : [];
  if (s.nullable) types.push("null");
  if (!types.length) return s.properties ? "object" : "any";
  return orList(
    types.map((t) => {
      if (t === "array") return `array of ${s.items ? typeOf(s.items, schemas) : "any"}`;
      if (t === "string" && s.format) return `string (${s.format})`;
      return t;
    }),
  );
}

const orList = (words: string[]) => (words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words.at(-1)}` : (words[0] ?? "any"));

/** A schema's limits in words: lengths, ranges, patterns, defaults. */
function limitsOf(schema: Schema): string[] {
  const limits: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: string) => {
    if (min !== undefined && max !== undefined) limits.push(`${min} to ${max}${unit}`);
    else if (min !== undefined) limits.push(`at least ${min}${unit}`);
    else if (max !== undefined) limits.push(`at most ${max}${unit}`);
  };
  range(schema.minLength, schema.maxLength, " characters");
  range(schema.minItems, schema.maxItems, " items");
  range(schema.minimum, schema.maximum, "");
  if (typeof schema.exclusiveMinimum === "number") limits.push(`more than ${schema.exclusiveMinimum}`);
  if (typeof schema.exclusiveMaximum === "number") limits.push(`less than ${schema.exclusiveMaximum}`);
  if (schema.pattern) limits.push(`matches ${schema.pattern}`);
  if (schema.default !== undefined) limits.push(`default ${JSON.stringify(schema.default)}`);
  return limits;
}

function fieldOf(name: string, schema: Schema, schemas: Record<string, Schema>, required: boolean, depth: number): RefField {
  const s = resolve(schema, schemas);
  return {
    name,
    type: typeOf(s, schemas),
    required,
    description: schema.description ?? s.description ?? null,
    limits: variants(s).flatMap(limitsOf),
    fields: depth < NESTING ? fieldsOf(s, schemas, depth + 1) : [],
  };
}

/** The fields inside a schema: an object's properties, those of an array's items, or of an object among variants. */
function fieldsOf(schema: Schema, schemas: Record<string, Schema>, depth: number): RefField[] {
  const s = resolve(schema, schemas);
  if (s.properties) {
    const required = new Set(s.required ?? []);
    return Object.entries(s.properties).map(([name, child]) => fieldOf(name, child, schemas, required.has(name), depth));
  }
  if (s.items) return fieldsOf(s.items, schemas, depth);
  const parts = variants(s);
  if (parts.length > 1 || parts[0] !== s) {
    const withFields = parts.map((p) => fieldsOf(p, schemas, depth)).find((f) => f.length);
    return withFields ?? [];
  }
  return [];
}

const slug = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "");
