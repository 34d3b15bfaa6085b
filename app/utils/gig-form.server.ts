/**
 * The gig form's action, shared by /gig/create and /gig/{id}/edit. One multipart form carries every intent:
 * Save as Draft, Publish Gig, and — for browsers without JavaScript — adding or removing a tag or an image,
 * which answer with the form as it now stands (nothing saved). Uploaded images are checked and stored at
 * once (as the member's uploads) so they survive those round trips; a gig only ever takes its owner's uploads.
 */
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, unstable_parseMultipartFormData, type UploadHandler } from "@remix-run/node";
import { gigImagesOf, NOT_YOUR_IMAGE, ownImages, type GigPackage } from "~/models/gig.server";
import type { Actor } from "~/operations/core.server";
import { attachImage, saveGig } from "~/operations/gigs.server";
import { getDb } from "~/utils/db.server";
import {
  gigFormSchema,
  MAX_IMAGES,
  MAX_TAGS,
  normaliseTags,
  TAG_MAX,
  TIERS,
  type GigIntent,
  type Tier,
} from "~/utils/gig-schemas";
import { UPLOAD_BODY_LIMIT } from "~/utils/body-limit.server";
import {
  cleanFormData,
  FIELD_TOO_LARGE,
  FormTooLargeError,
  MAX_FIELD_BYTES,
  partCounter,
  readFormData,
  refuseTooLarge,
  UNREADABLE_FORM,
} from "~/utils/form-data.server";
import { MAX_IMAGE_BYTES } from "~/utils/storage.server";

export type TierValues = { name: string; description: string; price: string; delivery: string; revisions: string; features: string };
export type GigFormState = {
  title: string;
  category: string;
  description: string;
  tags: string[];
  images: string[];
  packages: Record<Tier, TierValues>;
};
export type GigFormErrors = Record<string, string[]>;
export type GigFormReply = { state: GigFormState; errors: GigFormErrors };

const EMPTY_TIER: TierValues = { name: "", description: "", price: "", delivery: "", revisions: "", features: "" };

export function emptyGigForm(): GigFormState {
  return { title: "", category: "", description: "", tags: [], images: [], packages: { basic: { ...EMPTY_TIER }, standard: { ...EMPTY_TIER }, premium: { ...EMPTY_TIER } } };
}

/** A stored gig as the form shows it. */
export function gigFormOf(gig: { title: string; category: string; description: string; tags: string[]; images: string[]; packages: GigPackage[] }): GigFormState {
  const state = emptyGigForm();
  state.title = gig.title;
  state.category = gig.category;
  state.description = gig.description;
  state.tags = gig.tags;
  state.images = gig.images;
  for (const p of gig.packages) {
    state.packages[p.tier] = {
      name: p.name,
      description: p.description,
      price: String(p.priceUgx),
      delivery: String(p.deliveryDays),
      revisions: String(p.revisions),
      features: p.features.join("\n"),
    };
  }
  return state;
}

const text = (v: FormDataEntryValue | null, max = 10_000) => (typeof v === "string" ? v.slice(0, max) : "");

function stateOf(form: FormData): GigFormState {
  const packages = {} as Record<Tier, TierValues>;
  for (const tier of TIERS) {
    packages[tier] = {
      name: text(form.get(`${tier}.name`), 200),
      description: text(form.get(`${tier}.description`), 2000),
      price: text(form.get(`${tier}.price`), 40),
      delivery: text(form.get(`${tier}.delivery`), 10),
      revisions: text(form.get(`${tier}.revisions`), 10),
      features: text(form.get(`${tier}.features`), 3000),
    };
  }
  return {
    title: text(form.get("title"), 200),
    category: text(form.get("category"), 100),
    description: text(form.get("description"), 10_000),
    tags: form.getAll("tags").slice(0, 100).map((t) => text(t, 200)),
    images: [...new Set(form.getAll("images").slice(0, 20).map((k) => text(k, 40)))],
    packages,
  };
}

/**
 * A form larger than the images it may carry (one more than allowed) plus its fields is cut off: the cap in
 * front of every route (body-limit.server.ts) already refuses such a body; this holds without it too.
 */
class OverCapError extends Error {}

type ReadForm = { form: FormData; oversized: string[] } | "too-large" | "malformed";

/**
 * The multipart form, read in full so that an image over 5 MB refuses only itself: its bytes are read past
 * and dropped (its file name kept for the message), and everything the seller typed is still there to be
 * shown back. Only a form larger than any legitimate one is cut off ("too-large").
 */
async function readForm(request: Request): Promise<ReadForm> {
  if (!(request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data")) {
    return { form: await readFormData(request), oversized: [] };
  }
  const oversized: string[] = [];
  const countPart = partCounter();
  let total = 0;
  const handler: UploadHandler = async ({ filename, contentType, data }) => {
    countPart(); // more parts than any gig form has: a 413, before the part is read
    const limit = filename === undefined ? MAX_FIELD_BYTES : MAX_IMAGE_BYTES;
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of data) {
      size += chunk.byteLength;
      total += chunk.byteLength;
      if (total > UPLOAD_BODY_LIMIT) throw new OverCapError();
      if (size <= limit) chunks.push(chunk);
    }
    if (filename === undefined) {
      if (size > limit) throw new FormTooLargeError(FIELD_TOO_LARGE);
      return Buffer.concat(chunks).toString("utf8");
    }
    if (size > limit) {
      oversized.push(filename);
      return undefined;
    }
    // Buffer.concat copies into a fresh (never shared) ArrayBuffer.
    return new File([Buffer.concat(chunks) as Uint8Array<ArrayBuffer>], filename, { type: contentType });
  };
  try {
    return { form: cleanFormData(await unstable_parseMultipartFormData(request, handler)), oversized };
  } catch (error) {
    if (error instanceof FormTooLargeError) refuseTooLarge(error);
    // Anything else that stops the parse is a body that is not the multipart form it claims to be.
    return error instanceof OverCapError ? "too-large" : "malformed";
  }
}

const reply = (state: GigFormState, errors: GigFormErrors, status = 400) => data<GigFormReply>({ state, errors }, { status });

/**
 * Handles a submission of the gig form for a seller; `gigId` when editing their gig (the caller has checked
 * it is theirs). Returns the redirect after saving, or the form with its messages.
 */
export async function handleGigForm(request: Request, actor: Extract<Actor, { kind: "member" }>, gigId?: number) {
  const user = actor.user;
  const read = await readForm(request);
  if (read === "too-large") {
    // The body was not read in full, so what was typed cannot be shown back; say what was wrong.
    return reply({ ...emptyGigForm() }, { form: ["The form is too large: images can be at most 5 MB each"] }, 413);
  }
  if (read === "malformed") return reply({ ...emptyGigForm() }, { form: [UNREADABLE_FORM] });
  const { form, oversized } = read;
  const intent = text(form.get("intent"), 100);
  const state = stateOf(form);
  const errors: GigFormErrors = {};
  if (oversized.length) {
    // Nothing is saved or uploaded while an image is refused: the seller sees the form as typed and the reason.
    return reply(state, { upload: oversized.map((name) => `${name}: Images can be at most 5 MB each`) }, 413);
  }

  // Only the member's own uploads (and the gig's current images) may stay on the form, let alone be saved.
  if (state.images.length) {
    const current = gigId === undefined ? [] : await gigImagesOf(getDb(), user.id, gigId);
    const own = await ownImages(getDb(), user.id, state.images, current);
    if (own.length < state.images.length) errors.images = [NOT_YOUR_IMAGE];
    state.images = own;
  }

  // New images: checked by their content, re-encoded, and kept as this member's uploads.
  const files = form.getAll("upload").filter((f): f is File => f instanceof File && f.size > 0);
  if (files.length) {
    if (state.images.length + files.length > MAX_IMAGES) {
      errors.upload = [`A gig can have at most ${MAX_IMAGES} images`];
    } else {
      // Each file is stored by attachImage, one use of the upload limit each.
      for (const file of files) {
        const attached = await attachImage(actor, { file });
        if (attached.ok) state.images.push(attached.value.key);
        else if (attached.error === "invalid") errors.upload = [...(errors.upload ?? []), ...(attached.issues.upload ?? [])];
        else {
          errors.upload = [...(errors.upload ?? []), attached.message];
          break;
        }
      }
    }
  }

  if (intent === "add-tag") {
    const tag = text(form.get("newTag"), 1000).trim();
    if (tag.length > TAG_MAX) errors.newTag = [`Each tag can have at most ${TAG_MAX} characters`];
    else if (normaliseTags([...state.tags, tag]).length > MAX_TAGS) errors.newTag = [`A gig can have at most ${MAX_TAGS} tags`];
    else state.tags = normaliseTags([...state.tags, tag]);
    return reply(state, errors, Object.keys(errors).length ? 400 : 200);
  }
  if (intent.startsWith("remove-tag:")) {
    const index = Number(intent.slice("remove-tag:".length));
    state.tags = state.tags.filter((_, i) => i !== index);
    return reply(state, errors, Object.keys(errors).length ? 400 : 200);
  }
  if (intent.startsWith("remove-image:")) {
    const key = intent.slice("remove-image:".length);
    state.images = state.images.filter((k) => k !== key);
    return reply(state, errors, Object.keys(errors).length ? 400 : 200);
  }
  if (intent === "upload") return reply(state, errors, Object.keys(errors).length ? 400 : 200);
  if (intent !== "draft" && intent !== "publish") return reply(state, { form: ["Choose Save as Draft or Publish Gig"] });

  // The images as they now stand (kept plus newly uploaded) are what is validated and saved.
  form.delete("images");
  for (const key of state.images) form.append("images", key);
  const submission = parseWithZod(form, { schema: gigFormSchema(intent as GigIntent) });
  if (submission.status !== "success") {
    for (const [name, messages] of Object.entries(submission.error ?? {})) {
      if (!messages?.length) continue;
      // A message about one tag or image (tags[3]) is shown beside the list it belongs to.
      const field = name.replace(/\[\d+\]$/, "");
      errors[field] = [...new Set([...(errors[field] ?? []), ...messages])];
    }
  }
  if (Object.keys(errors).length || submission.status !== "success") {
    if (!Object.keys(errors).length) errors.form = ["Check the form and try again"];
    return reply(state, errors);
  }
  const result = await saveGig(actor, { intent: intent as GigIntent, gig: submission.value, gigId });
  if (result.ok) return redirect(`/dashboard?gig=${result.value.status}`);
  if (result.error === "invalid") return reply(state, result.issues);
  if (result.error === "limited") return reply(state, { form: [result.message] }, result.status);
  throw new Response(result.message, { status: result.error === "not_found" ? 404 : result.error === "forbidden" ? 403 : 409 });
}
