import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

export const meta: MetaFunction = () => [{ title: "Admin dashboard | Soko" }, { name: "robots", content: "noindex" }];

export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request, "main");
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request, "main");

export default function AdminIndex() {
  return (
    <ComingSoon title={ADMIN_SECTIONS.dashboard.title}>
      {ADMIN_SECTIONS.dashboard.text} Meanwhile: <Link to="/admin/users">users</Link>, <Link to="/admin/messages">messages</Link>,{" "}
      <Link to="/admin/analytics">analytics</Link>.
    </ComingSoon>
  );
}
