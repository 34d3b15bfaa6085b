import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, PasswordField, SubmitButton } from "~/components/forms";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { join } from "~/operations/accounts.server";
import { HIDDEN_PASSWORDS, RegisterSchema } from "~/schemas/account";
import { getActor, requireAnonymous, signedInHeaders } from "~/server/auth.server";
import { readDeviceCookie } from "~/server/sign-in-device.server";
import { readFormData } from "~/server/form-data.server";
import { getMailOrigin } from "~/server/host.server";
import { formFailure } from "~/server/operation-results.server";
import { pageMessages } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { metaI18n, T, useT } from "~/i18n/react";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.register.title") }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { constraint: getFormConstraint(RegisterSchema), ...(await pageMessages(request, ["account"])) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // A signed-in member cannot join again (a second account) by posting the form.
  await requireAnonymous(request);
  const submission = parseWithZod(await readFormData(request), { schema: RegisterSchema });
  if (submission.status !== "success") {
    return data(submission.reply({ hideFields: HIDDEN_PASSWORDS }), { status: 400 });
  }
  const result = await join(await getActor(request, context.clientIp), {
    ...submission.value,
    device: readDeviceCookie(request.headers.get("Cookie")),
    language: await requestLocale(request),
    mailOrigin: getMailOrigin(request),
  });
  if (!result.ok) return formFailure(submission.reply, result, { hideFields: HIDDEN_PASSWORDS, locale: await requestLocale(request) });
  return redirect("/dashboard", { headers: signedInHeaders(result.value) });
}

const registerSchema = () => import("~/schemas/account").then((m) => m.RegisterSchema);

export default function Register() {
  const { constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "register", lastResult, shouldRevalidate: "onInput", constraint, schema: registerSchema });
  const role = (fields.role.initialValue as string | undefined) ?? "client";
  const { t } = useT();
  const hidden = <span className="visually-hidden" />;
  return (
    <section className="container form-page" aria-labelledby="register-title">
      <h1 id="register-title">{t("account.register.title")}</h1>
      <p>{t("account.register.intro")}</p>
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field field={fields.name} label={t("account.field.fullName")} autoComplete="name" />
        <Field field={fields.email} label={t("account.field.email")} type="email" autoComplete="email" />
        <fieldset className="field">
          <legend>{t("account.register.roleLegend")}</legend>
          <div className="role-choice">
            <label>
              <input type="radio" name={fields.role.name} value="client" defaultChecked={role !== "freelancer"} />{" "}
              <T id="account.register.roleHire" components={{ 0: hidden }} />
            </label>
            <label>
              <input type="radio" name={fields.role.name} value="freelancer" defaultChecked={role === "freelancer"} />{" "}
              <T id="account.register.roleWork" components={{ 0: hidden }} />
            </label>
          </div>
          <ErrorList id={fields.role.errorId} errors={fields.role.errors} />
        </fieldset>
        <PasswordField field={fields.password} label={t("account.field.password")} autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label={t("account.field.confirmPassword")} autoComplete="new-password" />
        <SubmitButton pendingLabel={t("account.register.pending")}>{t("account.register.submit")}</SubmitButton>
      </Form>
      <p className="form-links">
        <T id="account.register.links" components={{ 0: <Link to="/login" />, 1: <Link to="/freelancer/register" /> }} />
      </p>
    </section>
  );
}
