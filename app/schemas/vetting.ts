/**
 * An admin's vetting of a freelancer (ADR 051): mark them vetted after checking their portfolio, or take it
 * back, each with a note saying why. Shared by the Users screen's form, the JSON API and the browser. Messages
 * are catalogue keys of namespace `admin`.
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";

export const VETTING_NOTE_MAX = 1000;
export const VETTING_INTENTS = ["vet", "unvet"] as const;
export type VettingIntent = (typeof VETTING_INTENTS)[number];

const MEMBER = "admin.form.chooseMember";

export const VettingSchema = z.object({
  intent: z.enum(VETTING_INTENTS),
  userId: z.coerce.number({ invalid_type_error: MEMBER, required_error: MEMBER }).int(MEMBER).positive(MEMBER).max(Number.MAX_SAFE_INTEGER, MEMBER),
  note: z
    .string({ required_error: "admin.vetted.noteRequired" })
    .trim()
    .min(1, "admin.vetted.noteRequired")
    .max(VETTING_NOTE_MAX, msg("admin.vetted.noteTooLong", { max: VETTING_NOTE_MAX })),
});
export type VettingInput = z.output<typeof VettingSchema>;
