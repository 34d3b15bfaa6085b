/** Joining, shared by /register and /freelancer/register: limit, create, sign in, go to the dashboard. */
import type { SubmissionResult } from "@conform-to/react";
import { data, redirect } from "@remix-run/node";
import { recordServerConversion } from "~/analytics/conversions.server";
import { createUser, EmailTakenError, type NewUser } from "~/models/user.server";
import { startSession } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { addressKey, consume } from "~/utils/rate-limit.server";

export const HIDDEN_PASSWORDS = ["password", "confirmPassword"];

type Reply = (options?: { formErrors?: string[]; fieldErrors?: Record<string, string[]>; hideFields?: string[] }) => SubmissionResult<string[]>;

export async function join(request: Request, clientIp: string, user: NewUser, reply: Reply) {
  const limited = await consume("join", [`ip:${addressKey(clientIp)}`]);
  if (limited) {
    return data(reply({ formErrors: [limited.message], hideFields: HIDDEN_PASSWORDS }), {
      status: limited.status,
      headers: { "Retry-After": String(limited.retryAfter) },
    });
  }
  try {
    const { id } = await createUser(getDb(), user);
    const cookie = await startSession(request, id, false);
    // The signup as a business fact, recorded by the server once the member exists (never by the browser).
    await recordServerConversion({ request, ip: clientIp, type: "signup", userId: id, subjectId: id, metadata: { role: user.role } });
    return redirect("/dashboard", { headers: { "Set-Cookie": cookie } });
  } catch (error) {
    if (!(error instanceof EmailTakenError)) throw error;
    return data(reply({ fieldErrors: { email: [error.message] }, hideFields: HIDDEN_PASSWORDS }), { status: 400 });
  }
}
