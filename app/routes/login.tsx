import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, PasswordField, SubmitButton } from "~/components/forms";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { signIn } from "~/operations/accounts.server";
import { LoginSchema } from "~/schemas/account";
import { getActor, getUser, safeRedirect, signedInHeaders } from "~/server/auth.server";
import { readDeviceCookie } from "~/server/sign-in-device.server";
import { getMainSiteUrl, getSiteHost } from "~/server/host.server";
import { readFormData } from "~/server/form-data.server";
import { formFailure } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Sign in | Soko" }];

export async function loader({ request }: LoaderFunctionArgs) {
  const site = getSiteHost(request);
  const redirectTo = new URL(request.url).searchParams.get("redirectTo");
  if (await getUser(request)) throw redirect(safeRedirect(redirectTo, site === "admin" ? "/" : "/dashboard"));
  const reset = new URL(request.url).searchParams.get("reset") === "1";
  return {
    site,
    reset,
    mainSiteUrl: getMainSiteUrl(request),
    redirectTo: redirectTo ? safeRedirect(redirectTo, "") : "",
    // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
    constraint: getFormConstraint(LoginSchema),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const site = getSiteHost(request);
  const submission = parseWithZod(await readFormData(request), { schema: LoginSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  const device = readDeviceCookie(request.headers.get("Cookie"));
  const result = await signIn(await getActor(request, context.clientIp), { ...submission.value, site, device });
  if (!result.ok) {
    // A suspended or banned member is told why beside the form (403), not on an error page.
    if (result.error === "forbidden") return data(submission.reply({ formErrors: [messageOf(result)], hideFields: ["password"] }), { status: 403 });
    return formFailure(submission.reply, result, { hideFields: ["password"] });
  }
  return redirect(safeRedirect(submission.value.redirectTo, site === "admin" ? "/" : "/dashboard"), { headers: signedInHeaders(result.value) });
}

const loginSchema = () => import("~/schemas/account").then((m) => m.LoginSchema);

export default function Login() {
  const { site, reset, mainSiteUrl, redirectTo, constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "login", lastResult, constraint, schema: loginSchema });
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
