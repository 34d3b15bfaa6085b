/**
 * Gigs, written (ADR 041): a seller creates, edits, publishes, pauses, resumes and deletes their gigs and adds
 * images to them, through the gig operations (app/operations/gigs.server.ts) and the gig editor's own rules
 * (gigFormSchema: a description and the Basic package to publish, each tier's delivery options, prices in
 * whole shillings). A JSON body is turned into the editor's fields and judged by that schema; its issues are
 * named by the body's fields (`packages.basic.priceUgx`). Anyone else's gig is 404; a client's token is 403.
 */
import { Readable } from "node:stream";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { z } from "zod";
import { messageOf, sayIn } from "~/content/operation-messages";
import type { Locale } from "~/i18n/locales";
import { getOwnGig } from "~/models/gig.server";
import { invalid, issuesOf, notFound, ok, type Actor, type Failure, type Issues, type Result } from "~/operations/core.server";
import { addGigImage, deleteGig, pauseGig, publishGig, resumeGig, saveGig } from "~/operations/gigs.server";
import { DESCRIPTION_MAX, gigFormSchema, MAX_FEATURES, MAX_IMAGES, MAX_TAGS, TIERS, TITLE_MAX, type GigIntent } from "~/schemas/gig";
import { FORM_BODY_LIMIT } from "~/server/body-limit.server";
import { getDb } from "~/server/db.server";
import { MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { readMultipartForm } from "~/server/form-data.server";
import { codedBody, sendFailure } from "../answers.server";
import { ANSWERED, call } from "../route.server";
import { IdParams } from "../shapes";
import { gigDetail, GigDetail, GigImage, imageOf } from "./gigs-read.server";
import { msg } from "~/i18n/message-key";

const TAG = "Gigs";

/** One image call's body: the image, one more image's worth (so an image over its limit is refused by name), the fields. */
export const IMAGE_CALL_BODY_LIMIT = 2 * MAX_IMAGE_BYTES + FORM_BODY_LIMIT;

const PackageBody = z
  .object({
    name: z
      .string()
      .max(60, msg("dashboard.gigForm.packageNameTooLong", { max: 60 }))
      .optional()
      .describe("The tier's name (Basic, Standard, Premium) when left out."),
    description: z
      .string()
      .max(600, msg("dashboard.gigForm.packageDescriptionTooLong", { max: 600 }))
      .optional(),
    priceUgx: z.number({ required_error: "api.gigs.priceRequired", invalid_type_error: "api.gigs.priceNumber" }),
    deliveryDays: z
      .number({ required_error: "api.gigs.deliveryRequired", invalid_type_error: "api.gigs.deliveryNumber" })
      .describe("Basic 1, 3, 7 or 14; Standard 3, 7, 14 or 21; Premium 7, 14, 21 or 30."),
    revisions: z
      .number({ invalid_type_error: msg("api.field.numberFrom", { field: "revisions", min: 0, max: 20 }) })
      .optional()
      .describe("0 to 20; 1 when left out."),
    features: z
      .array(z.string())
      .max(MAX_FEATURES, msg("dashboard.gigForm.featuresTooMany", { max: MAX_FEATURES }))
      .optional(),
  })
  .strict();

const GigBody = z
  .object({
    title: z.string({ required_error: "dashboard.gigForm.titleRequired" }).max(TITLE_MAX, msg("dashboard.gigForm.titleTooLong", { max: TITLE_MAX })),
    category: z.string({ required_error: "dashboard.gigForm.categoryRequired" }).max(60).describe("A category's slug (GET /categories)."),
    description: z.string().max(DESCRIPTION_MAX).optional().describe("Needed to publish."),
    tags: z.array(z.string().max(200)).max(100).optional().describe(`At most ${MAX_TAGS}, of at most 30 characters each.`),
    packages: z
      .object({ basic: PackageBody.optional(), standard: PackageBody.optional(), premium: PackageBody.optional() })
      .strict()
      .default({})
      .describe("Basic is needed to publish; a package given is checked in full either way."),
    images: z
      .array(z.string())
      .max(MAX_IMAGES, msg("dashboard.gigForm.tooManyImages", { max: MAX_IMAGES }))
      .optional()
      .describe("Upload keys (POST /gigs/{id}/images answers them), in order; PUT replaces the list."),
    publish: z
      .boolean({ invalid_type_error: msg("api.field.boolean", { field: "publish" }) })
      .optional()
      .describe("true publishes, false saves a draft. Left out: a new gig is a draft, an edited published gig stays published."),
  })
  .strict();
type GigBody = z.infer<typeof GigBody>;

/** The editor's field names as the body's: `basic.price` is `packages.basic.priceUgx`. */
const FIELD_OF: Record<string, string> = { price: "priceUgx", delivery: "deliveryDays" };
function apiIssues(issues: Issues): Issues {
  const renamed: Issues = {};
  for (const [field, list] of Object.entries(issues)) {
    const [first, second] = field.split(".");
    const name =
      field === "upload"
        ? "file"
        : TIERS.includes(first as (typeof TIERS)[number]) && second
          ? `packages.${first}.${FIELD_OF[second] ?? second}`
          : field === "categorySlug"
            ? "category"
            : field;
    (renamed[name] ??= []).push(...list);
  }
  return renamed;
}

/** A failure with its field issues named as the body's. */
const asApi = <T>(result: Result<T>): Result<T> => (!result.ok && result.error === "invalid" ? invalid(apiIssues(result.issues)) : result);

/** The body as the gig editor's fields (every value a string, as a form sends them). */
function formValuesOf(body: GigBody) {
  const tier = (p: z.infer<typeof PackageBody> | undefined) =>
    p
      ? {
          name: p.name ?? "",
          description: p.description ?? "",
          price: String(p.priceUgx),
          delivery: String(p.deliveryDays),
          revisions: p.revisions === undefined ? "" : String(p.revisions),
          features: (p.features ?? []).join("\n"),
        }
      : {};
  return {
    title: body.title,
    category: body.category,
    description: body.description,
    tags: body.tags ?? [],
    images: body.images ?? [],
    basic: tier(body.packages.basic),
    standard: tier(body.packages.standard),
    premium: tier(body.packages.premium),
  };
}

/** Saves a gig from a body through saveGig, after the editor's rules; answers the gig as GET /gigs/{id} does. */
async function save(actor: Actor, locale: Locale, body: GigBody, intent: GigIntent, gigId?: number): Promise<Result<z.input<typeof GigDetail>>> {
  const parsed = gigFormSchema(intent).safeParse(formValuesOf(body));
  if (!parsed.success) return invalid(apiIssues(issuesOf(parsed.error)));
  const saved = asApi(await saveGig(actor, { intent, gig: parsed.data, gigId }));
  if (!saved.ok) return saved;
  return detailAfter(actor, saved.value.id, locale);
}

async function detailAfter(actor: Actor, id: number, locale: Locale): Promise<Result<z.input<typeof GigDetail>>> {
  const gig = await gigDetail(actor, id, locale);
  return gig ? ok(gig) : notFound("gig.not_found");
}

/** The Express request as a web Request, its body streamed, for the form readers the pages use. */
function webRequest(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return new Request(`http://localhost${req.originalUrl}`, {
    method: req.method,
    headers,
    body: Readable.toWeb(req) as unknown as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
}

const unreadable = (): Failure => invalid({ file: [{ code: "schema", message: "api.gigs.unreadableImage" }] });

/**
 * The image in the multipart body's `file` field, read as the gig editor reads its form (the same part and
 * field limits): a file over MAX_IMAGE_BYTES, or a body over IMAGE_CALL_BODY_LIMIT, is answered 413 here.
 */
async function readImage(req: ExpressRequest, res: ExpressResponse, locale: Locale): Promise<File | Failure | typeof ANSWERED> {
  let read: Awaited<ReturnType<typeof readMultipartForm>>;
  try {
    read = await readMultipartForm(webRequest(req), { maxFileBytes: MAX_IMAGE_BYTES, maxBodyBytes: IMAGE_CALL_BODY_LIMIT });
  } catch (error) {
    // Too many parts, or a typed field too large: the reader's 413, in its own words.
    if (!(error instanceof Response)) throw error;
    sendFailure(res, 413, { message: await error.text(), code: "request.too_large" }, { Connection: "close" });
    return ANSWERED;
  }
  if (read === "malformed") return unreadable();
  const tooBig = { code: "image.too_many_bytes" as const, params: { maxMegabytes: MAX_IMAGE_BYTES / (1024 * 1024) } };
  if (read === "too-large") {
    sendFailure(res, 413, codedBody({ code: "request.too_large", params: { maxBytes: IMAGE_CALL_BODY_LIMIT } }, locale), { Connection: "close" });
    return ANSWERED;
  }
  if (read.oversized.length) {
    sendFailure(res, 413, { ...codedBody(tooBig, locale), issues: { file: [{ code: tooBig.code, message: messageOf(tooBig, locale) }] } });
    return ANSWERED;
  }
  const file = read.form.get("file");
  if (!(file instanceof File) || file.size === 0) return invalid({ file: [{ code: "image.empty", params: {} }] });
  return file;
}

/** POST /gigs/{id}/pause or /resume: the operation of that name, then the gig as it now is. */
const statusStep = (step: "pause" | "resume", operation: typeof pauseGig, summary: string) =>
  call({
    method: "post",
    path: `/gigs/{id}/${step}`,
    operationId: `${step}Gig`,
    summary,
    tag: TAG,
    access: "member",
    params: IdParams,
    response: GigDetail,
    failures: [404, 409],
    async handle({ actor, params, locale }) {
      const result = await operation(actor, { gigId: params.id });
      return result.ok ? detailAfter(actor, params.id, locale) : result;
    },
  });

export const gigWriteCalls = [
  call({
    method: "post",
    path: "/gigs",
    operationId: "createGig",
    summary: "Create a gig, as a draft or published",
    description: "Only a freelancer's token. Images are upload keys; add images to a saved gig with POST /gigs/{id}/images.",
    tag: TAG,
    access: "member",
    body: GigBody,
    response: GigDetail,
    status: 201,
    idempotent: true,
    async handle({ actor, body, locale }) {
      const result = await save(actor, locale, body, body.publish ? "publish" : "draft");
      return result.ok ? { ok: true, status: 201, value: result.value } : result;
    },
  }),
  call({
    method: "put",
    path: "/gigs/{id}",
    operationId: "updateGig",
    summary: "Replace a gig's title, category, description, tags, packages and images",
    tag: TAG,
    access: "member",
    params: IdParams,
    body: GigBody,
    response: GigDetail,
    failures: [404],
    async handle({ actor, params, body, locale }) {
      let publish = body.publish;
      if (publish === undefined && actor.kind === "member") publish = (await getOwnGig(getDb(), params.id, actor.user.id))?.status === "published";
      return save(actor, locale, body, publish ? "publish" : "draft", params.id);
    },
  }),
  call({
    method: "delete",
    path: "/gigs/{id}",
    operationId: "deleteGig",
    summary: "Delete a gig with its packages and images",
    description: "Not while it has orders in progress (409): pause it instead.",
    tag: TAG,
    access: "member",
    params: IdParams,
    response: z.object({ id: z.number().int() }),
    failures: [404, 409],
    async handle({ actor, params, locale }) {
      const result = await deleteGig(actor, { gigId: params.id });
      return result.ok ? { ok: true, value: { id: result.value.id }, message: sayIn(locale)("api.gigs.deleted") } : result;
    },
  }),
  call({
    method: "post",
    path: "/gigs/{id}/publish",
    operationId: "publishGig",
    summary: "Publish a gig as it stands (a draft, or a paused gig)",
    description: "The editor's rules: a description and the Basic package; what is missing is named beside its field.",
    tag: TAG,
    access: "member",
    params: IdParams,
    response: GigDetail,
    failures: [404],
    async handle({ actor, params, locale }) {
      const result = asApi(await publishGig(actor, { gigId: params.id }));
      return result.ok ? detailAfter(actor, params.id, locale) : result;
    },
  }),
  statusStep("pause", pauseGig, "Hide a published gig from buyers"),
  statusStep("resume", resumeGig, "Show a paused gig to buyers again"),
  call({
    method: "post",
    path: "/gigs/{id}/images",
    operationId: "addGigImage",
    summary: "Add an image to a gig (multipart, the field `file`)",
    description: `A JPEG, PNG or WebP of at most ${MAX_IMAGE_BYTES / (1024 * 1024)} MB; a gig has at most ${MAX_IMAGES} images. Answers the gig's images, the new one last.`,
    tag: TAG,
    access: "member",
    params: IdParams,
    body: "multipart",
    response: z.object({ images: z.array(GigImage) }),
    status: 201,
    failures: [404],
    async handle({ actor, params, req, res, locale }) {
      const file = await readImage(req, res, locale);
      if (file === ANSWERED) return ANSWERED;
      if (!(file instanceof File)) return file;
      const result = asApi(await addGigImage(actor, { gigId: params.id, file }));
      return result.ok ? { ok: true, status: 201, value: { images: result.value.images.map(imageOf) } } : result;
    },
  }),
];
