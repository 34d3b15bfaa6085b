import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ErrorList, Field, PasswordField, SubmitButton } from "~/components/forms";
import { recordActivity } from "~/models/activity.server";
import { verifyCredentials } from "~/models/user.server";
import { LoginSchema } from "~/utils/account-schemas";
import { getUser, safeRedirect, startSession } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { getMainSiteUrl, getSiteHost } from "~/utils/host.server";
import { addressKey, consume, refund, resetLimit, type Limited } from "~/utils/rate-limit.server";
import { readFormData } from "~/utils/form-data.server";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Sign in | Soko" }];

const INVALID = "Incorrect email or password.";
const STATUS_MESSAGES = {
  suspended: "Your account is suspended. Contact support@soko.ug to find out why and how to restore it.",
  banned: "Your account has been banned for breaking Soko's terms. Contact support@soko.ug if you think this is a mistake.",
};

export async function loader({ request }: LoaderFunctionArgs) {
  const site = getSiteHost(request);
  const redirectTo = new URL(request.url).searchParams.get("redirectTo");
  if (await getUser(request)) throw redirect(safeRedirect(redirectTo, site === "admin" ? "/" : "/dashboard"));
  const reset = new URL(request.url).searchParams.get("reset") === "1";
  return { site, reset, mainSiteUrl: getMainSiteUrl(request), redirectTo: redirectTo ? safeRedirect(redirectTo, "") : "" };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const site = getSiteHost(request);
  const submission = parseWithZod(await readFormData(request), { schema: LoginSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  const { email, password, remember, redirectTo } = submission.value;
  const refused = (limited: Limited) =>
    data(submission.reply({ formErrors: [limited.message], hideFields: ["password"] }), {
      status: limited.status,
      headers: { "Retry-After": String(limited.retryAfter) },
    });

  // Every attempt is counted before the password is checked, so a burst of parallel guesses cannot all slip
  // in before the first of them is counted; an attempt with the right password is given back below.
  const address = addressKey(context.clientIp);
  const over = (await Promise.all([consume("signIn", [email]), consume("signInAddress", [address])])).filter((l) => l !== null);
  if (over.length) {
    // Redis away is a 503 whatever else; otherwise Retry-After is when the last of the limits lets them try again.
    return refused(over.find((l) => l.status === 503) ?? { ...over[0]!, retryAfter: Math.max(...over.map((l) => l.retryAfter)) });
  }
  const db = getDb();
  const result = await verifyCredentials(db, email, password);
  if (!result.ok && result.reason === "invalid") {
    return data(submission.reply({ formErrors: [INVALID], hideFields: ["password"] }), { status: 400 });
  }
  // The right password: this attempt was not a guess.
  await Promise.all([resetLimit("signIn", email), refund("signInAddress", address)]);
  if (!result.ok) {
    return data(submission.reply({ formErrors: [STATUS_MESSAGES[result.reason]], hideFields: ["password"] }), { status: 403 });
  }
  await recordActivity(db, result.userId, "signed_in", {});
  // The admin portal never keeps a session past the browser's: "remember me" is honoured on the main site only.
  const cookie = await startSession(request, result.userId, remember === "on" && site !== "admin");
  return redirect(safeRedirect(redirectTo, site === "admin" ? "/" : "/dashboard"), { headers: { "Set-Cookie": cookie } });
}

export default function Login() {
  const { site, reset, mainSiteUrl, redirectTo } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "login",
    lastResult,
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: LoginSchema }),
  });
  const admin = site === "admin";
  return (
    <section className="container form-page" aria-labelledby="login-title">
      <h1 id="login-title">{admin ? "Admin Login" : "Welcome back"}</h1>
      <p>{admin ? "Sign in with administrator credentials" : "Sign in to your account"}</p>
      {admin ? (
        <p className="notice" role="note">
          Administrator access only. Unauthorized access is prohibited.
        </p>
      ) : null}
      {reset && !lastResult ? (
        <p className="form-success" role="status">
          Your password is changed. Sign in with your new password.
        </p>
      ) : null}
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <input {...getInputProps(fields.redirectTo, { type: "hidden" })} key="redirectTo" defaultValue={redirectTo} />
        <Field field={fields.email} label="Email" type="email" autoComplete="email" />
        <PasswordField field={fields.password} label="Password" autoComplete="current-password" />
        {admin ? null : (
          <div className="checkbox">
            <input type="checkbox" id={fields.remember.id} name={fields.remember.name} defaultChecked={fields.remember.initialValue === "on"} />
            <label htmlFor={fields.remember.id}>Remember me for 30 days</label>
          </div>
        )}
        <SubmitButton pendingLabel="Signing in...">Sign in</SubmitButton>
      </Form>
      {admin ? (
        <p className="form-links">
          <a href={mainSiteUrl}>Back to the main site</a>
        </p>
      ) : (
        <p className="form-links">
          <Link to="/forgot-password">Forgot your password?</Link>
          <br />
          New to Soko? <Link to="/register">Join now</Link>
        </p>
      )}
    </section>
  );
}
