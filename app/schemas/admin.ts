/**
 * The admin portal's Users and audit screens' forms and queries (ADR 017), shared by the server (which
 * decides) and the browser (which only helps): the Users screen's filters, its per-member and bulk actions,
 * and the audit log's filters. A query that does not parse is shown as the default listing with the message
 * beside its field.
 */
import { z } from "~/schemas/zod";
import { NOTHING_SELECTED } from "~/content/refusal-words";

import { AUDIT_PAGE_SIZE, DELETE_CONFIRMATION, STATUS_ACTIONS, USER_ROLES, USER_STATUSES, USERS_PAGE_SIZE, type StatusAction } from "~/domain/admin-rules";

export { AUDIT_PAGE_SIZE, DELETE_CONFIRMATION, NOTHING_SELECTED, STATUS_ACTIONS, USER_ROLES, USER_STATUSES, USERS_PAGE_SIZE, type StatusAction };

/** The status each action leaves a member in. */
export const STATUS_OF_ACTION = { suspend: "suspended", ban: "banned", activate: "active" } as const;

const page = z.coerce
  .number({ invalid_type_error: "Choose a page number" })
  .int("Choose a page number")
  .min(1, "Choose a page number")
  .max(100_000, "Choose a page number")
  .default(1);
const blankToUndefined = (v: unknown) => (v === "" || v === "all" || v === null ? undefined : v);
const userId = (message = "Choose a member") =>
  z.coerce.number({ invalid_type_error: message, required_error: message }).int(message).positive(message).max(Number.MAX_SAFE_INTEGER, message);

/** GET /users?q&role&status&page (and `member`, one member by id: where the audit log links; `id` names the member a delete confirmation asks about). */
export const UserListQuerySchema = z.object({
  q: z.string().trim().max(100, "Keep the search to at most 100 characters").default(""),
  role: z.preprocess(blankToUndefined, z.enum(USER_ROLES, { errorMap: () => ({ message: "Choose client, freelancer or admin" }) }).optional()),
  status: z.preprocess(blankToUndefined, z.enum(USER_STATUSES, { errorMap: () => ({ message: "Choose active, suspended, banned or deleted" }) }).optional()),
  page: z.preprocess(blankToUndefined, page),
  member: z.preprocess(blankToUndefined, userId().optional()),
});
export type UserListQuery = z.output<typeof UserListQuerySchema>;

/** One member's action from their row: suspend, ban, activate, or delete (carried out with `confirm=yes` only). */
export const UserActionSchema = z.object({
  intent: z.enum([...STATUS_ACTIONS, "delete"], { errorMap: () => ({ message: "Choose suspend, ban, activate or delete" }) }),
  userId: userId(),
  confirm: z.preprocess(blankToUndefined, z.literal("yes").optional()),
});

/** The bulk form: the action and the selected members (checkboxes named userIds, read with getAll). */
export const BulkActionSchema = z.object({
  intent: z.literal("bulk"),
  action: z.enum(STATUS_ACTIONS, { errorMap: () => ({ message: "Choose suspend, ban or activate" }) }),
  userIds: z
    .array(z.string())
    .default([])
    .transform((ids, ctx) => {
      const numbers = [...new Set(ids.map((s) => s.trim()))].map(Number);
      if (numbers.some((n) => !Number.isSafeInteger(n) || n <= 0)) {
        ctx.addIssue({ code: "custom", message: "Choose members from the list" });
        return z.NEVER;
      }
      return numbers;
    })
    .pipe(z.array(z.number()).min(1, NOTHING_SELECTED).max(200, "Choose at most 200 members at a time")),
});
export type BulkActionInput = z.output<typeof BulkActionSchema>;

/** GET /audit?action&admin&page. */
export const AuditQuerySchema = z.object({
  action: z.preprocess(
    blankToUndefined,
    z
      .string()
      .regex(/^[a-z_]+\.[a-z_]+$/, "Choose an action from the list")
      .optional(),
  ),
  admin: z.preprocess(blankToUndefined, userId("Choose an admin from the list").optional()),
  page: z.preprocess(blankToUndefined, page),
});
export type AuditQuery = z.output<typeof AuditQuerySchema>;
