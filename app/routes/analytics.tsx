import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

export const meta: MetaFunction = () => [{ title: "Analytics | Soko Admin" }, { name: "robots", content: "noindex" }];

/** Admin host only: /analytics. */
export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request, "admin");
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request, "admin");

export default function AdminAnalytics() {
  return <ComingSoon title={ADMIN_SECTIONS.analytics.title}>{ADMIN_SECTIONS.analytics.text}</ComingSoon>;
}
