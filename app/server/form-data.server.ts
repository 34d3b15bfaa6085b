/**
 * Form bodies as our actions read them. Control characters other than tab and line breaks are never part of
 * what a person types, and Postgres refuses NUL in text outright (a 500 if it reached a query), so they are
 * removed from every string value here, once, before any schema sees them.
 *
 * A body that is not a form (JSON, plain text, a multipart body without its boundary) is the sender's
 * mistake: it is answered here with a 415 or a 400 saying so, thrown before any action can store anything,
 * in the request's language (ADR 047: the `ops.form.*` words).
 *
 * Sizes: the body as a whole is capped before any action runs (body-limit.server.ts, 1 MB for a form); here
 * a form may have at most MAX_FORM_PARTS fields and files (no page of ours sends half as many), counted as a
 * multipart body streams in (readFormData counts after its parse: its bodies are at most 1 MB), and a
 * multipart field that is not a file at most MAX_FIELD_BYTES.
 *
 * Multipart bodies are parsed by @mjackson/form-data-parser (Remix's unstable_parseMultipartFormData goes
 * away in React Router 7); each file reaches our handler whole, so one over its limit is dropped (and named)
 * while the rest of the form is still read.
 */
import { MaxFileSizeExceededError, MaxFilesExceededError, parseFormData, type FileUpload } from "@mjackson/form-data-parser";
import { plainWords } from "~/server/plain-words.server";
import { UPLOAD_BODY_LIMIT } from "~/server/body-limit.server";

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

const URLENCODED = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data";

/** The refusals' words, as keys of the `ops` catalogue. */
export const NOT_A_FORM = "ops.form.notAForm";
export const NOT_A_FILE_FORM = "ops.form.notAFileForm";
export const UNREADABLE_FORM = "ops.form.unreadable";

/** Fields and files of one form; the gig editor, our largest, sends about 45. */
export const MAX_FORM_PARTS = 100;
/** A typed field of a multipart form (a file's limit is the caller's). */
export const MAX_FIELD_BYTES = 256 * 1024;
const TOO_MANY_PARTS = { key: "ops.form.tooManyParts", values: { max: MAX_FORM_PARTS } };
const FIELD_TOO_LARGE = { key: "ops.form.fieldTooLarge", values: { max: MAX_FIELD_BYTES / 1024 } };

/** Thrown by the multipart reader to stop the parse (with the words of its refusal); readers answer it with a 413. */
class FormTooLargeError extends Error {
  constructor(readonly words: { key: string; values: Record<string, number> }) {
    super(words.key);
  }
}

/** A refusal of the body, as plain text in the request's language: thrown as the action's answer (`throw await formRefusal(…)`). */
export function formRefusal(request: Request, status: 400 | 413 | 415, key: string, values?: Record<string, number>): Promise<Response> {
  return plainWords(request, status, key, { values });
}

/** The 413 for a form with too many parts or too large a field. */
const tooLarge = (request: Request, error: FormTooLargeError) => formRefusal(request, 413, error.words.key, error.words.values);

export function cleanFormData(form: FormData): FormData {
  const clean = new FormData();
  for (const [name, value] of form.entries()) clean.append(name.replace(CONTROL, ""), typeof value === "string" ? value.replace(CONTROL, "") : value);
  return clean;
}

/** The body's media type, lower case, without parameters; "" when the request names none. */
function mediaType(request: Request): string {
  return (request.headers.get("Content-Type") ?? "").split(";")[0]!.trim().toLowerCase();
}

/**
 * A POST with no Content-Type is a form with no fields only if its body is empty too (`curl -X POST`, a
 * bare button): the schema then says what is missing. Anything else without a type is not a form.
 */
async function emptyForm(request: Request): Promise<FormData> {
  // Drained, not kept: a large body without a type costs no memory. (Cancelling the stream instead would
  // cut the connection before the answer is sent.)
  let bytes = 0;
  const reader = request.body?.getReader();
  for (let chunk = await reader?.read(); chunk && !chunk.done; chunk = await reader!.read()) bytes += chunk.value.length;
  if (bytes > 0) throw await formRefusal(request, 415, NOT_A_FORM);
  return new FormData();
}

/** `request.formData()` for a URL-encoded or multipart form, with control characters removed from every value. */
export async function readFormData(request: Request): Promise<FormData> {
  const type = mediaType(request);
  if (type === "") return emptyForm(request);
  if (type !== URLENCODED && type !== MULTIPART) throw await formRefusal(request, 415, NOT_A_FORM);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    throw await formRefusal(request, 400, UNREADABLE_FORM);
  }
  // The body is at most 1 MB (body-limit.server.ts), so counting after the parse costs little.
  if ([...form.keys()].length > MAX_FORM_PARTS) throw await tooLarge(request, new FormTooLargeError(TOO_MANY_PARTS));
  return cleanFormData(form);
}

/** A multipart form as read: its fields and files, and the names of files over the caller's limit (dropped). */
export type MultipartForm = { form: FormData; oversized: string[] };

/** The body went past the caller's cap (the body-limit middleware already refuses such a body; this holds without it). */
class OverCapError extends Error {}

/**
 * The request's body, counted as it streams in: its bytes (past `maxBytes` it stops with OverCapError) and
 * its parts, by the boundary that opens each of them (past MAX_FORM_PARTS it stops with FormTooLargeError),
 * before the parser has built a single field. Once stopped (or given up by the parser), the rest of the body
 * is read into nothing, so that a client still sending it reads our answer instead of a broken connection.
 *
 * The last bytes of the body are always handed on together: the parser refuses any data it is given after
 * the closing boundary, and a browser sends a line break after it, which the network may deliver apart.
 */
function guardedBody(body: ReadableStream<Uint8Array>, boundary: string, maxBytes: number): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  const delimiter = Buffer.from(`--${boundary}`);
  const keepBack = delimiter.length + 4; // "--boundary--\r\n", the body's end
  let tail = Buffer.alloc(0);
  let held = Buffer.alloc(0);
  let total = 0;
  let delimiters = 0;
  const drain = async () => {
    try {
      while (!(await reader.read()).done);
    } catch {
      // The client went away: nothing left to read.
    }
  };
  const check = (chunk: Uint8Array) => {
    total += chunk.byteLength;
    if (total > maxBytes) throw new OverCapError();
    // A delimiter may be split between two chunks: the end of the last one is searched again.
    const window = Buffer.concat([tail, chunk]);
    for (let at = window.indexOf(delimiter); at !== -1; at = window.indexOf(delimiter, at + delimiter.length)) {
      // n parts have n + 1 delimiters (the last one closes the body).
      if (++delimiters > MAX_FORM_PARTS + 1) throw new FormTooLargeError(TOO_MANY_PARTS);
    }
    tail = window.subarray(Math.max(0, window.length - (delimiter.length - 1)));
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          if (held.length) controller.enqueue(held);
          controller.close();
          return;
        }
        try {
          check(value);
        } catch (error) {
          void drain();
          controller.error(error);
          return;
        }
        const pending = Buffer.concat([held, value]);
        held = pending.subarray(Math.max(0, pending.length - keepBack));
        if (pending.length > keepBack) {
          controller.enqueue(pending.subarray(0, pending.length - keepBack));
          return;
        }
      }
    },
    cancel() {
      void drain();
    },
  });
}

function boundaryOf(request: Request): string | null {
  const match = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(request.headers.get("Content-Type") ?? "");
  return match ? (match[1] ?? match[2] ?? null) : null;
}

/**
 * A multipart form, read in full so that a file over `maxFileBytes` refuses only itself: it is dropped and
 * its file name kept in `oversized`, and everything else is there to be shown back. "too-large" when the body
 * passes `maxBodyBytes`; "malformed" when it is not the multipart form it claims to be. A form of more than
 * MAX_FORM_PARTS parts, or a typed field over MAX_FIELD_BYTES, is answered 413 here (thrown).
 */
export async function readMultipartForm(
  request: Request,
  { maxFileBytes, maxBodyBytes }: { maxFileBytes: number; maxBodyBytes: number },
): Promise<MultipartForm | "too-large" | "malformed"> {
  const boundary = boundaryOf(request);
  if (!boundary || !request.body) return "malformed";
  const guarded = new Request(request.url, {
    method: request.method,
    headers: request.headers,
    body: guardedBody(request.body, boundary, maxBodyBytes),
    duplex: "half",
  } as RequestInit);
  const oversized: string[] = [];
  const keep = (file: FileUpload) => {
    if (file.size <= maxFileBytes) return file;
    oversized.push(file.name);
    return null;
  };
  let form: FormData;
  try {
    // Each part reaches us whole (the parser holds it in memory, within the body's cap), so the parser's own
    // per-part limit is the body's: a file over ours is dropped by `keep`, not by a parse error.
    form = await parseFormData(guarded, { maxFileSize: maxBodyBytes, maxFiles: MAX_FORM_PARTS }, keep);
  } catch (error) {
    if (error instanceof FormTooLargeError) throw await tooLarge(request, error);
    if (error instanceof MaxFilesExceededError) throw await tooLarge(request, new FormTooLargeError(TOO_MANY_PARTS));
    if (error instanceof OverCapError || error instanceof MaxFileSizeExceededError) return "too-large";
    // Anything else that stops the parse is a body that is not the multipart form it claims to be.
    return "malformed";
  }
  for (const value of form.values()) {
    if (typeof value === "string" && Buffer.byteLength(value) > MAX_FIELD_BYTES) throw await tooLarge(request, new FormTooLargeError(FIELD_TOO_LARGE));
  }
  return { form: cleanFormData(form), oversized };
}

/**
 * A multipart form whose files may be at most `maxPartSize` bytes each: "too-large" when a file is bigger
 * (the caller says which field), a 413 for more than MAX_FORM_PARTS parts or a typed field over
 * MAX_FIELD_BYTES, a 415 for a body of another type, a 400 for a broken one.
 */
export async function readMultipartFormData(request: Request, { maxPartSize }: { maxPartSize: number }): Promise<FormData | "too-large"> {
  const type = mediaType(request);
  if (type === "") return emptyForm(request);
  if (type !== MULTIPART) throw await formRefusal(request, 415, NOT_A_FILE_FORM);
  const read = await readMultipartForm(request, { maxFileBytes: maxPartSize, maxBodyBytes: UPLOAD_BODY_LIMIT });
  if (read === "malformed") throw await formRefusal(request, 400, UNREADABLE_FORM);
  if (read === "too-large" || read.oversized.length) return "too-large";
  return read.form;
}

/**
 * The gig editor's form: multipart (it carries images) or, from a client that sends no file, URL-encoded;
 * read as readMultipartForm reads it (the caller refuses "too-large" and "malformed" in the form's own words).
 */
export async function readFileForm(request: Request, { maxFileBytes }: { maxFileBytes: number }): Promise<MultipartForm | "too-large" | "malformed"> {
  if (mediaType(request) !== MULTIPART) return { form: await readFormData(request), oversized: [] };
  return readMultipartForm(request, { maxFileBytes, maxBodyBytes: UPLOAD_BODY_LIMIT });
}
