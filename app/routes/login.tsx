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
import { pageMessages } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { isLocale, LANGUAGE_COOKIE } from "~/i18n/locales";
import { metaI18n, T, useT } from "~/i18n/react";
import { serializeCookie } from "~/server/cookies.server";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.login.title") }];
};

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
    ...(await pageMessages(request, ["account"])),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const site = getSiteHost(request);
  const submission = parseWithZod(await readFormData(request), { schema: LoginSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: ["password"] }), { status: 400 });
  const device = readDeviceCookie(request.headers.get("Cookie"));
  const result = await signIn(await getActor(request, context.clientIp), { ...submission.value, site, device });
  if (!result.ok) {
    const locale = await requestLocale(request);
    // A suspended or banned member is told why beside the form (403), not on an error page.
    if (result.error === "forbidden") return data(submission.reply({ formErrors: [messageOf(result, locale)], hideFields: ["password"] }), { status: 403 });
    return formFailure(submission.reply, result, { hideFields: ["password"], locale });
  }
  const headers = signedInHeaders(result.value);
  // The member's saved language stays with the browser after they sign out (as the switcher's does), once the
  // sign-in's result carries it.
  const language = "language" in result.value ? result.value.language : null;
  if (isLocale(language)) headers.append("Set-Cookie", serializeCookie(LANGUAGE_COOKIE, language, { maxAge: 31_536_000 }));
  return redirect(safeRedirect(submission.value.redirectTo, site === "admin" ? "/" : "/dashboard"), { headers });
}

const loginSchema = () => import("~/schemas/account").then((m) => m.LoginSchema);

export default function Login() {
  const { site, reset, mainSiteUrl, redirectTo, constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "login", lastResult, constraint, schema: loginSchema });
  const admin = site === "admin";
  const { t } = useT();
  return (
    <section className="container form-page" aria-labelledby="login-title">
      <h1 id="login-title">{admin ? t("account.login.adminHeading") : t("account.login.heading")}</h1>
      <p>{admin ? t("account.login.adminIntro") : t("account.login.intro")}</p>
      {admin ? (
        <p className="notice" role="note">
          {t("account.login.adminNotice")}
        </p>
      ) : null}
      {reset && !lastResult ? (
        <p className="form-success" role="status">
          {t("account.login.resetDone")}
        </p>
      ) : null}
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <input {...getInputProps(fields.redirectTo, { type: "hidden" })} key="redirectTo" defaultValue={redirectTo} />
        <Field field={fields.email} label={t("account.field.email")} type="email" autoComplete="email" />
        <PasswordField field={fields.password} label={t("account.field.password")} autoComplete="current-password" />
        {admin ? null : (
          <div className="checkbox">
            <input type="checkbox" id={fields.remember.id} name={fields.remember.name} defaultChecked={fields.remember.initialValue === "on"} />
            <label htmlFor={fields.remember.id}>{t("account.login.remember")}</label>
          </div>
        )}
        <SubmitButton pendingLabel={t("account.login.pending")}>{t("account.login.submit")}</SubmitButton>
      </Form>
      {admin ? (
        <p className="form-links">
          <a href={mainSiteUrl}>{t("account.login.backToMain")}</a>
        </p>
      ) : (
        <p className="form-links">
          <Link to="/forgot-password">{t("account.login.forgot")}</Link>
          <br />
          <T id="account.login.join" components={{ 0: <Link to="/register" /> }} />
        </p>
      )}
    </section>
  );
}
