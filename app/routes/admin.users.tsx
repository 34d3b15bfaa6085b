import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

export const meta: MetaFunction = () => [{ title: `${ADMIN_SECTIONS.users.title} | Soko Admin` }, { name: "robots", content: "noindex" }];

export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request, "main");
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request, "main");

export default function AdminUsers() {
  return <ComingSoon title={ADMIN_SECTIONS.users.title}>{ADMIN_SECTIONS.users.text}</ComingSoon>;
}
