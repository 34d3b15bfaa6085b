/**
 * "Vetted" (ADR 051): an admin marks a freelancer vetted after checking their portfolio, with a note, and may
 * take it back, with a note. Both are audited (the note in the audit row's details, so a revocation keeps the
 * reason the vetting had); the badge shows on the seller's public pages, so cached pages drop, and the search
 * rows follow by trigger (gig_search.seller_vetted).
 */
import * as users from "~/models/user.server";
import { adminOf, conflict, forbidden, notFound, ok, transact, type Actor, type Result } from "~/operations/core.server";
import type { Options } from "~/operations/accounts.server";
import type { VettingInput } from "~/schemas/vetting";

export async function setVetting(actor: Actor, input: VettingInput, { db }: Options = {}): Promise<Result<{ name: string; vetted: boolean }>> {
  const admin = adminOf(actor);
  if (!admin) return forbidden("access.admins_only");
  const vet = input.intent === "vet";
  return transact(
    actor,
    async (tx) => {
      const u = await users.lockVetting(tx.trx, input.userId);
      if (!u) return notFound("member.not_found");
      const { name } = u;
      if (u.deleted) return conflict("member.deleted", { name });
      if (u.role !== "freelancer") return conflict("vetted.only_freelancers", { name });
      if (vet && u.vetted) return conflict("vetted.already", { name });
      if (!vet && !u.vetted) return conflict("vetted.not_vetted", { name });
      await users.setVetted(tx.trx, u.id, vet ? { adminId: admin.id, note: input.note } : null);
      await tx.audit({ action: vet ? "user.vet" : "user.unvet", targetType: "user", targetId: u.id, details: { note: input.note } });
      tx.pagesChanged(); // the "Vetted" badge on their profile and gigs
      return ok({ name, vetted: vet });
    },
    { db },
  );
}
