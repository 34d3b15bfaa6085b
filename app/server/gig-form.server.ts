/**
 * The gig editor's door, shared by /gig/create and /gig/{id}/edit: it reads the form, hands its parts to the
 * gig operations (app/operations/gigs.server.ts) and answers with Conform's reply of the form as it now
 * stands, messages beside their fields.
 *
 * One multipart form carries every button: Save as Draft and Publish Gig (`intent`), and Conform's list
 * buttons (`__intent__`): Add tag (insert into `tags`, the tag typed in `newTag`) and the Remove buttons of
 * tags and images. With JavaScript Conform applies the list buttons in place; without it they submit the
 * form, and the reply is the form with the button applied (nothing saved). Images chosen are stored on every
 * submission (attachImage, counted against the member's upload quota) so they survive those round trips; an image taken off the form that no gig uses
 * is forgotten (detachImage). A gig only ever takes its owner's uploads and its own current images.
 */
import { parse, type SubmissionResult } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod";
import { data, redirect } from "@remix-run/node";
import { z } from "zod";
import { gigImagesOf, ownImages } from "~/models/gig.server";
import { issueMessages, messageOf, sayIn } from "~/content/operation-messages";
import type { Actor } from "~/operations/core.server";
import { attachImage, detachImage, saveGig } from "~/operations/gigs.server";
import { getDb } from "~/server/db.server";
import { readFileForm, UNREADABLE_FORM } from "~/server/form-data.server";
import { GIG_INTENTS, gigFormSchema, MAX_IMAGES, tagToAdd } from "~/schemas/gig";
import { formFailure } from "~/server/operation-results.server";
import { MAX_IMAGE_BYTES } from "~/server/files/storage.server";
import { requestLocale } from "~/i18n/locale.server";
import { msg } from "~/i18n/message-key";

/**
 * The editor's required and length rules, for its loaders to hand to the form (app/components/gig-form.tsx): from
 * the schema the server parses with, so zod stays out of the editor's page. Conform's own reading of it, as the
 * form always had.
 */
export const GIG_FORM_CONSTRAINT = getZodConstraint(gigFormSchema("publish"));

/**
 * Messages by field name ("form": the form's own), as Conform shows them: catalogue keys of the `dashboard`
 * namespace (the form's ErrorList says them in the reader's language), or an operation's words.
 */
type Messages = Record<string, string[]>;

const TOO_LARGE = msg("dashboard.gigForm.formTooLarge", { mb: MAX_IMAGE_BYTES / (1024 * 1024) });
/** The same words as NOT_YOUR_IMAGE of app/models/gig.server.ts, as a key. */
const NOT_YOUR_IMAGE = "dashboard.gigForm.notYourImage";

/** The list buttons this form has (Conform's `__intent__`); any other value is ignored. */
const ListIntent = z.union([
  z.object({ type: z.literal("insert"), payload: z.object({ name: z.literal("tags"), defaultValue: z.string().max(1000).optional() }) }),
  z.object({ type: z.literal("remove"), payload: z.object({ name: z.enum(["tags", "images"]), index: z.number().int().min(0).max(99) }) }),
]);
type ListIntent = z.infer<typeof ListIntent>;
const INTENT = "__intent__";

/** The list button pressed: null for none (a Save button, or Enter), "unknown" for a value no button of ours sends. */
function listIntentOf(form: FormData): ListIntent | null | "unknown" {
  const raw = form.get(INTENT);
  form.delete(INTENT);
  if (raw === null) return null;
  if (typeof raw !== "string") return "unknown";
  try {
    const parsed = ListIntent.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : "unknown";
  } catch {
    return "unknown";
  }
}

const CHOOSE = "dashboard.gigForm.chooseIntent";

/**
 * A list's values in order, whether the form named them `tags` (repeated) or `tags[0]`, `tags[1]` (Conform),
 * written back as Conform names them.
 */
function takeList(form: FormData, name: "tags" | "images", max: number): string[] {
  const indexed = new RegExp(`^${name}\\[(\\d+)\\]$`);
  const plain: string[] = [];
  const numbered: [number, string][] = [];
  for (const [key, value] of [...form.entries()]) {
    const match = indexed.exec(key);
    // Anything else under the list's name (`tags[0].x`) is no field of ours: dropped.
    if (key !== name && !key.startsWith(`${name}[`) && !key.startsWith(`${name}.`)) continue;
    form.delete(key);
    if (typeof value !== "string") continue;
    if (match) numbered.push([Number(match[1]), value]);
    else if (key === name) plain.push(value);
  }
  return [...numbered.sort((a, b) => a[0] - b[0]).map(([, v]) => v), ...plain].slice(0, max);
}

function putList(form: FormData, name: "tags" | "images", values: string[]) {
  values.forEach((value, i) => form.set(`${name}[${i}]`, value));
}

/** The form as it now stands (with its list button, if any, applied by Conform), to be shown back. */
function formAsItStands(form: FormData, intent: ListIntent | null) {
  const body = new FormData();
  for (const [key, value] of form.entries()) body.append(key, value);
  if (intent) body.set(INTENT, JSON.stringify(intent));
  return parse(body, { resolve: () => ({ value: {} }) });
}

/** Conform's reply of the form, with our messages beside their fields ("form": the form's own). */
function answer(form: FormData, intent: ListIntent | null, issues: Messages, status: number, headers?: HeadersInit) {
  const { form: formErrors = [], ...fieldErrors } = issues;
  return data(formAsItStands(form, intent).reply({ formErrors, fieldErrors }), { status, headers });
}

/** Adds messages to those already there, each once. */
function add(issues: Messages, more: Messages) {
  for (const [name, messages] of Object.entries(more)) issues[name] = [...new Set([...(issues[name] ?? []), ...messages])];
}

/**
 * Handles a submission of the gig form by a seller; `gigId` when editing their gig (the caller has checked
 * it is theirs). Returns the redirect after saving, or Conform's reply of the form with its messages.
 */
export async function handleGigForm(request: Request, actor: Extract<Actor, { kind: "member" }>, gigId?: number) {
  const read = await readFileForm(request, { maxFileBytes: MAX_IMAGE_BYTES });
  if (read === "too-large") {
    // The body was not read in full, so what was typed cannot be shown back; say what was wrong.
    return answer(new FormData(), null, { form: [TOO_LARGE] }, 413);
  }
  if (read === "malformed") return answer(new FormData(), null, { form: [sayIn(await requestLocale(request))(UNREADABLE_FORM)] }, 400);
  const { form, oversized } = read;
  const locale = await requestLocale(request);
  const intent = listIntentOf(form);
  const tags = takeList(form, "tags", 100);
  let images = [...new Set(takeList(form, "images", 20))];
  const files = form.getAll("upload").filter((f): f is File => f instanceof File && f.size > 0);
  form.delete("upload");
  putList(form, "tags", tags);
  const issues: Messages = {};

  // Only the member's own uploads (and the gig's current images) may stay on the form, let alone be saved.
  if (images.length) {
    const current = gigId === undefined ? [] : await gigImagesOf(getDb(), actor.user.id, gigId);
    const own = await ownImages(getDb(), actor.user.id, images, current);
    if (own.length < images.length) add(issues, { images: [NOT_YOUR_IMAGE] });
    images = own;
  }
  if (oversized.length) {
    // Nothing is saved or stored while an image is refused: the seller sees the form as typed and the reason.
    putList(form, "images", images);
    return answer(
      form,
      null,
      { ...issues, upload: oversized.map((name) => msg("dashboard.gigForm.imageTooLarge", { name, mb: MAX_IMAGE_BYTES / (1024 * 1024) })) },
      413,
    );
  }

  // New images: stored at once, as this member's uploads, each counted against their limit.
  if (files.length) {
    if (images.length + files.length > MAX_IMAGES) add(issues, { upload: [msg("dashboard.gigForm.tooManyImages", { max: MAX_IMAGES })] });
    else {
      for (const file of files) {
        const attached = await attachImage(actor, { file });
        if (attached.ok) images.push(attached.value.key);
        else if (attached.error === "invalid") add(issues, issueMessages(attached.issues, locale));
        else if (attached.error === "limited") {
          // Over the upload quota (ADR 031): the form as it stands, with the images stored so far, and the
          // reason beside the file field; 429 with Retry-After.
          add(issues, { upload: [messageOf(attached, locale)] });
          putList(form, "images", images);
          return answer(form, null, issues, attached.status, { "Retry-After": String(attached.retryAfter) });
        } else {
          add(issues, { upload: [messageOf(attached, locale)] });
          break;
        }
      }
    }
  }
  putList(form, "images", images);

  if (intent === "unknown") return answer(form, null, { ...issues, form: [CHOOSE] }, 400);
  // A list button: the form comes back with it applied, nothing saved.
  if (intent) {
    let applied: ListIntent | null = intent;
    if (intent.type === "insert") {
      const typed = intent.payload.defaultValue || String(form.get("newTag") ?? "");
      const outcome = tagToAdd(tags, typed);
      if ("error" in outcome) {
        add(issues, { newTag: [outcome.error] });
        applied = null;
      } else {
        form.delete("newTag");
        applied = outcome.tag === null ? null : { type: "insert", payload: { name: "tags", defaultValue: outcome.tag } };
      }
    } else if (intent.payload.index >= (intent.payload.name === "tags" ? tags : images).length) {
      applied = null;
    } else if (intent.payload.name === "images") {
      // An upload no gig uses is forgotten now; the gig's own image goes when the gig is saved without it.
      await detachImage(actor, { key: images[intent.payload.index]!, gigId });
    }
    return answer(form, applied, issues, Object.keys(issues).length ? 400 : 200);
  }

  const submitted = form.get("intent");
  const saveIntent = GIG_INTENTS.find((i) => i === submitted);
  if (!saveIntent) return answer(form, null, { ...issues, form: [CHOOSE] }, 400);
  const submission = parseWithZod(form, { schema: gigFormSchema(saveIntent) });
  if (submission.status !== "success") {
    for (const [name, messages] of Object.entries(submission.error ?? {})) {
      // A message about one tag or image (tags[3]) is shown beside the list it belongs to.
      if (messages?.length) add(issues, { [name.replace(/\[\d+\]$/, "")]: messages });
    }
  }
  if (Object.keys(issues).length || submission.status !== "success") {
    if (!Object.keys(issues).length) issues.form = ["dashboard.gigForm.checkForm"];
    return answer(form, null, issues, 400);
  }
  const result = await saveGig(actor, { intent: saveIntent, gig: submission.value, gigId });
  if (result.ok) return redirect(`/dashboard?gig=${result.value.status}`);
  return formFailure((options) => formAsItStands(form, null).reply(options) as SubmissionResult<string[]>, result, { locale });
}
