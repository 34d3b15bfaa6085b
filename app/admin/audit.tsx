import { data, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useLoaderData, useNavigation, useSearchParams, useSubmit } from "@remix-run/react";
import { Link } from "~/components/link";
import { AdminPager } from "~/components/admin-pager";
import { ErrorList } from "~/components/forms";
import { auditFilterChoices, listAuditLog, type AuditRow } from "~/models/audit.server";
import adminStylesUrl from "~/styles/admin-users.css?url";
import tablesStylesUrl from "~/styles/admin-tables.css?url";
import { AuditQuerySchema, type AuditQuery } from "~/schemas/admin";
import { AUDIT_PAGE_SIZE } from "~/domain/admin-rules";
import { adminScreenAction, adminScreenLoader } from "~/server/admin-area.server";
import { getDb } from "~/server/db.server";
import { usePreferences } from "~/hooks/use-preferences";
import { pageMessages } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

/**
 * `/audit` on the admin host, `/admin/audit` on the main host (app/utils/site-routes.ts): admin_audit_log,
 * newest first, paged, filtered by action and by admin. Each row: when, which admin, what, to whom (a link to
 * the member on the Users screen where the target is one), the details, and the address it came from. The
 * log is read-only here as everywhere (the table refuses updates and deletes).
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.audit.title") }, { name: "robots", content: "noindex" }];
};
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: adminStylesUrl },
  { rel: "stylesheet", href: tablesStylesUrl },
];

export async function loader({ request }: LoaderFunctionArgs) {
  await adminScreenLoader(request);
  const params = new URL(request.url).searchParams;
  const parsed = AuditQuerySchema.safeParse(Object.fromEntries(params));
  const query: AuditQuery = parsed.success ? parsed.data : { page: 1 };
  const db = getDb();
  const [{ rows, total }, choices] = await Promise.all([
    listAuditLog(db, { action: query.action, adminId: query.admin, page: query.page, pageSize: AUDIT_PAGE_SIZE }),
    auditFilterChoices(db),
  ]);
  return data(
    {
      rows,
      total,
      query,
      choices,
      queryErrors: parsed.success ? {} : parsed.error.flatten().fieldErrors,
      pages: Math.max(1, Math.ceil(total / AUDIT_PAGE_SIZE)),
      ...(await pageMessages(request, ["admin"])),
    },
    { status: parsed.success ? 200 : 400 },
  );
}

/** Nothing to post: the log is only read. */
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

/** The actions in plain words (catalogue keys); one not listed reads as itself ("rates.set"). */
const ACTION_WORDS: Record<string, string> = {
  "user.suspend": "admin.audit.userSuspend",
  "user.ban": "admin.audit.userBan",
  "user.activate": "admin.audit.userActivate",
  "user.delete": "admin.audit.userDelete",
  "conversation.read": "admin.audit.conversationRead",
  "conversation.flag": "admin.audit.conversationFlag",
  "conversation.unflag": "admin.audit.conversationUnflag",
  "conversation.delete": "admin.audit.conversationDelete",
  "analytics.export": "admin.audit.analyticsExport",
  "exchange_rate.set": "admin.audit.exchangeRateSet",
  "dispute.release": "admin.audit.disputeRelease",
  "dispute.refund": "admin.audit.disputeRefund",
  "dispute.split": "admin.audit.disputeSplit",
  "pipeline.replay": "admin.audit.pipelineReplay",
  "category.add": "admin.audit.categoryAdd",
  "category.rename": "admin.audit.categoryRename",
  "category.move": "admin.audit.categoryMove",
  "category.hide": "admin.audit.categoryHide",
  "category.show": "admin.audit.categoryShow",
  "category.delete": "admin.audit.categoryDelete",
  "review.hide": "admin.reviews.auditHide",
  "review.unhide": "admin.reviews.auditUnhide",
  "user.vet": "admin.vetted.auditVet",
  "user.unvet": "admin.vetted.auditUnvet",
};

/** An action in words, in the reader's language. */
function actionWords(t: ReturnType<typeof useT>["t"], action: string): string {
  const key = ACTION_WORDS[action];
  return key ? t(key) : action;
}

export default function AdminAudit() {
  const { rows, total, query, choices, queryErrors, pages } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const back = new URLSearchParams();
  for (const key of ["action", "admin"]) if (searchParams.get(key)) back.set(key, searchParams.get(key)!);
  const submit = useSubmit();
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.formMethod?.toLowerCase() === "get";
  const { t } = useT();
  return (
    <section className="container admin-screen" aria-labelledby="audit-title">
      <h1 id="audit-title">{t("admin.audit.heading")}</h1>
      <p className="section-lead">{t("admin.audit.lead")}</p>
      <Form
        method="get"
        className="admin-filters"
        aria-label={t("admin.audit.filterLabel")}
        onChange={(e) => submit(e.currentTarget, { replace: true, preventScrollReset: true })}
      >
        <div className="field">
          <label htmlFor="audit-action">{t("admin.audit.action")}</label>
          <select id="audit-action" name="action" defaultValue={query.action ?? ""}>
            <option value="">{t("admin.audit.allActions")}</option>
            {choices.actions.map((a) => (
              <option key={a} value={a}>
                {actionWords(t, a)} ({a})
              </option>
            ))}
          </select>
          <ErrorList errors={queryErrors.action} />
        </div>
        <div className="field">
          <label htmlFor="audit-admin">{t("admin.audit.admin")}</label>
          <select id="audit-admin" name="admin" defaultValue={query.admin ? String(query.admin) : ""}>
            <option value="">{t("admin.audit.allAdmins")}</option>
            {choices.admins.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </select>
          <ErrorList errors={queryErrors.admin} />
        </div>
        <ErrorList errors={queryErrors.page} />
        <button type="submit" className="button">
          {loading ? t("admin.audit.filtering") : t("admin.audit.filter")}
        </button>
      </Form>
      <p role="status" className="admin-count">
        {total === 0 ? "" : t("admin.audit.entries", { count: total })}
      </p>
      {rows.length === 0 ? (
        <p className="admin-empty">{t("admin.audit.empty")}</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table stack-table">
            <caption className="visually-hidden">{t("admin.audit.caption")}</caption>
            <thead>
              <tr>
                <th scope="col">{t("admin.audit.colWhen")}</th>
                <th scope="col">{t("admin.audit.admin")}</th>
                <th scope="col">{t("admin.audit.action")}</th>
                <th scope="col">{t("admin.audit.colTarget")}</th>
                <th scope="col">{t("admin.audit.colDetails")}</th>
                <th scope="col">{t("admin.audit.colIp")}</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((r) => (
                <AuditEntry key={r.id} r={r} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      <AdminPager page={query.page} pages={pages} params={back} label={t("admin.audit.pages")} />
    </section>
  );
}

function AuditEntry({ r }: { r: AuditRow }) {
  const { dateTime } = usePreferences();
  const { t } = useT();
  const details = Object.entries(r.details);
  return (
    <tr>
      <td data-label={t("admin.audit.colWhen")}>
        <time dateTime={new Date(r.at).toISOString()}>{dateTime(r.at)}</time>
      </td>
      <td data-label={t("admin.audit.admin")}>{r.adminName}</td>
      <td data-label={t("admin.audit.action")}>
        {actionWords(t, r.action)}
        <br />
        <code>{r.action}</code>
      </td>
      <td data-label={t("admin.audit.colTarget")}>
        <Target r={r} />
      </td>
      <td className="audit-details" data-label={t("admin.audit.colDetails")}>
        {details.length ? details.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join("\n") : "—"}
      </td>
      <td data-label={t("admin.audit.colIp")}>{r.ip || "—"}</td>
    </tr>
  );
}

/** A member links to their row on the Users screen (a sibling screen: relative, so right on either host). */
function Target({ r }: { r: AuditRow }) {
  const { t } = useT();
  if (r.targetType === "user" && r.targetId) {
    return (
      <Link to={`../users?member=${encodeURIComponent(r.targetId)}`} relative="path">
        {r.targetName ? `${r.targetName} (#${r.targetId})` : t("admin.audit.memberNumber", { id: r.targetId })}
      </Link>
    );
  }
  return (
    <>
      {r.targetType}
      {r.targetId ? ` ${r.targetId}` : ""}
    </>
  );
}
