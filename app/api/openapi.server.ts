/**
 * The OpenAPI 3.1 document of the JSON API (ADR 041), made from the same list of calls and the same zod schemas
 * that the router validates requests with, so the document cannot describe a call the router does not make.
 * Served at /api/v1/openapi.json; the readable reference at /api/docs is rendered from it.
 */
import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from "@asteasolutions/zod-to-openapi";
import { z, type ZodTypeAny } from "zod";
import { API_PREFIX } from "./router.server";
import type { ApiCall } from "./route.server";

extendZodWithOpenApi(z);

const FailureSchema = z
  .object({
    message: z.string().describe("What went wrong, in words for people."),
    code: z.string().describe("A stable code for programs: the operation's failure code (`order.wrong_state`, `token.invalid`, …)."),
    issues: z
      .record(z.array(z.object({ code: z.string(), message: z.string() })))
      .optional()
      .describe("Field by field (`email`, `query.limit`, `path.id`): each field's problems."),
  })
  .openapi("Failure");

/** The failures every call may answer, and what each means. */
const DOOR_FAILURES: Record<number, string> = {
  400: "The request is not right: malformed JSON, an unknown or wrong field (see `issues`).",
  401: "A token was needed, or the one sent is not valid, has expired or was revoked.",
  403: "The caller (the token's member, or a visitor) may not do this; `code` says why.",
  413: "The body is too large.",
  415: "The body is not of the type this call takes.",
  429: "Too many calls: wait `Retry-After` seconds.",
  503: "A service we depend on is unavailable: try again in `Retry-After` seconds.",
};
const FAILURES: Record<number, string> = {
  404: "No such record, or not yours.",
  409: "The record is not in a state that allows this; `code` says why.",
};

let cached: object | null = null;

/** The document for these calls; the app's calls are generated once per process. */
export function openApiDocument(calls: readonly ApiCall[], { fresh = false } = {}): object {
  if (cached && !fresh) return cached;
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent("securitySchemes", "bearer", {
    type: "http",
    scheme: "bearer",
    description: "A token from POST /auth/login or /auth/register, refreshed with POST /auth/refresh.",
  });
  registry.register("Failure", FailureSchema);
  for (const call of calls) {
    const failures: Record<number, string> = { ...DOOR_FAILURES };
    for (const status of call.failures ?? []) failures[status] = FAILURES[status]!;
    const body = call.body;
    registry.registerPath({
      method: call.method,
      path: call.path,
      operationId: call.operationId,
      summary: call.summary,
      ...(call.description ? { description: call.description } : {}),
      tags: [call.tag],
      // Who may call (public, member, admin): the security requirement cannot tell a member's token from an admin's.
      "x-access": call.access,
      ...(call.access === "public" ? { security: [{}, { [bearer.name]: [] }] } : { security: [{ [bearer.name]: [] }] }),
      request: {
        ...(call.params ? { params: call.params as z.AnyZodObject } : {}),
        ...(call.query ? { query: call.query as z.AnyZodObject } : {}),
        ...(call.idempotent
          ? {
              headers: z.object({
                "Idempotency-Key": z
                  .string()
                  .regex(/^[A-Za-z0-9_-]{8,100}$/)
                  .optional(),
              }),
            }
          : {}),
        ...(body === "multipart"
          ? {
              body: {
                required: true,
                content: { "multipart/form-data": { schema: z.object({ file: z.string().openapi({ type: "string", format: "binary" }) }) } },
              },
            }
          : body
            ? { body: { required: true, content: { "application/json": { schema: body as ZodTypeAny } } } }
            : {}),
      },
      responses: {
        [call.status ?? 200]: {
          description: "Done.",
          content: call.produces
            ? { [call.produces]: { schema: call.response } }
            : { "application/json": { schema: z.object({ data: call.response, message: z.string().optional() }) } },
        },
        ...Object.fromEntries(
          Object.entries(failures).map(([status, description]) => [status, { description, content: { "application/json": { schema: FailureSchema } } }]),
        ),
      },
    });
  }
  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: "3.1.0",
    info: {
      title: "Soko API",
      version: "1.0.0",
      description:
        "The JSON API of Soko, the freelance marketplace for Uganda: everything the website does, for phone apps and partners. " +
        "Answers are `{ data, message? }`; failures `{ message, code, issues? }`. Money is integer UGX with USD beside it; times are ISO 8601 in UTC. " +
        "Soko's words for people (each `message`, a failure's or a timeline's reason) are in the token's member's language, else `Accept-Language`'s " +
        "(`en`, `lg`, `sw`), else English; what members wrote stays as they wrote it. " +
        "Lists are paged by cursor: pass `nextCursor` back as `cursor`.",
      license: { name: "Proprietary", identifier: "LicenseRef-Proprietary" },
      contact: { name: "Soko", url: "https://soko.ug/help" },
    },
    servers: [{ url: API_PREFIX }],
  });
  if (!fresh) cached = document;
  return document;
}
