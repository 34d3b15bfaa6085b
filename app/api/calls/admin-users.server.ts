/**
 * The admin's member calls (ADR 017, ADR 041): the Users screen's list (search, role, status), its per-member
 * suspend, ban, activate and delete, and its bulk action, through the same model and operations
 * (app/models/admin-users.server.ts, app/operations/admin-users.server.ts). Each change is audited by its
 * operation; suspending, banning and deleting end every session of the member, app tokens included, and close
 * their sockets. Vetting a freelancer and taking it back (ADR 051). Also the cursor that the admin lists share.
 */
import { sayIn } from "~/content/operation-messages";
import { z } from "zod";
import { listUsersForAdmin, type AdminUserRow } from "~/models/admin-users.server";
import { bulkUserAction, changeUserStatus, deleteUser } from "~/operations/admin-users.server";
import { notFound, ok } from "~/operations/core.server";
import { NOTHING_SELECTED, STATUS_ACTIONS, USER_ROLES, USER_STATUSES, type StatusAction } from "~/schemas/admin";
import { getDb } from "~/server/db.server";
import { setVetting } from "~/operations/vetting.server";
import { VettingSchema, type VettingIntent } from "~/schemas/vetting";
import { call } from "../route.server";
import { IdParams, Iso, iso, pageOf, PageQuery } from "../shapes";
import { msg } from "~/i18n/message-key";

/**
 * A list's cursor: the position of the next page in the list's order, opaque to clients (base64url of a small
 * JSON object). What does not decode is a 400 beside `query.cursor`.
 */
export function encodeCursor(key: string, value: number): string {
  return Buffer.from(JSON.stringify({ [key]: value })).toString("base64url");
}

/** The cursor's schema: a whole number (0 to 2^53) under `key`, or undefined without a cursor. */
export function cursorOf(key: string) {
  return z
    .string()
    .max(500)
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value === "") return undefined;
      let decoded: unknown = null;
      try {
        decoded = JSON.parse(Buffer.from(value, "base64url").toString("utf8"));
      } catch {
        decoded = null;
      }
      const n = decoded && typeof decoded === "object" ? (decoded as Record<string, unknown>)[key] : undefined;
      if (typeof n !== "number" || !Number.isSafeInteger(n) || n < 0) {
        ctx.addIssue({ code: "custom", message: "api.users.cursor" });
        return z.NEVER;
      }
      return n;
    })
    .describe("A page's `nextCursor`, for the page after it.");
}

export const AdminUser = z.object({
  id: z.number().int(),
  name: z.string(),
  email: z.string(),
  username: z.string(),
  role: z.enum(USER_ROLES),
  status: z.enum(USER_STATUSES).describe("`deleted`: the row is kept for orders and messages, with nothing of the person left."),
  joinedAt: Iso,
  lastActiveAt: Iso.nullable(),
  vettedAt: Iso.nullable().describe("When an admin vetted this freelancer after checking their portfolio (ADR 051); null when not vetted."),
  vettedNote: z.string().nullable().describe("The vetting admin's note; null when not vetted."),
});

const userOf = (u: AdminUserRow): z.input<typeof AdminUser> => ({
  id: u.id,
  name: u.name,
  email: u.email,
  username: u.username,
  role: u.role,
  status: u.status,
  joinedAt: iso(u.joinedAt),
  lastActiveAt: u.lastActiveAt ? iso(u.lastActiveAt) : null,
  vettedAt: u.vettedAt ? iso(u.vettedAt) : null,
  vettedNote: u.vettedNote,
});

/** One member as the list shows them (deleted ones too), or null. */
async function adminUser(id: number) {
  const [u] = (await listUsersForAdmin(getDb(), { id, page: 1, pageSize: 1 })).users;
  return u ? userOf(u) : null;
}

const blank = (v: unknown) => (v === "" ? undefined : v);

const UserListQuery = PageQuery.extend({
  search: z
    .string()
    .trim()
    .max(100, msg("api.field.searchTooLong", { max: 100 }))
    .default("")
    .describe("Part of a name, email or username."),
  role: z.preprocess(blank, z.enum(USER_ROLES, { errorMap: () => ({ message: "api.users.role" }) }).optional()),
  status: z.preprocess(blank, z.enum(USER_STATUSES, { errorMap: () => ({ message: "api.users.status" }) }).optional()),
  cursor: cursorOf("o"),
});

/** What an action did, as the answer's `message` says it (keys of the `api` catalogue). */
const DONE: Record<StatusAction, string> = { suspend: "api.users.suspended", ban: "api.users.banned", activate: "api.users.activated" };
const DONE_MANY: Record<StatusAction, string> = { suspend: "api.users.manySuspended", ban: "api.users.manyBanned", activate: "api.users.manyActivated" };

function statusCall(action: StatusAction, operationId: string, summary: string, description: string) {
  return call({
    method: "patch",
    path: `/admin/users/{id}/${action}`,
    operationId,
    summary,
    description,
    tag: "Admin",
    access: "admin",
    params: IdParams,
    response: AdminUser,
    failures: [404, 409],
    async handle({ actor, params, locale }) {
      const result = await changeUserStatus(actor, { userId: params.id, action });
      if (!result.ok) return result;
      const u = await adminUser(params.id);
      return u ? { ok: true, value: u, message: sayIn(locale)(DONE[action], { name: result.value.name }) } : notFound("member.not_found");
    },
  });
}

/** Vetting a freelancer, or taking it back (ADR 051): the Users screen's note form. */
function vettingCall(intent: VettingIntent, operationId: string, summary: string, description: string) {
  return call({
    method: "patch",
    path: `/admin/users/{id}/${intent}`,
    operationId,
    summary,
    description: `${description} Only freelancers; audited with the note. 409 when the member is not a freelancer or already is as asked.`,
    tag: "Admin",
    access: "admin",
    params: IdParams,
    body: z.object({ note: VettingSchema.shape.note }).strict(),
    response: AdminUser,
    failures: [404, 409],
    async handle({ actor, params, body, locale }) {
      const result = await setVetting(actor, { intent, userId: params.id, note: body.note });
      if (!result.ok) return result;
      const u = await adminUser(params.id);
      const done = intent === "vet" ? "api.vetted.vetted" : "api.vetted.unvetted";
      return u ? { ok: true, value: u, message: sayIn(locale)(done, { name: result.value.name }) } : notFound("member.not_found");
    },
  });
}

const ENDS_SESSIONS = "Every session of the member ends (their browsers and app tokens) and their open pages are disconnected.";

export const adminUserCalls = [
  call({
    method: "get",
    path: "/admin/users",
    operationId: "adminListUsers",
    summary: "Members, newest first, found by name, email or username and filtered by role and status",
    description: "Deleted members are listed only with `status=deleted`. `total` is how many members the search and filters match.",
    tag: "Admin",
    access: "admin",
    query: UserListQuery,
    response: pageOf(AdminUser).extend({ total: z.number().int() }),
    async handle({ query }) {
      const offset = query.cursor ?? 0;
      const { users, total } = await listUsersForAdmin(getDb(), {
        q: query.search,
        role: query.role,
        status: query.status,
        page: 1,
        pageSize: query.limit,
        offset,
      });
      const next = offset + users.length;
      return ok({ items: users.map(userOf), nextCursor: users.length > 0 && next < total ? encodeCursor("o", next) : null, total });
    },
  }),
  statusCall("suspend", "adminSuspendUser", "Suspend an active member", `Only an active member can be suspended. ${ENDS_SESSIONS}`),
  statusCall("ban", "adminBanUser", "Ban a member", `Any member not already banned. ${ENDS_SESSIONS}`),
  statusCall("activate", "adminActivateUser", "Activate a suspended or banned member", "They may sign in again."),
  vettingCall(
    "vet",
    "adminVetUser",
    "Mark a freelancer vetted",
    "After checking their portfolio: the note says what was checked. Buyers see a Vetted badge and can filter for vetted sellers.",
  ),
  vettingCall("unvet", "adminUnvetUser", "Take back a freelancer's vetting", "The note says why; the badge goes."),
  call({
    method: "patch",
    path: "/admin/users/{id}/delete",
    operationId: "adminDeleteUser",
    summary: "Delete a member: nothing of the person is kept",
    description:
      "Their row stays under a placeholder name for the orders, reviews and messages that name it; their gigs leave the catalogue. " +
      `Refused (409) while they have orders under way or money on Soko. ${ENDS_SESSIONS} This cannot be undone.`,
    tag: "Admin",
    access: "admin",
    params: IdParams,
    response: AdminUser,
    failures: [404, 409],
    async handle({ actor, params, locale }) {
      const result = await deleteUser(actor, { userId: params.id });
      if (!result.ok) return result;
      const u = await adminUser(params.id);
      return u ? { ok: true, value: u, message: sayIn(locale)("api.users.deleted") } : notFound("member.not_found");
    },
  }),
  call({
    method: "post",
    path: "/admin/users/bulk-action",
    operationId: "adminBulkUserAction",
    summary: "Suspend, ban or activate several members at once",
    description:
      "All in one: an id that names no member (or a deleted one), the admin's own account or the last active admins refuse the whole batch (409) and nothing changes. " +
      "Members the action does not apply to (suspending one already banned) are left as they are and counted as skipped.",
    tag: "Admin",
    access: "admin",
    body: z
      .object({
        user_ids: z
          .array(
            z.number({ invalid_type_error: "api.users.ids" }).int("api.users.ids").positive("api.users.ids").max(Number.MAX_SAFE_INTEGER, "api.users.ids"),
            { required_error: NOTHING_SELECTED, invalid_type_error: "api.users.idsList" },
          )
          .min(1, NOTHING_SELECTED)
          .max(200, msg("api.users.tooMany", { max: 200 })),
        action: z.enum(STATUS_ACTIONS, { errorMap: () => ({ message: "api.users.action" }) }),
      })
      .strict(),
    response: z.object({ changed: z.number().int(), skipped: z.number().int() }),
    failures: [409],
    async handle({ actor, body, locale }) {
      const result = await bulkUserAction(actor, { userIds: body.user_ids, action: body.action });
      if (!result.ok) return result;
      const { changed, skipped } = result.value;
      const _ = sayIn(locale);
      const done = _(DONE_MANY[body.action], { count: changed });
      return { ok: true, value: result.value, message: skipped > 0 ? _("api.users.manySkipped", { done, count: skipped }) : done };
    },
  }),
];
