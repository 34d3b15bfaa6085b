/**
 * Gigs (ADR 012): a seller saves a gig (create or edit, as a draft or published), pauses, resumes and
 * deletes it, and puts images on it or takes them off. Every door (the gig editor, later the JSON API and
 * the seed, which acts as each demo seller) calls these, so every gig obeys the same rules: only a seller
 * acts, only on their own gigs (anyone else's gig is "not found", never "forbidden"), only with their own
 * uploads, within the same rate limits; activity, file deletions and the gig_published conversion are
 * committed with the change or not at all.
 */
import type { Knex } from "knex";
import { conversionFact } from "~/analytics/conversions.server";
import {
  appendGigImage,
  deleteGig as deleteGigRows,
  forgetUpload,
  getOwnGig,
  GigInputError,
  lockOwnGig,
  recordUpload,
  saveGig as saveGigRows,
  setGigStatus,
} from "~/models/gig.server";
import { rollUpSellerRating } from "~/models/review.server";
import type { SessionUser } from "~/models/session.server";
import {
  conflict,
  forbidden,
  invalid,
  issue,
  issuesOf,
  limitedBy,
  notFound,
  ok,
  transact,
  type Actor,
  type Failure,
  type FieldIssue,
  type Result,
} from "~/operations/core.server";
import { gigFormOf, gigFormSchema, MAX_IMAGES, type GigFormValue, type GigIntent } from "~/schemas/gig";
import { getDb } from "~/server/db.server";
import { publishRefusal } from "~/operations/email-verification.server";
import { consume } from "~/server/rate-limit.server";
import { deleteImage, InvalidImageError, saveImage } from "~/server/files/storage.server";
import { releaseUploads, reserveUploads, uploadFailure } from "~/server/files/upload-quota.server";

type Options = { db?: Knex };

/**
 * The model's refusals of a gig's rows (GigInputError names the field it refuses): a category not on the
 * list, an image the seller did not upload; on the form as a whole, a gig that went away meanwhile.
 */
const GIG_INPUT_ISSUES: Record<string, FieldIssue> = { category: issue("gig.category_unknown"), images: issue("gig.image_not_yours"), form: issue("gig.gone") };

/** The seller behind an actor, or why they may not sell: only a signed-in freelancer sells. */
function sellerOf(actor: Actor): { ok: true; user: SessionUser } | Failure {
  if (actor.kind !== "member") return forbidden("seller.sign_in_required");
  if (actor.user.role === "admin") return forbidden("seller.admins_do_not_sell");
  if (actor.user.role !== "freelancer") return forbidden("seller.only_sellers");
  return { ok: true, user: actor.user };
}

/** The member behind an actor; a gig someone does not own is "not found" to them whatever their role. */
function memberOrForbidden(actor: Actor): { ok: true; user: SessionUser } | Failure {
  return actor.kind === "member" ? { ok: true, user: actor.user } : forbidden("access.sign_in_required");
}

export type SaveGigInput = {
  /** Save as Draft or Publish Gig: which schema parsed `gig` (gigFormSchema(intent)). */
  intent: GigIntent;
  gig: GigFormValue;
  /** The gig being edited; none to create one. */
  gigId?: number;
};

/**
 * Creates or edits a seller's gig, as a draft or published. A new gig counts against the seller's
 * gigCreate limit. Images may be the seller's own uploads or the gig's current ones; images the edit takes
 * off are deleted after the commit. The gig_published conversion is recorded once per gig, at its first
 * publication (published_at, which later saves keep), however often it is saved as published.
 */
export async function saveGig(actor: Actor, input: SaveGigInput, { db }: Options = {}): Promise<Result<{ id: number; status: "draft" | "published" }>> {
  const seller = sellerOf(actor);
  if (!seller.ok) return seller;
  const { user } = seller;
  if (input.gigId === undefined) {
    const limited = await consume("gigCreate", [String(user.id)]);
    if (limited) return limitedBy(limited);
  }
  const status = input.intent === "publish" ? "published" : "draft";
  // Publishing waits for a verified email (ADR 051); a draft does not.
  const unverified = status === "published" ? await publishRefusal(db ?? getDb(), user.id) : null;
  if (unverified) return unverified;
  return transact(
    actor,
    async (tx) => {
      const before = input.gigId === undefined ? null : await lockOwnGig(tx.trx, user.id, input.gigId);
      if (input.gigId !== undefined && !before) return notFound();
      let saved: { id: number; removedImages: string[] };
      try {
        saved = await saveGigRows(tx.trx, user.id, input.gig, status, input.gigId);
      } catch (error) {
        if (error instanceof GigInputError) return invalid({ [error.field]: [GIG_INPUT_ISSUES[error.field] ?? issue("gig.gone")] });
        throw error;
      }
      for (const key of saved.removedImages) await tx.effect({ kind: "delete_image", key });
      tx.pagesChanged();
      await tx.activity(user.id, status === "published" ? "gig_published" : "gig_saved", { gigId: saved.id, title: input.gig.title });
      if (status === "published") {
        const gig = await lockOwnGig(tx.trx, user.id, saved.id);
        if (gig?.publishedAt) {
          const fact = conversionFact(actor, { type: "gig_published", userId: user.id, subjectId: saved.id, at: gig.publishedAt, metadata: { gig: saved.id } });
          await tx.effect({ kind: "conversion", fact }, `conversion:gig_published:${saved.id}`);
          // Its first publication (not a later save, nor a resume): the members who saved the seller hear of it.
          if (!before?.publishedAt) await tx.effect({ kind: "saved_seller_gig", gigId: saved.id }, `saved_seller_gig:${saved.id}`);
        }
      }
      return ok({ id: saved.id, status });
    },
    { db },
  );
}

async function changeStatus(
  actor: Actor,
  gigId: number,
  to: "paused" | "published",
  db: Knex | undefined,
): Promise<Result<{ id: number; status: "paused" | "published" }>> {
  const member = memberOrForbidden(actor);
  if (!member.ok) return member;
  const { user } = member;
  const unverified = to === "published" ? await publishRefusal(db ?? getDb(), user.id) : null;
  if (unverified) return unverified;
  return transact(
    actor,
    async (tx) => {
      if (!(await lockOwnGig(tx.trx, user.id, gigId))) return notFound();
      if (!(await setGigStatus(tx.trx, user.id, gigId, to))) {
        return to === "paused" ? conflict("gig.not_published") : conflict("gig.not_paused");
      }
      tx.pagesChanged();
      await tx.activity(user.id, to === "paused" ? "gig_paused" : "gig_resumed", { gigId });
      return ok({ id: gigId, status: to });
    },
    { db },
  );
}

/** Hides a published gig from buyers (conflict "gig.not_published" for a draft or a paused gig). */
export function pauseGig(actor: Actor, input: { gigId: number }, { db }: Options = {}) {
  return changeStatus(actor, input.gigId, "paused", db);
}

/** Shows a paused gig to buyers again (conflict "gig.not_paused" for a draft or a published gig). */
export function resumeGig(actor: Actor, input: { gigId: number }, { db }: Options = {}) {
  return changeStatus(actor, input.gigId, "published", db);
}

/** Deletes a seller's gig with its packages; its images' files are deleted after the commit. Not while it has open orders. */
export async function deleteGig(actor: Actor, input: { gigId: number }, { db }: Options = {}): Promise<Result<{ id: number; title: string }>> {
  const member = memberOrForbidden(actor);
  if (!member.ok) return member;
  const { user } = member;
  return transact(
    actor,
    async (tx) => {
      const gig = await lockOwnGig(tx.trx, user.id, input.gigId);
      if (!gig) return notFound();
      // Orders keep what was bought (title, package, price), but a gig with work under way stays until it is done.
      const open = await tx.trx("orders").where({ gig_id: gig.id }).whereIn("status", ["pending_payment", "in_progress", "delivered"]).first("id");
      if (open) return conflict("gig.open_orders");
      const images = await deleteGigRows(tx.trx, user.id, gig.id);
      if (!images) return notFound();
      // The gig's reviews went with it: the seller's rating and count are what their other gigs' reviews say.
      await rollUpSellerRating(tx.trx, user.id);
      tx.pagesChanged();
      for (const key of images) await tx.effect({ kind: "delete_image", key });
      await tx.activity(user.id, "gig_deleted", { gigId: gig.id, title: gig.title });
      return ok({ id: gig.id, title: gig.title });
    },
    { db },
  );
}

/**
 * Stores an image a seller chose for a gig: counted against their upload quota (ADR 031: its bytes and one
 * file, and their storage cap), checked by its content and re-encoded (saveImage), and recorded as their
 * upload with the bytes written, so only they can put it on a gig. Returns its key. The file is written
 * before its row; if the row cannot be committed, the file goes and nothing is recorded. An image that is
 * not one is `invalid` beside the "upload" field, named by its file (and not counted).
 */
export async function attachImage(actor: Actor, input: { file: File }, { db }: Options = {}): Promise<Result<{ key: string }>> {
  const seller = sellerOf(actor);
  if (!seller.ok) return seller;
  const { user } = seller;
  const bytes = Buffer.from(await input.file.arrayBuffer());
  const refused = await reserveUploads(user.id, [bytes.length], { db });
  if (refused) return uploadFailure(refused, "upload");
  let key: string;
  let sizeBytes: number;
  try {
    ({ key, sizeBytes } = await saveImage(bytes, ["small", "thumb", "large"]));
  } catch (error) {
    await releaseUploads(user.id, [bytes.length]);
    if (error instanceof InvalidImageError)
      return invalid({ upload: [{ ...error.issue, params: { ...error.issue.params, file: input.file.name } } as FieldIssue] });
    throw error;
  }
  let result: Result<{ key: string }>;
  try {
    result = await transact(
      actor,
      async (tx) => {
        await recordUpload(tx.trx, user.id, key, sizeBytes);
        return ok({ key });
      },
      { db },
    );
  } catch (error) {
    await deleteImage(key);
    throw error;
  }
  if (!result.ok) await deleteImage(key);
  return result;
}

/**
 * Takes an image off a gig's form. An upload no gig shows is forgotten and its files are deleted after the
 * commit (`removed: true`); an image the gig (or another of the seller's gigs) shows stays until that gig
 * is saved without it (`removed: false`). Not found: an image that is neither their upload nor on their gig.
 */
export async function detachImage(actor: Actor, input: { key: string; gigId?: number }, { db }: Options = {}): Promise<Result<{ removed: boolean }>> {
  const member = memberOrForbidden(actor);
  if (!member.ok) return member;
  const { user } = member;
  return transact<{ removed: boolean }>(
    actor,
    async (tx) => {
      const before = input.gigId === undefined ? null : await lockOwnGig(tx.trx, user.id, input.gigId);
      if (input.gigId !== undefined && !before) return notFound();
      const outcome = await forgetUpload(tx.trx, user.id, input.key);
      if (outcome === "not_found") return notFound();
      if (outcome === "in_use") return ok({ removed: false });
      await tx.effect({ kind: "delete_image", key: input.key });
      return ok({ removed: true });
    },
    { db },
  );
}

/**
 * Publishes a seller's gig as it stands (a draft, or a paused gig shown again), as the editor's Publish Gig
 * would: the same rules (a description and the Basic package), their issues beside the editor's fields.
 */
export async function publishGig(actor: Actor, input: { gigId: number }, { db }: Options = {}): Promise<Result<{ id: number; status: "draft" | "published" }>> {
  const seller = sellerOf(actor);
  if (!seller.ok) return seller;
  const gig = await getOwnGig(db ?? getDb(), input.gigId, seller.user.id);
  if (!gig) return notFound();
  const parsed = gigFormSchema("publish").safeParse(gigFormOf(gig));
  if (!parsed.success) return invalid(issuesOf(parsed.error));
  return saveGig(actor, { intent: "publish", gig: parsed.data, gigId: gig.id }, { db });
}

/**
 * Stores an image (attachImage: the upload quota, the content checks) and puts it last on the seller's gig,
 * which keeps its status; at most MAX_IMAGES images, refused beside "upload" ("gig.too_many_images"). An
 * image stored for a gig that is full by the time it is added is forgotten again. Answers the gig's images.
 */
export async function addGigImage(actor: Actor, input: { gigId: number; file: File }, { db }: Options = {}): Promise<Result<{ images: string[] }>> {
  const seller = sellerOf(actor);
  if (!seller.ok) return seller;
  const { user } = seller;
  const gig = await getOwnGig(db ?? getDb(), input.gigId, user.id);
  if (!gig) return notFound();
  const full = invalid({ upload: [issue("gig.too_many_images", { max: MAX_IMAGES })] });
  if (gig.images.length >= MAX_IMAGES) return full;
  const attached = await attachImage(actor, { file: input.file }, { db });
  if (!attached.ok) return attached;
  const { key } = attached.value;
  const result = await transact<{ images: string[] }>(
    actor,
    async (tx) => {
      if (!(await lockOwnGig(tx.trx, user.id, input.gigId))) return notFound();
      const images = await appendGigImage(tx.trx, input.gigId, key, MAX_IMAGES);
      if (!images) return full;
      tx.pagesChanged();
      await tx.activity(user.id, "gig_saved", { gigId: input.gigId, title: gig.title });
      return ok({ images });
    },
    { db },
  );
  if (!result.ok) await detachImage(actor, { key }, { db });
  return result;
}
