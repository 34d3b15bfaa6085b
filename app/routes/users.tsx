import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

export const meta: MetaFunction = () => [{ title: "User management | Soko Admin" }, { name: "robots", content: "noindex" }];

/** Admin host only: /users is user management. */
export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request, "admin");
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request, "admin");

export default function AdminUsers() {
  return <ComingSoon title={ADMIN_SECTIONS.users.title}>{ADMIN_SECTIONS.users.text}</ComingSoon>;
}
