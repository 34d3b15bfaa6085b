/**
 * The account forms' rules, shared by the server (which decides) and the browser (which only helps).
 * Messages are written for the person filling the form in: keys of the `account` catalogue (ADR 047), said
 * in the reader's language by the page's ErrorList.
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
import { RESET_LINK_EXPIRED } from "~/content/refusal-words";

export { RESET_LINK_EXPIRED };

export const email = z.string({ required_error: "account.form.emailRequired" }).trim().max(254, "account.form.emailTooLong").email("account.form.emailInvalid");

export const name = z.string({ required_error: "account.form.nameRequired" }).trim().min(2, "account.form.nameRequired").max(100, "account.form.nameTooLong");

export const newPassword = z
  .string({ required_error: "account.form.passwordRequired" })
  .min(8, "account.form.passwordTooShort")
  .max(200, "account.form.passwordTooLong");

const PASSWORDS_DIFFER = "account.form.passwordsDiffer";

/** The fields a reply never echoes back into a form (new passwords and their confirmation). */
export const HIDDEN_PASSWORDS = ["password", "confirmPassword"];

function withConfirmation<T extends z.ZodRawShape>(shape: T) {
  return z
    .object({ ...shape, password: newPassword, confirmPassword: z.string({ required_error: "account.form.confirmRequired" }) })
    .refine((v) => v.password === v.confirmPassword, { path: ["confirmPassword"], message: PASSWORDS_DIFFER });
}

/** Hire = client (the default), Work = freelancer. Nothing else, least of all admin. */
export const RegisterSchema = withConfirmation({
  name,
  email,
  role: z.enum(["client", "freelancer"], { errorMap: () => ({ message: "account.form.roleChoose" }) }).default("client"),
});

/** A profile list's items, unique, trimmed and without empty ones; an item with commas is several (as the form splits them). */
const uniqueItems = (items: string[]) => [
  ...new Set(
    items
      .flatMap((s) => s.split(","))
      .map((x) => x.trim())
      .filter(Boolean),
  ),
];

/** A profile list's messages: the keys that say what the list is (skills, languages). */
type ListWords = { itemTooLong: string; tooMany: string; tooLong: string; notArray: string };

const SKILLS_WORDS: ListWords = {
  itemTooLong: "account.form.skillsItemTooLong",
  tooMany: "account.form.skillsTooMany",
  tooLong: "account.form.skillsTooLong",
  notArray: "account.form.skillsNotArray",
};

const LANGUAGES_WORDS: ListWords = {
  itemTooLong: "account.form.languagesItemTooLong",
  tooMany: "account.form.languagesTooMany",
  tooLong: "account.form.languagesTooLong",
  notArray: "account.form.languagesNotArray",
};

const listItems = (max: number, each: number, words: ListWords) =>
  z.array(z.string().max(each, msg(words.itemTooLong, { max: each }))).max(max, msg(words.tooMany, { max }));

/** A list typed as one comma-separated field (the settings form). */
const list = (max: number, each: number, words: ListWords) =>
  z
    .string()
    .max(max * (each + 2), words.tooLong)
    .transform((s) => uniqueItems([s]))
    .pipe(listItems(max, each, words));

/** The same list sent as an array (the JSON API): the same rules once split, trimmed and made unique. */
const arrayList = (max: number, each: number, words: ListWords) =>
  z
    .array(z.string().max(max * (each + 2), words.tooLong), { invalid_type_error: words.notArray })
    .max(max * 2, msg(words.tooMany, { max }))
    .transform(uniqueItems)
    .pipe(listItems(max, each, words));

/** Years of experience, a whole number from 0 to 60 (the column's own CHECK). */
export const yearsExperience = z.coerce
  .number({ invalid_type_error: "account.form.yearsNumber" })
  .int("account.form.yearsWhole")
  .min(0, "account.form.yearsNegative")
  .max(60, msg("account.form.yearsTooMany", { max: 60 }));

/** A portfolio's address: http or https only (the profile links to it), at most 300 characters. */
export const portfolioUrl = z
  .string()
  .trim()
  .max(300, "account.form.portfolioTooLong")
  .url("account.form.portfolioUrl")
  .refine((u) => /^https?:\/\//i.test(u), "account.form.portfolioScheme");

export const FreelancerRegisterSchema = withConfirmation({
  name,
  email,
  skills: z
    .string({ required_error: "account.form.skillsRequired" })
    .max(600, msg("account.form.skillsTooMany", { max: 20 }))
    .transform((s) => [
      ...new Set(
        s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(
      z
        .array(z.string().max(40, msg("account.form.skillTooLong", { max: 40 })))
        .min(1, "account.form.skillsRequired")
        .max(20, msg("account.form.skillsTooMany", { max: 20 })),
    ),
  yearsExperience: yearsExperience.optional(),
  portfolioUrl: portfolioUrl.optional(),
  description: z.string().trim().max(2000, "account.form.descriptionTooLong").optional(),
  terms: z.literal("on", { errorMap: () => ({ message: "account.form.termsRequired" }) }),
});

export const LoginSchema = z.object({
  email,
  password: z.string({ required_error: "account.form.passwordEnter" }).max(200, "account.form.passwordTooLong"),
  remember: z.literal("on").optional(),
  redirectTo: z.string().max(2000).optional(),
});

export const ForgotPasswordSchema = z.object({ email });

export const ResetPasswordSchema = withConfirmation({ token: z.string().max(200) });

/** What a reset link that is unknown, used or expired says (its page, and its form when posted). */

export const bio = z.string().trim().max(2000, "account.form.bioTooLong");
export const location = z.string().trim().max(100, "account.form.locationTooLong");

export const ProfileSchema = z.object({
  name,
  bio: bio.default(""),
  location: location.default(""),
  skills: list(20, 40, SKILLS_WORDS).default(""),
  languages: list(10, 40, LANGUAGES_WORDS).default(""),
  // Left empty, each is cleared.
  portfolioUrl: portfolioUrl.optional(),
  yearsExperience: yearsExperience.optional(),
});

/** The profile's lists as arrays, for the JSON API (same limits as the form's). */
export const skillsArray = arrayList(20, 40, SKILLS_WORDS);
export const languagesArray = arrayList(10, 40, LANGUAGES_WORDS);

export const NotificationsSchema = z.object({
  emailOrders: z.literal("on").optional(),
  emailMessages: z.literal("on").optional(),
  emailMarketing: z.literal("on").optional(),
  pushOrders: z.literal("on").optional(),
  pushMessages: z.literal("on").optional(),
  smsOrders: z.literal("on").optional(),
  smsMessages: z.literal("on").optional(),
});

export const SecuritySchema = withConfirmation({
  currentPassword: z.string({ required_error: "account.form.currentPasswordRequired" }).max(200),
});

/** "Sign out" beside one of the member's sessions (Settings › Security): the session's id, as the list gave it. */
export const EndSessionSchema = z.object({
  intent: z.literal("end-session"),
  sessionId: z.string({ required_error: "account.form.sessionRequired" }).regex(/^[0-9a-f]{64}$/, "account.form.sessionFromList"),
});

/**
 * A Ugandan mobile-money number: +256 then 7 and eight digits; spaces and dashes are allowed when typed. Where
 * the earnings go is changed only with the current password (ADR 032): a session alone is not enough.
 */
export const BillingSchema = z.object({
  mobileMoneyNumber: z
    .string({ required_error: "account.form.mobileMoneyRequired" })
    .max(30, "account.form.mobileMoneyFormat")
    .transform((s) => s.replace(/[\s-]/g, ""))
    .pipe(z.string().regex(/^\+2567\d{8}$/, "account.form.mobileMoneyFormat")),
  currentPassword: z.string({ required_error: "account.form.currentPasswordRequired" }).max(200, "account.form.passwordTooLong"),
});

export const PreferencesSchema = z.object({
  language: z.enum(["en", "lg", "sw"], { errorMap: () => ({ message: "account.form.languageChoose" }) }),
  preferredCurrency: z.enum(["UGX", "USD"], { errorMap: () => ({ message: "account.form.currencyChoose" }) }),
  timeZone: z.enum(["EAT", "UTC"], { errorMap: () => ({ message: "account.form.timeZoneChoose" }) }),
});

export type RegisterInput = z.output<typeof RegisterSchema>;
export type FreelancerRegisterInput = z.output<typeof FreelancerRegisterSchema>;
export type LoginInput = z.output<typeof LoginSchema>;
export type ForgotPasswordInput = z.output<typeof ForgotPasswordSchema>;
export type ResetPasswordInput = z.output<typeof ResetPasswordSchema>;
export type ProfileInput = z.output<typeof ProfileSchema>;
export type NotificationsInput = z.output<typeof NotificationsSchema>;
export type SecurityInput = z.output<typeof SecuritySchema>;
export type BillingInput = z.output<typeof BillingSchema>;
export type PreferencesInput = z.output<typeof PreferencesSchema>;
