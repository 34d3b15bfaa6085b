/**
 * Saved gigs and sellers (ADR 052): a member hearts a gig or a seller, and takes the heart off again. Saving
 * twice, or taking off a heart that is not there, is a no-op that succeeds (a double tap, a form sent twice).
 * Only a signed-in member saves; a gig buyers cannot see, or a member who is not an active seller, is "not
 * found"; a member's own gig or own profile is refused. A saved row is the record of the save (with its time):
 * no activity line, since a heart changes nothing of the account.
 *
 * When a seller first publishes a gig (app/operations/gigs.server.ts), a `saved_seller_gig` effect tells the
 * members who saved them, after the commit (notifySavedSellerGig, run by the worker).
 */
import type { Knex } from "knex";
import { sayIn } from "~/content/operation-messages";
import { isLocale, DEFAULT_LOCALE } from "~/i18n/locales";
import { sendMail } from "~/models/outbox.server";
import { deleteSavedGig, deleteSavedSeller, insertSavedGig, insertSavedSeller, type SavedKind } from "~/models/saved.server";
import { forbidden, limitedBy, notFound, ok, transact, type Actor, type Result } from "~/operations/core.server";
import { pushUnreadCount } from "~/operations/notifications.server";
import { appMailOrigin } from "~/server/host.server";
import { consume } from "~/server/rate-limit.server";

type Options = { db?: Knex };

export type SaveInput = { kind: SavedKind; id: number; saved: boolean };

/** Saves (saved: true) or unsaves a gig or a seller for the member; answers whether it is saved now. */
export type Saved = { kind: SavedKind; id: number; saved: boolean };

export async function setSaved(actor: Actor, input: SaveInput, { db }: Options = {}): Promise<Result<Saved>> {
  if (actor.kind !== "member") return forbidden("access.sign_in_required");
  const user = actor.user;
  const limited = await consume("saved", [String(user.id)]);
  if (limited) return limitedBy(limited);
  return transact<Saved>(
    actor,
    async (tx) => {
      if (input.kind === "gig") {
        // Taking a heart off needs no check: the member's own row goes, whatever became of the gig.
        if (!input.saved) {
          await deleteSavedGig(tx.trx, user.id, input.id);
          return ok({ kind: "gig", id: input.id, saved: false });
        }
        const gig = await tx
          .trx("gigs as g")
          .join("users as u", "u.id", "g.seller_id")
          .where({ "g.id": input.id, "g.status": "published", "u.status": "active" })
          .first("g.seller_id");
        if (!gig) return notFound("gig.not_found");
        if (Number(gig.seller_id) === user.id) return forbidden("saved.own_gig");
        await insertSavedGig(tx.trx, user.id, input.id);
        return ok({ kind: "gig", id: input.id, saved: true });
      }
      if (!input.saved) {
        await deleteSavedSeller(tx.trx, user.id, input.id);
        return ok({ kind: "seller", id: input.id, saved: false });
      }
      if (input.id === user.id) return forbidden("saved.own_profile");
      const seller = await tx.trx("users").where({ id: input.id, role: "freelancer", status: "active" }).whereNull("deleted_at").first("id");
      if (!seller) return notFound();
      await insertSavedSeller(tx.trx, user.id, input.id);
      return ok({ kind: "seller", id: input.id, saved: true });
    },
    { db },
  );
}

/** The kind of a saved seller's new-gig notification; its values name the gig (`gigId`), which links to it. */
export const SAVED_SELLER_GIG = "saved_seller_gig";

/**
 * The worker's side of a seller's first publication of a gig (a `saved_seller_gig` effect): every active member
 * who saved the seller gets a notification in their language, and a mail if they chose marketing mail (Settings ›
 * Notifications: "news from sellers I saved"). In one statement for the notifications however many they are, and
 * at most once per member and gig: an effect carried out again (its worker died before marking it done) finds
 * the notifications it wrote and sends nothing twice.
 */
export async function notifySavedSellerGig(
  actor: Actor,
  input: { gigId: number },
  { db }: Options = {},
): Promise<Result<{ notified: number; mailed: number }>> {
  if (actor.kind !== "system") return forbidden("access.platform_only", { task: "notify_saved_followers" });
  return transact(
    actor,
    async (tx) => {
      const gig = await tx
        .trx("gigs as g")
        .join("users as u", "u.id", "g.seller_id")
        .where({ "g.id": input.gigId, "g.status": "published", "u.status": "active" })
        .first("g.id", "g.title", "g.seller_id", "u.name");
      // Taken down or deleted before the worker came to it: nobody is told about a gig they cannot see.
      if (!gig) return ok({ notified: 0, mailed: 0 });
      const values = { name: gig.name as string, title: gig.title as string, gigId: Number(gig.id) };
      const key = "notify.saved.newGig";
      const english = sayIn(DEFAULT_LOCALE)(key, values);
      const { rows } = await tx.trx.raw(
        `INSERT INTO notifications (user_id, kind, body, body_key, body_values)
         SELECT s.user_id, ?, ?, ?, ?::jsonb
           FROM saved_sellers s JOIN users f ON f.id = s.user_id
          WHERE s.seller_id = ? AND f.status = 'active' AND f.deleted_at IS NULL
            AND NOT EXISTS (SELECT 1 FROM notifications n
                             WHERE n.user_id = s.user_id AND n.kind = ? AND n.body_values->>'gigId' = ?)
         RETURNING user_id`,
        [SAVED_SELLER_GIG, english, key, JSON.stringify(values), gig.seller_id, SAVED_SELLER_GIG, String(gig.id)],
      );
      const notified = (rows as { user_id: string }[]).map((r) => Number(r.user_id));
      if (!notified.length) return ok({ notified: 0, mailed: 0 });
      const mailTo = await tx.trx("users").whereIn("id", notified).where({ notify_email_marketing: true }).select("email", "language");
      const url = `${appMailOrigin()}/gig/${gig.id}`;
      for (const member of mailTo) {
        const _ = sayIn(isLocale(member.language) ? member.language : DEFAULT_LOCALE);
        await sendMail(tx.trx, {
          to: member.email,
          subject: _("mail.saved.newGigSubject", { name: values.name }),
          body: _("mail.saved.newGigBody", { name: values.name, title: values.title, url }),
        });
      }
      // Their bells move now, on the pages they have open.
      for (const userId of notified) await pushUnreadCount(tx, userId);
      return ok({ notified: notified.length, mailed: mailTo.length });
    },
    { db },
  );
}
