/**
 * The JSON API from a test's side: a client that sends a call and reads its answer, app tokens made through the
 * model, and the check every contract test makes of every answer: that it fits the schema the OpenAPI document
 * gives for that call and status (ajv, JSON Schema 2020-12, the dialect of OpenAPI 3.1).
 */
import Ajv2020 from "ajv/dist/2020";
import { expect } from "vitest";
import { createAppSession, type AppPlatform } from "~/models/session.server";
import type { Db } from "~/server/db.server";

export type ApiAnswer<T = any> = { status: number; body: T; headers: Headers };

export type CallOptions = { token?: string | null; body?: unknown; headers?: Record<string, string>; raw?: BodyInit };

/** A client of one server's API; each answer is checked against the document unless `unchecked`. */
export function apiClient(baseUrl: string) {
  let document: OpenApi | null = null;
  let ajv: Ajv2020 | null = null;

  async function send<T = any>(method: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.Authorization = `Bearer ${options.token}`;
    let body: BodyInit | undefined = options.raw;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers["Content-Type"] ??= "application/json";
    }
    const res = await fetch(`${baseUrl}/api/v1${path}`, { method: method.toUpperCase(), headers, body, redirect: "manual" });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get("content-type") ?? "").includes("json")) parsed = JSON.parse(text);
    return { status: res.status, body: parsed as T, headers: res.headers };
  }

  /** The document the server serves, and a validator over it. */
  async function contract() {
    if (!document) {
      document = (await send<OpenApi>("get", "/openapi.json")).body;
      ajv = new Ajv2020({ strict: false, validateFormats: false, allErrors: true });
      ajv.addSchema({ ...document, $id: "soko-openapi" } as object);
    }
    return { document, ajv: ajv! };
  }

  return {
    send,
    contract,
    /**
     * Sends a call and checks its answer against the document: the call (its template path, such as
     * `/gigs/{id}`) must be in it, with this status, and the body must fit that status's schema.
     */
    async call<T = any>(method: string, template: string, path: string, options: CallOptions = {}): Promise<ApiAnswer<T>> {
      const answer = await send<T>(method, path, options);
      await expectFitsDocument(await contract(), method, template, answer);
      return answer;
    },
  };
}

export type OpenApi = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: unknown }> }> }>> };

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, "~0").replace(/\//g, "~1")).join("/");

/** The answer's status is one the document lists for the call, and its JSON body fits that response's schema. */
export async function expectFitsDocument({ document, ajv }: { document: OpenApi; ajv: Ajv2020 }, method: string, template: string, answer: ApiAnswer) {
  const operation = document.paths[template]?.[method.toLowerCase()];
  expect(operation, `${method.toUpperCase()} ${template} is in the OpenAPI document`).toBeDefined();
  const response = operation!.responses[String(answer.status)];
  expect(response, `${method.toUpperCase()} ${template} lists status ${answer.status} (body: ${JSON.stringify(answer.body).slice(0, 300)})`).toBeDefined();
  const schema = response!.content?.["application/json"]?.schema;
  if (!schema) return;
  const ref = `soko-openapi#/${pointer("paths", template, method.toLowerCase(), "responses", String(answer.status), "content", "application/json", "schema")}`;
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  const valid = validate(answer.body);
  expect(valid ? [] : validate.errors, `${method.toUpperCase()} ${template} ${answer.status} fits its schema`).toEqual([]);
}

/** An app's token for a member, made through the model (as POST /auth/login makes one). */
export async function createAppToken(db: Db, userId: number, { platform = "api", admin = false }: { platform?: AppPlatform; admin?: boolean } = {}) {
  return (await createAppSession(db, { userId, admin, platform, deviceName: "test device" })).token;
}
