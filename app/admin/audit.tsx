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

/**
 * `/audit` on the admin host, `/admin/audit` on the main host (app/utils/site-routes.ts): admin_audit_log,
 * newest first, paged, filtered by action and by admin. Each row: when, which admin, what, to whom (a link to
 * the member on the Users screen where the target is one), the details, and the address it came from. The
 * log is read-only here as everywhere (the table refuses updates and deletes).
 */
export const meta: MetaFunction = () => [{ title: "Audit log | Soko Admin" }, { name: "robots", content: "noindex" }];
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
    },
    { status: parsed.success ? 200 : 400 },
  );
}

/** Nothing to post: the log is only read. */
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

/** The actions in plain words; one not listed reads as itself ("rates.set"). */
const ACTION_WORDS: Record<string, string> = {
  "user.suspend": "Suspended a member",
  "user.ban": "Banned a member",
  "user.activate": "Activated a member",
  "user.delete": "Deleted a member",
  "conversation.read": "Read a conversation",
  "conversation.flag": "Flagged a conversation",
  "conversation.unflag": "Unflagged a conversation",
  "conversation.delete": "Deleted a conversation",
  "analytics.export": "Exported analytics",
  "exchange_rate.set": "Set the exchange rate",
  "dispute.release": "Resolved a dispute: released to the seller",
  "dispute.refund": "Resolved a dispute: refunded the buyer",
  "dispute.split": "Resolved a dispute: split the price",
  "pipeline.replay": "Replayed failed events",
  "category.add": "Added a category",
  "category.rename": "Renamed a category",
  "category.move": "Moved a category",
  "category.hide": "Hid a category",
  "category.show": "Showed a category again",
  "category.delete": "Deleted a category",
};

export default function AdminAudit() {
  const { rows, total, query, choices, queryErrors, pages } = useLoaderData<typeof loader>();
  const [searchParams] = useSearchParams();
  const back = new URLSearchParams();
  for (const key of ["action", "admin"]) if (searchParams.get(key)) back.set(key, searchParams.get(key)!);
  const submit = useSubmit();
  const navigation = useNavigation();
  const loading = navigation.state === "loading" && navigation.formMethod?.toLowerCase() === "get";
  return (
    <section className="container admin-screen" aria-labelledby="audit-title">
      <h1 id="audit-title">Audit log</h1>
      <p className="section-lead">Every admin action, and every admin reading of members' conversations and exports: newest first.</p>
      <Form
        method="get"
        className="admin-filters"
        aria-label="Filter the audit log"
        onChange={(e) => submit(e.currentTarget, { replace: true, preventScrollReset: true })}
      >
        <div className="field">
          <label htmlFor="audit-action">Action</label>
          <select id="audit-action" name="action" defaultValue={query.action ?? ""}>
            <option value="">All actions</option>
            {choices.actions.map((a) => (
              <option key={a} value={a}>
                {ACTION_WORDS[a] ?? a} ({a})
              </option>
            ))}
          </select>
          <ErrorList errors={queryErrors.action} />
        </div>
        <div className="field">
          <label htmlFor="audit-admin">Admin</label>
          <select id="audit-admin" name="admin" defaultValue={query.admin ? String(query.admin) : ""}>
            <option value="">All admins</option>
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
          {loading ? "Filtering…" : "Filter"}
        </button>
      </Form>
      <p role="status" className="admin-count">
        {total === 0 ? "" : total === 1 ? "1 entry" : `${total.toLocaleString("en-US")} entries`}
      </p>
      {rows.length === 0 ? (
        <p className="admin-empty">No audit entries found</p>
      ) : (
        <div className="admin-table-wrap">
          <table className="admin-table stack-table">
            <caption className="visually-hidden">Admin actions, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Admin</th>
                <th scope="col">Action</th>
                <th scope="col">Target</th>
                <th scope="col">Details</th>
                <th scope="col">IP</th>
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
      <AdminPager page={query.page} pages={pages} params={back} label="Pages of the audit log" />
    </section>
  );
}

function AuditEntry({ r }: { r: AuditRow }) {
  const { dateTime } = usePreferences();
  const details = Object.entries(r.details);
  return (
    <tr>
      <td data-label="When">
        <time dateTime={new Date(r.at).toISOString()}>{dateTime(r.at)}</time>
      </td>
      <td data-label="Admin">{r.adminName}</td>
      <td data-label="Action">
        {ACTION_WORDS[r.action] ?? r.action}
        <br />
        <code>{r.action}</code>
      </td>
      <td data-label="Target">
        <Target r={r} />
      </td>
      <td className="audit-details" data-label="Details">
        {details.length ? details.map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`).join("\n") : "—"}
      </td>
      <td data-label="IP">{r.ip || "—"}</td>
    </tr>
  );
}

/** A member links to their row on the Users screen (a sibling screen: relative, so right on either host). */
function Target({ r }: { r: AuditRow }) {
  if (r.targetType === "user" && r.targetId) {
    return (
      <Link to={`../users?member=${encodeURIComponent(r.targetId)}`} relative="path">
        {r.targetName ? `${r.targetName} (#${r.targetId})` : `Member #${r.targetId}`}
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
