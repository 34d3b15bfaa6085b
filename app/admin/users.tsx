import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigation, useSearchParams, useSubmit } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useRef } from "react";
import { ErrorList, FormMessage } from "~/components/forms";
import { AdminPager } from "~/components/admin-pager";
import { SelectAll } from "~/components/admin-select-all";
import { VettingControl } from "~/components/admin-vetting";
import { isVettingForm, vettingAnswer } from "~/server/admin-vetting.server";
import { listUsersForAdmin, type AdminUserRow } from "~/models/admin-users.server";
import { bulkUserAction, changeUserStatus, deleteUser } from "~/operations/admin-users.server";
import type { Failure } from "~/operations/core.server";
import { BulkActionSchema, UserActionSchema, UserListQuerySchema, type UserListQuery } from "~/schemas/admin";
import { DELETE_CONFIRMATION, STATUS_ACTIONS, USER_ROLES, USER_STATUSES, USERS_PAGE_SIZE, type StatusAction } from "~/domain/admin-rules";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireAdmin, requireMemberActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { usePreferences } from "~/hooks/use-preferences";
import adminStylesUrl from "~/styles/admin-users.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { issueMessages, messageOf } from "~/content/operation-messages";
import { requestLocale } from "~/i18n/locale.server";
import type { Locale } from "~/i18n/locales";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, T, useT } from "~/i18n/react";

/**
 * `/users` on the admin host, `/admin/users` on the main host (app/utils/site-routes.ts): members found by
 * name, email or username, filtered by role and status, paged; per member suspend, ban, activate (as the
 * docs/product.md allows) and delete after a confirmation; suspend, ban or activate for a selection. A GET form
 * (submitted on change with JavaScript, by its button without), posts that answer with 303 back to the same
 * listing, and a confirmation that is a page of its own (`?confirm=delete&id=…`) without JavaScript and the
 * same panel in place with it.
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.users.title") }, { name: "robots", content: "noindex" }];
};
export const links: LinksFunction = () => [adminStylesUrl, tablesStylesUrl].map((href) => ({ rel: "stylesheet", href }));

/** The listing's own query keys, the only ones a redirect carries back. */
const LIST_KEYS = ["q", "role", "status", "page", "member"] as const;

/**
 * The listing's query as this screen writes it. Links from elsewhere may name the search `search`
 * (`/users?search=&role=&status=`): it is read as `q` when `q` is absent, so such links work too.
 */
function listParams(params: URLSearchParams): URLSearchParams {
  const kept = new URLSearchParams();
  for (const key of LIST_KEYS) {
    const value = key === "q" ? (params.get("q") ?? params.get("search")) : params.get(key);
    if (value) kept.set(key, value);
  }
  return kept;
}

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const me = await requireAdmin(request);
  const params = new URL(request.url).searchParams;
  const parsed = UserListQuerySchema.safeParse(Object.fromEntries(listParams(params)));
  const query: UserListQuery = parsed.success ? parsed.data : { q: "", page: 1 };
  const queryErrors = parsed.success ? {} : parsed.error.flatten().fieldErrors;
  const db = getDb();
  const { users, total } = await listUsersForAdmin(db, { ...query, id: query.member, pageSize: USERS_PAGE_SIZE });

  // The delete confirmation: a member named by id, not deleted yet, and not the admin themself.
  let confirming: AdminUserRow | null = null;
  if (params.get("confirm") === "delete") {
    const id = Number(params.get("id"));
    if (Number.isSafeInteger(id) && id > 0 && id !== me.id) {
      confirming = (await listUsersForAdmin(db, { id, page: 1, pageSize: 1 })).users.find((u) => u.status !== "deleted") ?? null;
    }
  }
  const notice = await noticeOf(params, await requestT(request));
  return data(
    {
      me: me.id,
      users,
      total,
      query,
      queryErrors,
      confirming,
      notice,
      pages: Math.max(1, Math.ceil(total / USERS_PAGE_SIZE)),
      ...(await pageMessages(request, ["admin"])),
    },
    { status: parsed.success ? 200 : 400 },
  );
}

/** "3 members suspended.": a bulk action's result, per action. */
const BULK_DONE: Record<StatusAction, string> = { suspend: "admin.users.bulkSuspended", ban: "admin.users.bulkBanned", activate: "admin.users.bulkActivated" };
/** "Akello Joan was suspended.": one member's. */
const ONE_DONE: Record<StatusAction, string> = { suspend: "admin.users.wasSuspended", ban: "admin.users.wasBanned", activate: "admin.users.wasActivated" };

/** The notice after an action, checked against the member where it names one (a link cannot claim what did not happen). */
async function noticeOf(params: URLSearchParams, t: Awaited<ReturnType<typeof requestT>>): Promise<string | null> {
  const done = params.get("done");
  if (!done) return null;
  if (done.startsWith("bulk-")) {
    const action = done.slice(5) as StatusAction;
    if (!STATUS_ACTIONS.includes(action)) return null;
    const changed = Number(params.get("changed"));
    const skipped = Number(params.get("skipped"));
    if (!Number.isSafeInteger(changed) || !Number.isSafeInteger(skipped)) return null;
    const result = t(BULK_DONE[action], { count: changed });
    return skipped > 0 ? `${result} ${t("admin.users.bulkSkipped", { count: skipped })}` : result;
  }
  const id = Number(params.get("who"));
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const [u] = (await listUsersForAdmin(getDb(), { id, page: 1, pageSize: 1 })).users;
  if (!u) return null;
  if (done === "delete") return u.status === "deleted" ? t("admin.users.deleted") : null;
  const action = done as StatusAction;
  if (!STATUS_ACTIONS.includes(action)) return null;
  const expected = { suspend: "suspended", ban: "banned", activate: "active" }[action];
  return u.status === expected ? t(ONE_DONE[action], { name: u.name }) : null;
}

type ActionAnswer = { form: "bulk" | "row"; userId?: number; errors: Record<string, string[] | undefined> };
const answer = (body: ActionAnswer, status: number) => data(body, { status });

function refused(form: ActionAnswer["form"], failure: Failure, locale: Locale, userId?: number) {
  const message = failure.error === "invalid" ? Object.values(issueMessages(failure.issues, locale)).flat() : [messageOf(failure, locale)];
  return answer({ form, userId, errors: { form: message } }, failureStatus(failure));
}

export async function action({ request, context }: ActionFunctionArgs) {
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const formData = await readFormData(request);
  const locale = await requestLocale(request);
  const url = new URL(request.url);
  const back = listParams(url.searchParams);
  const backTo = (extra: Record<string, string>) => {
    const params = new URLSearchParams(back);
    for (const [k, v] of Object.entries(extra)) params.set(k, v);
    return `${url.pathname}?${params}`;
  };

  if (isVettingForm(formData)) return vettingAnswer(actor, formData, locale, backTo);
  if (formData.get("intent") === "bulk") {
    const parsed = BulkActionSchema.safeParse({ intent: "bulk", action: formData.get("action") ?? undefined, userIds: formData.getAll("userIds").map(String) });
    if (!parsed.success) return answer({ form: "bulk", errors: parsed.error.flatten().fieldErrors }, 400);
    const result = await bulkUserAction(actor, parsed.data);
    if (!result.ok) return refused("bulk", result, locale);
    return redirect(backTo({ done: `bulk-${parsed.data.action}`, changed: String(result.value.changed), skipped: String(result.value.skipped) }), 303);
  }

  const parsed = UserActionSchema.safeParse({
    intent: formData.get("intent") ?? undefined,
    userId: formData.get("userId") ?? undefined,
    confirm: formData.get("confirm") ?? undefined,
  });
  if (!parsed.success) return answer({ form: "row", errors: parsed.error.flatten().fieldErrors }, 400);
  const { intent, userId, confirm } = parsed.data;
  if (intent === "delete") {
    // Not confirmed yet: the confirmation page (the same panel JavaScript shows in place).
    if (confirm !== "yes") return redirect(backTo({ confirm: "delete", id: String(userId) }), 303);
    const result = await deleteUser(actor, { userId });
    if (!result.ok) return refused("row", result, locale, userId);
    return redirect(backTo({ done: "delete", who: String(userId) }), 303);
  }
  const result = await changeUserStatus(actor, { userId, action: intent });
  if (!result.ok) return refused("row", result, locale, userId);
  return redirect(backTo({ done: intent, who: String(userId) }), 303);
}

const STATUS_LABEL: Record<AdminUserRow["status"], string> = {
  active: "admin.users.statusActive",
  suspended: "admin.users.statusSuspended",
  banned: "admin.users.statusBanned",
  deleted: "admin.users.statusDeleted",
};
const ROLE_LABEL: Record<AdminUserRow["role"], string> = {
  client: "admin.users.roleClient",
  freelancer: "admin.users.roleFreelancer",
  admin: "admin.users.roleAdmin",
};
const ACTION_LABEL: Record<StatusAction, string> = { suspend: "admin.users.suspend", ban: "admin.users.ban", activate: "admin.users.activate" };
/** A row's button's name with the member's ("Suspend Akello Joan"). */
const ACTION_NAMED: Record<StatusAction, string> = { suspend: "admin.users.suspendNamed", ban: "admin.users.banNamed", activate: "admin.users.activateNamed" };
/** The bulk form's buttons ("Suspend selected"). */
const BULK_LABEL: Record<StatusAction, string> = {
  suspend: "admin.users.suspendSelected",
  ban: "admin.users.banSelected",
  activate: "admin.users.activateSelected",
};
const PENDING_LABEL: Record<StatusAction | "delete", string> = {
  suspend: "admin.users.suspending",
  ban: "admin.users.banning",
  activate: "admin.users.activating",
  delete: "admin.users.deleting",
};

/** What the screen offers for a member as they are (docs/product.md, Accounts): suspend when active, ban when not banned, activate when not active. */
function actionsFor(u: AdminUserRow): StatusAction[] {
  if (u.status === "deleted") return [];
  return STATUS_ACTIONS.filter((a) => (a === "suspend" ? u.status === "active" : a === "ban" ? u.status !== "banned" : u.status !== "active"));
}

export default function AdminUsers() {
  const { me, users, total, query, queryErrors, confirming, notice, pages } = useLoaderData<typeof loader>();
  const answered = useActionData<typeof action>();
  const [searchParams] = useSearchParams();
  const locationKey = useLocation().key;
  const back = listParams(searchParams);
  const rowError = answered?.form === "row" ? answered.errors : undefined;
  const bulkError = answered?.form === "bulk" ? answered.errors : undefined;
  const rowPlaced = Boolean(rowError && users.some((u) => u.id === answered?.userId));
  const errorsOf = (e?: Record<string, string[] | undefined>) => (e ? Object.values(e).flatMap((v) => v ?? []) : undefined);
  const { t } = useT();

  return (
    <section className="container admin-screen" aria-labelledby="users-title">
      <h1 id="users-title">{t("admin.users.heading")}</h1>
      <FormMessage success={answered ? null : notice} />
      {/* A refusal shows in its member's row; one no row can show (a forged form, a member gone) at the top. */}
      {rowPlaced ? null : <ErrorList errors={errorsOf(rowError)} />}

      <UserFilters query={query} errors={queryErrors} />
      {query.member ? (
        <p className="notice" role="note">
          <T id="admin.users.onlyMember" values={{ id: query.member }} components={{ 0: <Link to="." /> }} />
        </p>
      ) : null}

      {confirming ? <DeleteConfirmation user={confirming} back={back} /> : null}

      <Form method="post" id="bulk-users" action={`?${back}`} className="admin-bulk" aria-labelledby="bulk-title">
        <h2 id="bulk-title" className="visually-hidden">
          {t("admin.users.selectedMembers")}
        </h2>
        <input type="hidden" name="intent" value="bulk" />
        <span>{t("admin.users.withSelected")}</span>
        {STATUS_ACTIONS.map((a) => (
          <BulkButton key={a} action={a} />
        ))}
        <ErrorList id="bulk-users-error" errors={errorsOf(bulkError)} />
      </Form>

      <p role="status" className="admin-count">
        {total === 0 ? "" : t("admin.users.count", { count: total })}
      </p>
      {users.length === 0 ? (
        <p className="admin-empty">{t("admin.users.empty")}</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table stack-table">
            <caption className="visually-hidden">{t("admin.users.caption")}</caption>
            <thead>
              <tr>
                <th scope="col" className="stack-keep">
                  <SelectAll key={locationKey} />
                </th>
                <th scope="col">{t("admin.users.colName")}</th>
                <th scope="col">{t("admin.users.colEmail")}</th>
                <th scope="col">{t("admin.users.colUsername")}</th>
                <th scope="col">{t("admin.users.role")}</th>
                <th scope="col">{t("admin.users.status")}</th>
                <th scope="col">{t("admin.users.colJoined")}</th>
                <th scope="col">{t("admin.users.colLastActive")}</th>
                <th scope="col">{t("admin.users.colActions")}</th>
              </tr>
            </thead>
            <tbody>
              {users.map((u) => (
                <UserRow key={u.id} u={u} me={me} back={back} errors={rowPlaced && answered?.userId === u.id ? errorsOf(rowError) : undefined} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AdminPager page={query.page} pages={pages} params={back} label={t("admin.users.pages")} />
    </section>
  );
}

/** The GET form: submitted by its button without JavaScript; with it, on every change (the search after a pause). */
function UserFilters({ query, errors }: { query: UserListQuery; errors: Record<string, string[] | undefined> }) {
  const submit = useSubmit();
  const timer = useRef<ReturnType<typeof setTimeout>>();
  useEffect(() => () => clearTimeout(timer.current), []);
  const navigation = useNavigation();
  const searching = navigation.state === "loading" && navigation.formMethod?.toLowerCase() === "get";
  const { t } = useT();
  const reload = (form: HTMLFormElement, delayMs: number) => {
    clearTimeout(timer.current);
    timer.current = setTimeout(() => submit(form, { replace: true, preventScrollReset: true }), delayMs);
  };
  return (
    <Form
      method="get"
      className="admin-filters"
      role="search"
      aria-label={t("admin.users.findLabel")}
      // `input`, not `change`: each keystroke (React's onChange means both, Preact's the DOM's own change, on leaving the box).
      onInput={(e) => reload(e.currentTarget, (e.target as HTMLElement).tagName === "INPUT" ? 350 : 0)}
    >
      <div className="field">
        <label htmlFor="users-q">{t("admin.users.search")}</label>
        <input
          id="users-q"
          name="q"
          type="search"
          defaultValue={query.q}
          maxLength={100}
          placeholder={t("admin.users.searchPlaceholder")}
          aria-describedby={errors.q ? "users-q-error" : undefined}
        />
        <ErrorList id="users-q-error" errors={errors.q} />
      </div>
      <div className="field">
        <label htmlFor="users-role">{t("admin.users.role")}</label>
        <select id="users-role" name="role" defaultValue={query.role ?? ""} aria-describedby={errors.role ? "users-role-error" : undefined}>
          <option value="">{t("admin.users.allRoles")}</option>
          {USER_ROLES.map((r) => (
            <option key={r} value={r}>
              {t(ROLE_LABEL[r])}
            </option>
          ))}
        </select>
        <ErrorList id="users-role-error" errors={errors.role} />
      </div>
      <div className="field">
        <label htmlFor="users-status">{t("admin.users.status")}</label>
        <select id="users-status" name="status" defaultValue={query.status ?? ""} aria-describedby={errors.status ? "users-status-error" : undefined}>
          <option value="">{t("admin.users.allStatuses")}</option>
          {USER_STATUSES.map((s) => (
            <option key={s} value={s}>
              {t(STATUS_LABEL[s])}
            </option>
          ))}
        </select>
        <ErrorList id="users-status-error" errors={errors.status} />
      </div>
      <ErrorList errors={errors.page ?? errors.member} />
      <button type="submit" className="button">
        {searching ? t("admin.users.searching") : t("admin.users.search")}
      </button>
    </Form>
  );
}

function BulkButton({ action }: { action: StatusAction }) {
  const { t } = useT();
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && navigation.formData?.get("intent") === "bulk" && navigation.formData.get("action") === action;
  return (
    <button type="submit" name="action" value={action} className="button button-secondary" disabled={pending} aria-disabled={pending}>
      {pending ? t(PENDING_LABEL[action]) : t(BULK_LABEL[action])}
    </button>
  );
}

function UserRow({ u, me, back, errors }: { u: AdminUserRow; me: number; back: URLSearchParams; errors?: string[] }) {
  const { date, dateTime } = usePreferences();
  const confirmParams = new URLSearchParams(back);
  confirmParams.set("confirm", "delete");
  confirmParams.set("id", String(u.id));
  const self = u.id === me;
  const locationKey = useLocation().key;
  const { t } = useT();
  return (
    <tr>
      <td className="admin-select" data-label={t("admin.users.select")}>
        {/* Keyed by the page's location: a selection is cleared once its action has been carried out. The label
            around the box makes a 44 px target of it. */}
        {u.status === "deleted" || self ? null : (
          <label className="admin-check">
            <input
              key={locationKey}
              type="checkbox"
              name="userIds"
              value={u.id}
              form="bulk-users"
              aria-label={t("admin.users.selectNamed", { name: u.name })}
            />
          </label>
        )}
      </td>
      <th scope="row" data-label={t("admin.users.colName")}>
        {u.name}
      </th>
      <td data-label={t("admin.users.colEmail")}>{u.email}</td>
      <td data-label={t("admin.users.colUsername")}>{u.username}</td>
      <td data-label={t("admin.users.role")}>{t(ROLE_LABEL[u.role])}</td>
      <td data-label={t("admin.users.status")}>
        <span className={`status-badge status-${u.status}`}>{t(STATUS_LABEL[u.status])}</span>
      </td>
      <td data-label={t("admin.users.colJoined")}>
        <time dateTime={new Date(u.joinedAt).toISOString()}>{date(u.joinedAt)}</time>
      </td>
      <td data-label={t("admin.users.colLastActive")}>
        {u.lastActiveAt ? <time dateTime={new Date(u.lastActiveAt).toISOString()}>{dateTime(u.lastActiveAt)}</time> : t("admin.users.never")}
      </td>
      <td data-label={t("admin.users.colActions")}>
        <div className="admin-actions">
          {self ? (
            <span className="field-hint">{t("admin.users.you")}</span>
          ) : (
            <>
              {actionsFor(u).map((a) => (
                <RowAction key={a} u={u} action={a} back={back} />
              ))}
              {u.status === "deleted" ? null : (
                <Link
                  to={`?${confirmParams}`}
                  className="button button-danger button-small"
                  preventScrollReset
                  aria-label={t("admin.users.deleteNamed", { name: u.name })}
                >
                  {t("admin.users.delete")}
                </Link>
              )}
            </>
          )}
        </div>
        <VettingControl u={u} back={back} />
        <ErrorList id={`user-${u.id}-error`} errors={errors} />
      </td>
    </tr>
  );
}

function RowAction({ u, action, back }: { u: AdminUserRow; action: StatusAction; back: URLSearchParams }) {
  const { t } = useT();
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && navigation.formData?.get("userId") === String(u.id) && navigation.formData.get("intent") === action;
  return (
    <Form method="post" action={`?${back}`} className="inline-form">
      <input type="hidden" name="userId" value={u.id} />
      <button
        type="submit"
        name="intent"
        value={action}
        className="button button-secondary button-small"
        disabled={pending}
        aria-disabled={pending}
        aria-label={t(ACTION_NAMED[action], { name: u.name })}
      >
        {pending ? t(PENDING_LABEL[action]) : t(ACTION_LABEL[action])}
      </button>
    </Form>
  );
}

/** The confirmation (docs/product.md) before a delete: a page of its own without JavaScript, in place with it. */
function DeleteConfirmation({ user, back }: { user: AdminUserRow; back: URLSearchParams }) {
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && navigation.formData?.get("intent") === "delete";
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { t } = useT();
  useEffect(() => headingRef.current?.focus(), [user.id]);
  return (
    <div className="admin-confirm" role="alertdialog" aria-labelledby="confirm-delete-title" aria-describedby="confirm-delete-text">
      <h2 id="confirm-delete-title" ref={headingRef} tabIndex={-1}>
        {t("admin.users.deleteHeading", { name: user.name })}
      </h2>
      <p id="confirm-delete-text">{t(DELETE_CONFIRMATION)}</p>
      <p className="field-hint">{t("admin.users.deleteWhat", { email: user.email, username: user.username })}</p>
      <Form method="post" action={`?${back}`} className="inline-form">
        <input type="hidden" name="userId" value={user.id} />
        <input type="hidden" name="confirm" value="yes" />
        <button type="submit" name="intent" value="delete" className="button button-danger" disabled={pending} aria-disabled={pending}>
          {pending ? t(PENDING_LABEL.delete) : t("admin.users.deleteUser")}
        </button>
      </Form>{" "}
      <Link to={`?${back}`} className="button button-secondary" preventScrollReset>
        {t("admin.users.cancel")}
      </Link>
    </div>
  );
}
