/**
 * Upload calls (ADR 041): a gig image (stored as the gig editor stores one: its key is what POST /gigs takes in
 * `images`), and documents (stored as an order's files are, kept for their member until a message, an order or
 * a delivery names their keys). Every file counts against the member's upload quota, as on the pages.
 *
 * Also the API's reader of multipart bodies (readFileParts), which the avatar call shares: the pages' reader
 * (app/server/form-data.server.ts) over the Express request, with the failures answered as the API answers them.
 */
import { DEFAULT_LOCALE, type Locale } from "~/i18n/locales";
import { msg } from "~/i18n/message-key";
import { Readable } from "node:stream";
import type { Request as ExpressRequest, Response as ExpressResponse } from "express";
import { z } from "zod";
import { attachImage } from "~/operations/gigs.server";
import { invalid, type Coded, type Failure, type Result } from "~/operations/core.server";
import { uploadDocuments } from "~/operations/uploads.server";
import { FORM_BODY_LIMIT, ORDER_FILES_BODY_LIMIT } from "~/server/body-limit.server";
import { MAX_ORDER_FILE_BYTES, MAX_ORDER_FILES, type StoredOrderFile } from "~/server/files/order-files.server";
import { imageUrl, MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { readMultipartForm } from "~/server/form-data.server";
import { invalidBody, sendCoded, sendFailure } from "../answers.server";
import { ANSWERED, call } from "../route.server";

const MB = 1024 * 1024;

/** The field every upload call reads its files from. */
export const FILE_FIELD = "file";

const UNREADABLE = "api.uploads.unreadable";

/** The Express request as a web Request, its body still unread, for the pages' multipart reader. */
function webRequestOf(req: ExpressRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return new Request(`http://api.invalid${req.originalUrl}`, {
    method: req.method,
    headers,
    body: Readable.toWeb(req) as ReadableStream<Uint8Array>,
    duplex: "half",
  } as RequestInit);
}

/**
 * The files of a multipart call's `file` parts (a part left empty, as a form sends an unchosen file, is none),
 * or ANSWERED once it has answered: 413 for a body over `maxBodyBytes` (or with more parts or a larger field
 * than any form of ours), 413 with `oversized`'s code for a file over `maxFileBytes` (the rest of the body is
 * read, so the file can be named), 400 for a body that is not multipart or has other fields than `file`.
 */
export async function readFileParts(
  req: ExpressRequest,
  res: ExpressResponse,
  {
    maxFileBytes,
    maxBodyBytes,
    oversized,
    locale = DEFAULT_LOCALE,
  }: { maxFileBytes: number; maxBodyBytes: number; oversized: (file: string) => Coded; locale?: Locale },
): Promise<File[] | typeof ANSWERED> {
  let read: Awaited<ReturnType<typeof readMultipartForm>>;
  try {
    read = await readMultipartForm(webRequestOf(req), { maxFileBytes, maxBodyBytes });
  } catch (error) {
    // The pages' reader throws its 413 (too many parts, a typed field too large) as a page's answer.
    if (!(error instanceof Response)) throw error;
    sendCoded(res, 413, { code: "request.too_large", params: { maxBytes: maxBodyBytes } }, { Connection: "close" }, locale);
    return ANSWERED;
  }
  if (read === "too-large") {
    sendCoded(res, 413, { code: "request.too_large", params: { maxBytes: maxBodyBytes } }, { Connection: "close" }, locale);
    return ANSWERED;
  }
  if (read === "malformed") {
    sendFailure(res, 400, invalidBody({ form: [{ code: "schema", message: UNREADABLE }] }, locale));
    return ANSWERED;
  }
  if (read.oversized.length) {
    sendCoded(res, 413, oversized(read.oversized[0]!), {}, locale);
    return ANSWERED;
  }
  const others = [...new Set([...read.form.keys()].filter((name) => name !== FILE_FIELD))];
  if (others.length) {
    const issues = Object.fromEntries(
      others.map((name) => [name, [{ code: "schema" as const, message: msg("api.uploads.onlyFiles", { field: FILE_FIELD }) }]]),
    );
    sendFailure(res, 400, invalidBody(issues, locale));
    return ANSWERED;
  }
  const files: File[] = [];
  for (const value of read.form.getAll(FILE_FIELD)) {
    if (typeof value === "string") {
      sendFailure(res, 400, invalidBody({ [FILE_FIELD]: [{ code: "schema", message: "api.uploads.fileNotText" }] }, locale));
      return ANSWERED;
    }
    if (value.size > 0 || value.name !== "") files.push(value);
  }
  return files;
}

/** An operation's failure with the issues it raised beside `from` moved beside `file`, the API's field. */
export function besideFile<T>(result: Result<T>, from: string): Result<T> {
  if (result.ok || result.error !== "invalid" || !(from in result.issues)) return result;
  const { [from]: moved, ...rest } = result.issues;
  return { ...result, issues: { ...rest, [FILE_FIELD]: [...(rest[FILE_FIELD] ?? []), ...moved!] } } satisfies Failure;
}

const ImageAnswer = z.object({
  key: z.string().describe("The image's key: name it in a gig's `images` (POST /gigs, PUT /gigs/{id})."),
  url: z.string().describe("Where the image is served, a path on this site (its large size)."),
});

const DocumentAnswer = z.object({
  key: z.string().describe("The document's key: name it in a message, an order's requirements or a delivery, within 20 hours."),
  name: z.string().describe("The file's name, cleaned of any path."),
  type: z.string().describe("What the file is, by its content (not its name): application/pdf, image/png, text/plain, …"),
  bytes: z.number().int(),
});

const documentOf = (f: StoredOrderFile) => ({ key: f.storageKey, name: f.fileName, type: f.contentType, bytes: f.sizeBytes });

const documentTooLarge = (file: string): Coded => ({ code: "upload.file_too_large", params: { file, maxMegabytes: MAX_ORDER_FILE_BYTES / MB } });

export const uploadCalls = [
  call({
    method: "post",
    path: "/upload/image",
    operationId: "uploadImage",
    summary: "Upload a gig image",
    description:
      "Multipart, the image in the field `file`: JPEG, PNG or WebP, at most 5 MB and 40 megapixels; it is re-encoded and its metadata dropped. " +
      "Sellers only. Counts against the member's upload quota (429 over a rate, 400 over the storage cap).",
    tag: "Uploads",
    access: "member",
    body: "multipart",
    response: ImageAnswer,
    status: 201,
    async handle({ actor, req, res, locale }) {
      const files = await readFileParts(req, res, {
        locale,
        maxFileBytes: MAX_IMAGE_BYTES,
        maxBodyBytes: 2 * MAX_IMAGE_BYTES + FORM_BODY_LIMIT,
        oversized: (file) => ({ code: "image.too_many_bytes", params: { file, maxMegabytes: MAX_IMAGE_BYTES / MB } }),
      });
      if (files === ANSWERED) return ANSWERED;
      if (files.length !== 1) {
        const issue: Coded = files.length ? { code: "upload.too_many_files", params: { max: 1 } } : { code: "image.empty", params: {} };
        return invalid({ [FILE_FIELD]: [issue] });
      }
      const result = besideFile(await attachImage(actor, { file: files[0]! }), "upload");
      if (!result.ok) return result;
      return { ok: true, status: 201, value: { key: result.value.key, url: imageUrl(result.value.key, "large") } };
    },
  }),
  call({
    method: "post",
    path: "/upload/document",
    operationId: "uploadDocument",
    summary: "Upload a document for a message, an order or a delivery",
    description:
      "Multipart, the file in the field `file`: PDF, an image (JPEG, PNG, WebP, GIF), ZIP (Word and Excel documents are ZIP) or plain text, " +
      "judged by its content, at most 10 MB. The answer's key is yours alone and usable for 20 hours. " +
      "Counts against the member's upload quota (429 over a rate, 400 over the storage cap).",
    tag: "Uploads",
    access: "member",
    body: "multipart",
    response: DocumentAnswer,
    status: 201,
    async handle({ actor, req, res, locale }) {
      const files = await readFileParts(req, res, {
        locale,
        maxFileBytes: MAX_ORDER_FILE_BYTES,
        maxBodyBytes: 2 * MAX_ORDER_FILE_BYTES + FORM_BODY_LIMIT,
        oversized: documentTooLarge,
      });
      if (files === ANSWERED) return ANSWERED;
      if (files.length > 1) return invalid({ [FILE_FIELD]: [{ code: "upload.too_many_files", params: { max: 1 } }] });
      const result = await uploadDocuments(actor, { files: await bytesOf(files) });
      if (!result.ok) return result;
      return { ok: true, status: 201, value: documentOf(result.value[0]!) };
    },
  }),
  call({
    method: "post",
    path: "/upload/multiple",
    operationId: "uploadDocuments",
    summary: `Upload up to ${MAX_ORDER_FILES} documents at once`,
    description:
      `Multipart, each file in its own part named \`file\` (up to ${MAX_ORDER_FILES}), each as POST /upload/document takes it. ` +
      "All are stored or none: one file refused refuses them all, beside `file`.",
    tag: "Uploads",
    access: "member",
    body: "multipart",
    response: z.array(DocumentAnswer),
    status: 201,
    async handle({ actor, req, res, locale }) {
      const files = await readFileParts(req, res, {
        locale,
        maxFileBytes: MAX_ORDER_FILE_BYTES,
        maxBodyBytes: ORDER_FILES_BODY_LIMIT,
        oversized: documentTooLarge,
      });
      if (files === ANSWERED) return ANSWERED;
      const result = await uploadDocuments(actor, { files: await bytesOf(files) });
      if (!result.ok) return result;
      return { ok: true, status: 201, value: result.value.map(documentOf) };
    },
  }),
];

const bytesOf = (files: File[]) => Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) })));
