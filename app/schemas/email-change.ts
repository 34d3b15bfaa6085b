/**
 * Settings › Security's "Change email" form (ADR 051): the new address and the current password. Shared by the
 * server and the browser; messages are catalogue keys of namespace `account`.
 */
import { z } from "~/schemas/zod";
import { email } from "~/schemas/account";

export const CHANGE_EMAIL = "change-email";

export const ChangeEmailSchema = z.object({
  intent: z.literal(CHANGE_EMAIL),
  email,
  currentPassword: z
    .string({ required_error: "account.form.currentPasswordRequired" })
    .min(1, "account.form.currentPasswordRequired")
    .max(200, "account.form.passwordTooLong"),
});
