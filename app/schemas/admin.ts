/**
 * The admin portal's Users and audit screens' forms and queries (ADR 017), shared by the server (which
 * decides) and the browser (which only helps): the Users screen's filters, its per-member and bulk actions,
 * and the audit log's filters. A query that does not parse is shown as the default listing with the message
 * beside its field. Messages are catalogue keys of namespace `admin` (ErrorList says them).
 */
import { z } from "~/schemas/zod";
import { msg } from "~/i18n/message-key";
import { NOTHING_SELECTED } from "~/content/refusal-words";

import { AUDIT_PAGE_SIZE, DELETE_CONFIRMATION, STATUS_ACTIONS, USER_ROLES, USER_STATUSES, USERS_PAGE_SIZE, type StatusAction } from "~/domain/admin-rules";

export { AUDIT_PAGE_SIZE, DELETE_CONFIRMATION, NOTHING_SELECTED, STATUS_ACTIONS, USER_ROLES, USER_STATUSES, USERS_PAGE_SIZE, type StatusAction };

/** The status each action leaves a member in. */
export const STATUS_OF_ACTION = { suspend: "suspended", ban: "banned", activate: "active" } as const;

const PAGE_NUMBER = "admin.form.choosePage";
const page = z.coerce.number({ invalid_type_error: PAGE_NUMBER }).int(PAGE_NUMBER).min(1, PAGE_NUMBER).max(100_000, PAGE_NUMBER).default(1);
const blankToUndefined = (v: unknown) => (v === "" || v === "all" || v === null ? undefined : v);
const userId = (message = "admin.form.chooseMember") =>
  z.coerce.number({ invalid_type_error: message, required_error: message }).int(message).positive(message).max(Number.MAX_SAFE_INTEGER, message);

/** GET /users?q&role&status&page (and `member`, one member by id: where the audit log links; `id` names the member a delete confirmation asks about). */
export const UserListQuerySchema = z.object({
  q: z
    .string()
    .trim()
    .max(100, msg("admin.form.searchTooLong", { max: 100 }))
    .default(""),
  role: z.preprocess(blankToUndefined, z.enum(USER_ROLES, { errorMap: () => ({ message: "admin.form.chooseRole" }) }).optional()),
  status: z.preprocess(blankToUndefined, z.enum(USER_STATUSES, { errorMap: () => ({ message: "admin.form.chooseStatus" }) }).optional()),
  page: z.preprocess(blankToUndefined, page),
  member: z.preprocess(blankToUndefined, userId().optional()),
});
export type UserListQuery = z.output<typeof UserListQuerySchema>;

/** One member's action from their row: suspend, ban, activate, or delete (carried out with `confirm=yes` only). */
export const UserActionSchema = z.object({
  intent: z.enum([...STATUS_ACTIONS, "delete"], { errorMap: () => ({ message: "admin.form.chooseAction" }) }),
  userId: userId(),
  confirm: z.preprocess(blankToUndefined, z.literal("yes").optional()),
});

/** The bulk form: the action and the selected members (checkboxes named userIds, read with getAll). */
export const BulkActionSchema = z.object({
  intent: z.literal("bulk"),
  action: z.enum(STATUS_ACTIONS, { errorMap: () => ({ message: "admin.form.chooseBulkAction" }) }),
  userIds: z
    .array(z.string())
    .default([])
    .transform((ids, ctx) => {
      const numbers = [...new Set(ids.map((s) => s.trim()))].map(Number);
      if (numbers.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
        ctx.addIssue({ code: "custom", message: "admin.form.chooseMembers" });
        return z.NEVER;
      }
      return numbers;
    })
    .pipe(
      z
        .array(z.number())
        .min(1, NOTHING_SELECTED)
        .max(200, msg("admin.form.tooManyMembers", { max: 200 })),
    ),
});
export type BulkActionInput = z.output<typeof BulkActionSchema>;

/** GET /audit?action&admin&page. */
export const AuditQuerySchema = z.object({
  action: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[a-z_]+\.[a-z_]+$/, "admin.form.chooseAuditAction")
      .optional(),
  ),
  admin: z.preprocess(blankToUndefined, userId("admin.form.chooseAdmin").optional()),
  page: z.preprocess(blankToUndefined, page),
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;
