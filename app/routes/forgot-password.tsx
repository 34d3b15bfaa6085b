import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { requestPasswordReset } from "~/operations/passwords.server";
import { ForgotPasswordSchema } from "~/schemas/account";
import { getActor } from "~/server/auth.server";
import { getMailOrigin } from "~/server/host.server";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";
import { pageMessages } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { metaI18n, T, useT } from "~/i18n/react";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("account.forgot.title") }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { constraint: getFormConstraint(ForgotPasswordSchema), ...(await pageMessages(request, ["account"])) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const submission = parseWithZod(await readFormData(request), { schema: ForgotPasswordSchema });
  if (submission.status !== "success") return data({ result: submission.reply(), sent: false }, { status: 400 });
  const result = await requestPasswordReset(await getActor(request, context.clientIp), { ...submission.value, origin: getMailOrigin(request) });
  if (!result.ok) {
    const message = result.error === "invalid" ? "" : messageOf(result, await requestLocale(request));
    const headers = result.error === "limited" ? { "Retry-After": String(result.retryAfter) } : undefined;
    return data({ result: submission.reply({ formErrors: [message] }), sent: false }, { status: failureStatus(result), headers });
  }
  // The same answer whether or not the email has an account.
  return { result: submission.reply({ resetForm: true }), sent: true };
}

const forgotPasswordSchema = () => import("~/schemas/account").then((m) => m.ForgotPasswordSchema);

export default function ForgotPassword() {
  const { constraint } = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "forgot-password", lastResult: actionData?.result, constraint, schema: forgotPasswordSchema });
  const { t } = useT();
  return (
    <section className="container form-page" aria-labelledby="forgot-title">
      <h1 id="forgot-title">{t("account.forgot.heading")}</h1>
      {actionData?.sent ? (
        <p className="form-success" role="status">
          {t("account.forgot.sent")}
        </p>
      ) : (
        <p>{t("account.forgot.intro")}</p>
      )}
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field field={fields.email} label={t("account.field.email")} type="email" autoComplete="email" />
        <SubmitButton pendingLabel={t("account.forgot.pending")}>{t("account.forgot.submit")}</SubmitButton>
      </Form>
      <p className="form-links">
        <T id="account.forgot.remembered" components={{ 0: <Link to="/login" /> }} />
      </p>
    </section>
  );
}
