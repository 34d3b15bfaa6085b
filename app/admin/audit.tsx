import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

/** `/audit` on the admin host, `/admin/audit` on the main host (app/utils/site-routes.ts). */
export const meta: MetaFunction = () => [{ title: `${ADMIN_SECTIONS.audit.title} | Soko Admin` }, { name: "robots", content: "noindex" }];

export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request);
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminAudit() {
  return <ComingSoon title={ADMIN_SECTIONS.audit.title}>{ADMIN_SECTIONS.audit.text}</ComingSoon>;
}
