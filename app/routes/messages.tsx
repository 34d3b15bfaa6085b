import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { ComingSoon, ADMIN_SECTIONS } from "~/components/coming-soon";
import { adminScreenLoader } from "~/utils/admin-area.server";
import { requireUser } from "~/utils/auth.server";
import { getSiteHost } from "~/utils/host.server";

export const meta: MetaFunction = () => [{ title: "Messages | Soko" }];

/** Main host: a member's messages (sign-in required). Admin host: message monitoring (admins only). */
export async function loader({ request }: LoaderFunctionArgs) {
  if (getSiteHost(request) === "admin") {
    await adminScreenLoader(request, "admin");
    return { site: "admin" as const };
  }
  await requireUser(request);
  return { site: "main" as const };
}

export default function Messages() {
  const { site } = useLoaderData<typeof loader>();
  if (site === "admin") return <ComingSoon title={ADMIN_SECTIONS.messages.title}>{ADMIN_SECTIONS.messages.text}</ComingSoon>;
  return (
    <ComingSoon title="Messages">
      Your conversations with clients and sellers will appear here, with live delivery and read marks. Messaging is being
      built next; until then, nothing you do here is lost.
    </ComingSoon>
  );
}
