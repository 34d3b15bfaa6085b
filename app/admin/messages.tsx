import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

/** `/messages` on the admin host, `/admin/messages` on the main host (app/utils/site-routes.ts). */
export const meta: MetaFunction = () => [{ title: `${ADMIN_SECTIONS.messages.title} | Soko Admin` }, { name: "robots", content: "noindex" }];

export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request);
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminMessages() {
  return <ComingSoon title={ADMIN_SECTIONS.messages.title}>{ADMIN_SECTIONS.messages.text}</ComingSoon>;
}
