import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs } from "@remix-run/node";
import { signOut } from "~/operations/accounts.server";
import { clearSessionCookie, getActor } from "~/server/auth.server";
import { getSiteHost } from "~/server/host.server";

/** Signing out is a POST (a link or prefetch must never end a session); GET just goes home. */
export async function loader(_args: LoaderFunctionArgs) {
  return redirect("/");
}

export async function action({ request, context }: ActionFunctionArgs) {
  await signOut(await getActor(request, context.clientIp));
  return redirect(getSiteHost(request) === "admin" ? "/login" : "/", { headers: { "Set-Cookie": clearSessionCookie() } });
}
