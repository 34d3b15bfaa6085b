import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useLoaderData } from "@remix-run/react";
import { ComingSoon } from "~/components/coming-soon";
import { notAllowed } from "~/utils/admin-area.server";
import { getPublicProfile } from "~/models/user.server";
import { requireUser } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";

export const meta: MetaFunction = () => [{ title: "Messages | Soko" }];

/** A member's messages (sign-in required). The admin host's /messages is message monitoring: app/admin/messages.tsx. */
export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  // Contact Seller leads here with ?to=<username>: name who the conversation will be with.
  const to = new URL(request.url).searchParams.get("to");
  const seller = to ? await getPublicProfile(getDb(), to.slice(0, 60)) : null;
  return { seller: seller ? { name: seller.name, username: seller.username } : null };
}

/** Nothing to send yet (chat is a later issue); a POST meets the same rules as a visit first. */
export async function action({ request }: ActionFunctionArgs) {
  await requireUser(request);
  throw notAllowed();
}

export default function Messages() {
  const data = useLoaderData<typeof loader>();
  return (
    <ComingSoon title="Messages">
      {data.seller ? (
        <>
          Your conversation with {data.seller.name} (@{data.seller.username}) will start here.{" "}
        </>
      ) : null}
      Your conversations with clients and sellers will appear here, with live delivery and read marks. Messaging is being
      built next; until then, nothing you do here is lost.
    </ComingSoon>
  );
}
