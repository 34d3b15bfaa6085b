/**
 * The account forms' rules, shared by the server (which decides) and the browser (which only helps).
 * Messages are written for the person filling the form in.
 */
import { z } from "~/schemas/zod";
import { RESET_LINK_EXPIRED } from "~/content/refusal-words";

export { RESET_LINK_EXPIRED };

export const email = z
  .string({ required_error: "Enter your email address" })
  .trim()
  .max(254, "An email address has at most 254 characters")
  .email("Enter an email address like name@example.com");

export const name = z.string({ required_error: "Enter your full name" }).trim().min(2, "Enter your full name").max(100, "A name has at most 100 characters");

export const newPassword = z
  .string({ required_error: "Choose a password" })
  .min(8, "Use at least 8 characters")
  .max(200, "A password has at most 200 characters");

const PASSWORDS_DIFFER = "Passwords do not match";

/** The fields a reply never echoes back into a form (new passwords and their confirmation). */
export const HIDDEN_PASSWORDS = ["password", "confirmPassword"];

function withConfirmation<T extends z.ZodRawShape>(shape: T) {
  return z
    .object({ ...shape, password: newPassword, confirmPassword: z.string({ required_error: "Confirm your password" }) })
    .refine((v) => v.password === v.confirmPassword, { path: ["confirmPassword"], message: PASSWORDS_DIFFER });
}

/** Hire = client (the default), Work = freelancer. Nothing else, least of all admin. */
export const RegisterSchema = withConfirmation({
  name,
  email,
  role: z.enum(["client", "freelancer"], { errorMap: () => ({ message: "Choose Hire or Work" }) }).default("client"),
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

const listItems = (max: number, each: number, label: string) =>
  z.array(z.string().max(each, `Each of your ${label} can have at most ${each} characters`)).max(max, `List at most ${max} ${label}`);

/** A list typed as one comma-separated field (the settings form). */
const list = (max: number, each: number, label: string) =>
  z
    .string()
    .max(max * (each + 2), `Too many ${label}`)
    .transform((s) => uniqueItems([s]))
    .pipe(listItems(max, each, label));

/** The same list sent as an array (the JSON API): the same rules once split, trimmed and made unique. */
const arrayList = (max: number, each: number, label: string) =>
  z
    .array(z.string().max(max * (each + 2), `Too many ${label}`), { invalid_type_error: `List your ${label} as an array of words` })
    .max(max * 2, `List at most ${max} ${label}`)
    .transform(uniqueItems)
    .pipe(listItems(max, each, label));

export const FreelancerRegisterSchema = withConfirmation({
  name,
  email,
  skills: z
    .string({ required_error: "List at least one skill" })
    .max(600, "List at most 20 skills")
    .transform((s) => [
      ...new Set(
        s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.string().max(40, "Each skill can have at most 40 characters")).min(1, "List at least one skill").max(20, "List at most 20 skills")),
  yearsExperience: z.coerce
    .number({ invalid_type_error: "Enter a number of years" })
    .int("Enter whole years")
    .min(0, "Years of experience cannot be negative")
    .max(60, "Enter at most 60 years")
    .optional(),
  portfolioUrl: z
    .string()
    .trim()
    .max(300, "A portfolio address has at most 300 characters")
    .url("Enter a full web address, like https://example.com")
    .refine((u) => /^https?:\/\//i.test(u), "Enter a web address starting with http:// or https://")
    .optional(),
  description: z.string().trim().max(2000, "A description has at most 2,000 characters").optional(),
  terms: z.literal("on", { errorMap: () => ({ message: "Accept the terms to continue" }) }),
});

export const LoginSchema = z.object({
  email,
  password: z.string({ required_error: "Enter your password" }).max(200, "A password has at most 200 characters"),
  remember: z.literal("on").optional(),
  redirectTo: z.string().max(2000).optional(),
});

export const ForgotPasswordSchema = z.object({ email });

export const ResetPasswordSchema = withConfirmation({ token: z.string().max(200) });

/** What a reset link that is unknown, used or expired says (its page, and its form when posted). */

export const bio = z.string().trim().max(2000, "A bio has at most 2,000 characters");
export const location = z.string().trim().max(100, "A location has at most 100 characters");

export const ProfileSchema = z.object({
  name,
  bio: bio.default(""),
  location: location.default(""),
  skills: list(20, 40, "skills").default(""),
  languages: list(10, 40, "languages").default(""),
});

/** The profile's lists as arrays, for the JSON API (same limits as the form's). */
export const skillsArray = arrayList(20, 40, "skills");
export const languagesArray = arrayList(10, 40, "languages");

export const NotificationsSchema = z.object({
  emailOrders: z.literal("on").optional(),
  emailMessages: z.literal("on").optional(),
  emailMarketing: z.literal("on").optional(),
  pushOrders: z.literal("on").optional(),
  pushMessages: z.literal("on").optional(),
});

export const SecuritySchema = withConfirmation({
  currentPassword: z.string({ required_error: "Enter your current password" }).max(200),
});

/** "Sign out" beside one of the member's sessions (Settings › Security): the session's id, as the list gave it. */
export const EndSessionSchema = z.object({
  intent: z.literal("end-session"),
  sessionId: z.string({ required_error: "Choose a session" }).regex(/^[0-9a-f]{64}$/, "Choose a session from the list"),
});

/**
 * A Ugandan mobile-money number: +256 then 7 and eight digits; spaces and dashes are allowed when typed. Where
 * the earnings go is changed only with the current password (ADR 032): a session alone is not enough.
 */
export const BillingSchema = z.object({
  mobileMoneyNumber: z
    .string({ required_error: "Enter your mobile-money number" })
    .max(30, "Enter a Ugandan mobile number in the format +256 7XX XXXXXX")
    .transform((s) => s.replace(/[\s-]/g, ""))
    .pipe(z.string().regex(/^\+2567\d{8}$/, "Enter a Ugandan mobile number in the format +256 7XX XXXXXX")),
  currentPassword: z.string({ required_error: "Enter your current password" }).max(200, "A password has at most 200 characters"),
});

export const PreferencesSchema = z.object({
  language: z.enum(["en", "lg", "sw"], { errorMap: () => ({ message: "Choose English, Luganda or Swahili" }) }),
  preferredCurrency: z.enum(["UGX", "USD"], { errorMap: () => ({ message: "Choose UGX or USD" }) }),
  timeZone: z.enum(["EAT", "UTC"], { errorMap: () => ({ message: "Choose EAT or UTC" }) }),
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
