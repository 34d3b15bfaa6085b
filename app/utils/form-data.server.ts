/**
 * Form bodies as our actions read them. Control characters other than tab and line breaks are never part of
 * what a person types, and Postgres refuses NUL in text outright (a 500 if it reached a query), so they are
 * removed from every string value here, once, before any schema sees them.
 *
 * A body that is not a form (JSON, plain text, a multipart body without its boundary) is the sender's
 * mistake: it is answered here with a 415 or a 400 saying so, thrown before any action can store anything.
 *
 * Sizes: the body as a whole is capped before any action runs (body-limit.server.ts, 1 MB for a form); here
 * a form may have at most MAX_FORM_PARTS fields and files (no page of ours sends half as many), counted as a
 * multipart body streams in (readFormData counts after its parse: its bodies are at most 1 MB), and a
 * multipart field that is not a file at most MAX_FIELD_BYTES.
 */
import {
  MaxPartSizeExceededError,
  unstable_createMemoryUploadHandler,
  unstable_parseMultipartFormData,
  type UploadHandler,
} from "@remix-run/node";

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

const URLENCODED = "application/x-www-form-urlencoded";
const MULTIPART = "multipart/form-data";

export const NOT_A_FORM = "This page accepts only a form sent from its own page (form fields, not JSON or plain text).";
export const NOT_A_FILE_FORM = "This form carries a file, so it must be sent as multipart/form-data, as its page sends it.";
export const UNREADABLE_FORM = "This form could not be read. Reload the page and send it again.";

/** Fields and files of one form; the gig editor, our largest, sends about 45. */
export const MAX_FORM_PARTS = 100;
/** A typed field of a multipart form (a file's limit is the caller's). */
export const MAX_FIELD_BYTES = 256 * 1024;
export const TOO_MANY_PARTS = `This form has more than ${MAX_FORM_PARTS} fields, more than any page of ours sends.`;
export const FIELD_TOO_LARGE = `A field of this form is larger than ${MAX_FIELD_BYTES / 1024} KB, more than any page of ours takes.`;

/** Thrown by a multipart reader's upload handler to stop the parse; readers answer it with refuseTooLarge. */
export class FormTooLargeError extends Error {}

/** Counts the parts of a multipart form as they arrive; throws FormTooLargeError at one too many. */
export function partCounter() {
  let parts = 0;
  return () => {
    parts += 1;
    if (parts > MAX_FORM_PARTS) throw new FormTooLargeError(TOO_MANY_PARTS);
  };
}

/** The 413 for a form with too many parts or too large a field, thrown as the action's answer. */
export function refuseTooLarge(error: FormTooLargeError): never {
  throw new Response(error.message, { status: 413, headers: { "Content-Type": "text/plain; charset=utf-8" } });
}

export function cleanFormData(form: FormData): FormData {
  const clean = new FormData();
  for (const [name, value] of form.entries()) clean.append(name.replace(CONTROL, ""), typeof value === "string" ? value.replace(CONTROL, "") : value);
  return clean;
}

function refuse(status: 400 | 415, message: string): never {
  throw new Response(message, { status, headers: { "Content-Type": "text/plain; charset=utf-8" } });
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
  if (bytes > 0) refuse(415, NOT_A_FORM);
  return new FormData();
}

/** `request.formData()` for a URL-encoded or multipart form, with control characters removed from every value. */
export async function readFormData(request: Request): Promise<FormData> {
  const type = mediaType(request);
  if (type === "") return emptyForm(request);
  if (type !== URLENCODED && type !== MULTIPART) refuse(415, NOT_A_FORM);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    refuse(400, UNREADABLE_FORM);
  }
  // The body is at most 1 MB (body-limit.server.ts), so counting after the parse costs little.
  if ([...form.keys()].length > MAX_FORM_PARTS) refuseTooLarge(new FormTooLargeError(TOO_MANY_PARTS));
  return cleanFormData(form);
}

/**
 * A multipart form whose files are kept in memory up to `maxPartSize` bytes each: "too-large" when a file
 * is bigger (the caller says which field), a 413 for more than MAX_FORM_PARTS parts or a typed field over
 * MAX_FIELD_BYTES, a 415 for a body of another type, a 400 for a broken one.
 */
export async function readMultipartFormData(request: Request, { maxPartSize }: { maxPartSize: number }): Promise<FormData | "too-large"> {
  const type = mediaType(request);
  if (type === "") return emptyForm(request);
  if (type !== MULTIPART) refuse(415, NOT_A_FILE_FORM);
  const countPart = partCounter();
  const files = unstable_createMemoryUploadHandler({ maxPartSize });
  const fields = unstable_createMemoryUploadHandler({ maxPartSize: MAX_FIELD_BYTES });
  const handler: UploadHandler = async (part) => {
    countPart();
    if (part.filename !== undefined) return files(part);
    try {
      return await fields(part);
    } catch (error) {
      throw error instanceof MaxPartSizeExceededError ? new FormTooLargeError(FIELD_TOO_LARGE) : error;
    }
  };
  try {
    return cleanFormData(await unstable_parseMultipartFormData(request, handler));
  } catch (error) {
    if (error instanceof FormTooLargeError) refuseTooLarge(error);
    if (error instanceof MaxPartSizeExceededError) return "too-large";
    refuse(400, UNREADABLE_FORM);
  }
}
