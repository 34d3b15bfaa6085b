import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { ComingSoon } from "~/components/coming-soon";
import { requireUser } from "~/utils/auth.server";

export const meta: MetaFunction = () => [{ title: "Orders | Soko" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireUser(request);
  return null;
}

export default function Orders() {
  return (
    <ComingSoon title="Orders">
      Your orders will appear here under Active, Completed and Cancelled, with escrow payment, delivery and reviews. Ordering
      is being built next.
    </ComingSoon>
  );
}
