/**
 * Auth calls (ADR 041): tokens for apps. Login and register answer `{ user, token }`; logout
 * ends the token (with every token its refreshes replaced); refresh replaces it; forgot and reset password are
 * the same operations as the pages', and so are verifying an email and mailing its link again (ADR 051).
 */
import { sayIn } from "~/content/operation-messages";
import { z } from "zod";
import { join, signIn, signOut } from "~/operations/accounts.server";
import { refreshAppToken } from "~/operations/app-sessions.server";
import { ok } from "~/operations/core.server";
import { completePasswordReset, requestPasswordReset } from "~/operations/passwords.server";
import { resendVerification, verifyEmail } from "~/operations/email-verification.server";
import { email, name, newPassword } from "~/schemas/account";
import { getDb } from "~/server/db.server";
import { mailOriginFrom, requestOrigin, type TrustProxy } from "~/server/host.server";
import { call } from "../route.server";
import { iso, Platform, TokenAnswer } from "../shapes";
import { msg } from "~/i18n/message-key";

const Device = {
  platform: Platform.default("api"),
  deviceName: z
    .string()
    .trim()
    .max(100, msg("api.auth.deviceNameTooLong", { max: 100 }))
    .optional(),
};

const LoginBody = z
  .object({ email, password: z.string({ required_error: "account.form.passwordEnter" }).min(1, "account.form.passwordEnter").max(200), ...Device })
  .strict();
const RegisterBody = z
  .object({
    name,
    email,
    password: newPassword,
    role: z.enum(["client", "freelancer"], { message: "api.auth.role" }).default("client"),
    ...Device,
  })
  .strict();

async function memberOfId(id: number) {
  const row = await getDb()("users").where({ id }).first("id", "name", "username", "email", "role");
  return { id: Number(row.id), name: row.name, username: row.username, email: row.email, role: row.role };
}

export const authCalls = [
  call({
    method: "post",
    path: "/auth/login",
    operationId: "login",
    summary: "Sign in: a token for this app",
    description: "An admin's token lasts 12 hours, a member's 30 days from its sign-in or last refresh.",
    tag: "Auth",
    access: "public",
    body: LoginBody,
    response: TokenAnswer,
    async handle({ actor, body }) {
      if (actor.kind === "member") return { ok: false, error: "forbidden", code: "account.already_member", params: {} };
      const result = await signIn(actor, {
        email: body.email,
        password: body.password,
        site: "main",
        app: { platform: body.platform, deviceName: body.deviceName ?? null },
      });
      if (!result.ok) return result;
      return ok({ user: await memberOfId(result.value.userId), token: result.value.token, expiresAt: iso(result.value.expiresAt) });
    },
  }),
  call({
    method: "post",
    path: "/auth/register",
    operationId: "register",
    summary: "Join as a client or a freelancer: a token for this app",
    description: "A link that verifies the email is mailed to it (see verifyEmail); a freelancer publishes gigs once it is followed.",
    tag: "Auth",
    access: "public",
    body: RegisterBody,
    response: TokenAnswer,
    status: 201,
    async handle({ actor, body, locale }) {
      const { platform, deviceName, ...input } = body;
      const result = await join(actor, { ...input, confirmPassword: input.password, app: { platform, deviceName: deviceName ?? null }, language: locale });
      if (!result.ok) return result;
      return {
        ok: true,
        status: 201,
        value: { user: await memberOfId(result.value.userId), token: result.value.token, expiresAt: iso(result.value.expiresAt) },
      };
    },
  }),
  call({
    method: "post",
    path: "/auth/logout",
    operationId: "logout",
    summary: "Sign out: this token stops working",
    tag: "Auth",
    access: "member",
    response: z.null(),
    handle: ({ actor }) => signOut(actor),
  }),
  call({
    method: "post",
    path: "/auth/refresh",
    operationId: "refreshToken",
    summary: "Replace this token with a new one",
    description:
      "The old token stops working. Presenting a replaced token again ends every token of that sign-in (it may have been copied): the app must sign in again.",
    tag: "Auth",
    access: "member",
    response: TokenAnswer,
    async handle({ actor }) {
      const result = await refreshAppToken(actor);
      if (!result.ok || actor.kind !== "member") return result as never;
      return ok({ user: await memberOfId(actor.user.id), token: result.value.token, expiresAt: iso(result.value.expiresAt) });
    },
  }),
  call({
    method: "post",
    path: "/auth/forgot-password",
    operationId: "forgotPassword",
    summary: "Mail a password reset link",
    description: "Answers the same whether or not the email belongs to a member, so nobody can learn who has an account.",
    tag: "Auth",
    access: "public",
    body: z.object({ email }).strict(),
    response: z.null(),
    async handle({ actor, body, req, locale }) {
      // Never the Host header's name as it is (host-header poisoning): the rule of the web's reset form.
      const origin = mailOriginFrom(requestOrigin(req, req.app.get("trust proxy fn") as TrustProxy));
      const result = await requestPasswordReset(actor, { email: body.email, origin });
      return result.ok ? { ok: true, value: null, message: sayIn(locale)("api.auth.resetSent") } : result;
    },
  }),
  call({
    method: "post",
    path: "/auth/reset-password",
    operationId: "resetPassword",
    summary: "Set a new password with a reset link's token",
    description: "Every session and token of the member ends: sign in again with the new password.",
    tag: "Auth",
    access: "public",
    body: z.object({ token: z.string().min(1).max(200), password: newPassword }).strict(),
    response: z.null(),
    failures: [409],
    async handle({ actor, body, locale }) {
      const result = await completePasswordReset(actor, { token: body.token, password: body.password, confirmPassword: body.password });
      return result.ok ? { ok: true, value: null, message: sayIn(locale)("api.auth.passwordChanged") } : result;
    },
  }),
  call({
    method: "post",
    path: "/auth/verify-email",
    operationId: "verifyEmail",
    summary: "Verify an email address with the token of its mailed link",
    description:
      "The link mailed at joining and when the email changes (`/auth/verify-email?token=…`) carries the token; it works once, " +
      "for 48 hours, and only while the account still has the address it was mailed to (409 otherwise, `verify.link_dead` " +
      "with `why`: `used`, `expired` or `stale`). No token is needed to call it: the mail may be opened on another device. " +
      "A freelancer publishes gigs only once their email is verified.",
    tag: "Auth",
    access: "public",
    body: z.object({ token: z.string().min(1).max(200) }).strict(),
    response: z.object({ verified: z.literal(true) }),
    failures: [409],
    async handle({ actor, body, locale }) {
      const result = await verifyEmail(actor, { token: body.token });
      return result.ok ? { ok: true, value: { verified: true as const }, message: sayIn(locale)("api.verify.verified") } : result;
    },
  }),
  call({
    method: "post",
    path: "/auth/verify-email/resend",
    operationId: "resendVerificationEmail",
    summary: "Mail the verification link again",
    description:
      "Mails a new link to the member's current address, at most 5 an hour per member (429 with Retry-After past that). " +
      "409 `verify.already_verified` when the address is verified already.",
    tag: "Auth",
    access: "member",
    body: z.object({}).strict(),
    response: z.object({ email: z.string() }),
    failures: [409],
    async handle({ actor, locale }) {
      const result = await resendVerification(actor);
      return result.ok ? { ok: true, value: { email: result.value.email }, message: sayIn(locale)("api.verify.sent") } : result;
    },
  }),
];
