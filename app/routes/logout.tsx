import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { endSession } from "~/utils/auth.server";
import { getSiteHost } from "~/utils/host.server";

/** Signing out is a POST (a link or prefetch must never end a session); GET just goes home. */
export async function loader(_args: LoaderFunctionArgs) {
  return redirect("/");
}

export async function action({ request }: ActionFunctionArgs) {
  const cookie = await endSession(request);
  return redirect(getSiteHost(request) === "admin" ? "/login" : "/", { headers: { "Set-Cookie": cookie } });
}
