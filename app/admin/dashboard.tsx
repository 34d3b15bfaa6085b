import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

/** The admin portal's entry: `/` on the admin host, `/admin` on the main host (app/utils/site-routes.ts). */
export const meta: MetaFunction = () => [{ title: `${ADMIN_SECTIONS.dashboard.title} | Soko Admin` }, { name: "robots", content: "noindex" }];

export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request);
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminDashboard() {
  // Relative links: /users on the admin host, /admin/users on the main host.
  return (
    <ComingSoon title={ADMIN_SECTIONS.dashboard.title}>
      {ADMIN_SECTIONS.dashboard.text} Meanwhile: <Link to="users">users</Link>, <Link to="messages">messages</Link>,{" "}
      <Link to="analytics">analytics</Link>, <Link to="disputes">disputes</Link>.
    </ComingSoon>
  );
}
