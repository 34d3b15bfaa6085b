import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenAction, adminScreenLoader } from "~/utils/admin-area.server";

/** `/pipeline` on the admin host, `/admin/pipeline` on the main host (app/utils/site-routes.ts). */
export const meta: MetaFunction = () => [{ title: `${ADMIN_SECTIONS.pipeline.title} | Soko Admin` }, { name: "robots", content: "noindex" }];

export const loader = ({ request }: LoaderFunctionArgs) => adminScreenLoader(request);
export const action = ({ request }: ActionFunctionArgs) => adminScreenAction(request);

export default function AdminPipeline() {
  return <ComingSoon title={ADMIN_SECTIONS.pipeline.title}>{ADMIN_SECTIONS.pipeline.text}</ComingSoon>;
}
