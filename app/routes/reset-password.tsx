import { getFormProps, getInputProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, PasswordField, SubmitButton } from "~/components/forms";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { isResetTokenValid } from "~/models/password-reset.server";
import { completePasswordReset } from "~/operations/passwords.server";
import { HIDDEN_PASSWORDS, ResetPasswordSchema } from "~/schemas/account";
import { RESET_LINK_EXPIRED } from "~/content/refusal-words";
import { getActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { formFailure } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";
import { pageMessages } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { metaI18n, useT } from "~/i18n/react";

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.reset.title") }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const valid = await isResetTokenValid(getDb(), token);
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return data(
    { token: valid ? token : "", valid, constraint: getFormConstraint(ResetPasswordSchema), ...(await pageMessages(request, ["account"])) },
    { status: valid ? 200 : 410 },
  );
}

export async function action({ request, context }: ActionFunctionArgs) {
  const submission = parseWithZod(await readFormData(request), { schema: ResetPasswordSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: HIDDEN_PASSWORDS }), { status: 400 });
  const result = await completePasswordReset(await getActor(request, context.clientIp), submission.value);
  if (!result.ok) {
    const locale = await requestLocale(request);
    // A dead link is gone for good: 410, as the page itself answers for it.
    if (result.error === "conflict") return data(submission.reply({ formErrors: [messageOf(result, locale)], hideFields: HIDDEN_PASSWORDS }), { status: 410 });
    return formFailure(submission.reply, result, { hideFields: HIDDEN_PASSWORDS, locale });
  }
  return redirect("/login?reset=1");
}

const resetPasswordSchema = () => import("~/schemas/account").then((m) => m.ResetPasswordSchema);

export default function ResetPassword() {
  const { token, valid, constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "reset-password", lastResult, constraint, schema: resetPasswordSchema });
  const { t } = useT();
  if (!valid) {
    return (
      <section className="container form-page" aria-labelledby="reset-title">
        <h1 id="reset-title">{t("account.reset.expiredHeading")}</h1>
        <p>{t(RESET_LINK_EXPIRED)}</p>
        <p>
          <Link to="/forgot-password" className="button">
            {t("account.reset.newLink")}
          </Link>
        </p>
      </section>
    );
  }
  return (
    <section className="container form-page" aria-labelledby="reset-title">
      <h1 id="reset-title">{t("account.reset.heading")}</h1>
      <p>{t("account.reset.intro")}</p>
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <input {...getInputProps(fields.token, { type: "hidden" })} key="token" defaultValue={token} />
        <PasswordField field={fields.password} label={t("account.field.newPassword")} autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label={t("account.field.confirmNewPassword")} autoComplete="new-password" />
        <SubmitButton pendingLabel={t("account.button.saving")}>{t("account.reset.submit")}</SubmitButton>
      </Form>
    </section>
  );
}
