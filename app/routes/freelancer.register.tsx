import { getFormProps } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, PasswordField, SubmitButton, TextAreaField } from "~/components/forms";
import { getFormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { join } from "~/operations/accounts.server";
import { FreelancerRegisterSchema, HIDDEN_PASSWORDS } from "~/schemas/account";
import { getActor, getUser, requireAnonymous, signedInHeaders } from "~/server/auth.server";
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
  return [{ title: _("account.seller.title") }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  // "Become a seller" and "Start selling" links lead a signed-in member to where selling starts: /gig/create
  // offers a client to become a seller and a seller the gig editor. An admin does not sell.
  const user = await getUser(request);
  if (user) throw redirect(user.role === "admin" ? "/dashboard" : "/gig/create");
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { constraint: getFormConstraint(FreelancerRegisterSchema), ...(await pageMessages(request, ["account"])) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // A signed-in member cannot join again (a second account) by posting the form.
  await requireAnonymous(request);
  const submission = parseWithZod(await readFormData(request), { schema: FreelancerRegisterSchema });
  if (submission.status !== "success") {
    return data(submission.reply({ hideFields: HIDDEN_PASSWORDS }), { status: 400 });
  }
  const result = await join(await getActor(request, context.clientIp), {
    ...submission.value,
    role: "freelancer",
    device: readDeviceCookie(request.headers.get("Cookie")),
    language: await requestLocale(request),
    mailOrigin: getMailOrigin(request),
  });
  if (!result.ok) return formFailure(submission.reply, result, { hideFields: HIDDEN_PASSWORDS, locale: await requestLocale(request) });
  return redirect("/dashboard", { headers: signedInHeaders(result.value) });
}

const freelancerRegisterSchema = () => import("~/schemas/account").then((m) => m.FreelancerRegisterSchema);

export default function FreelancerRegister() {
  const { constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "freelancer-register", lastResult, shouldRevalidate: "onInput", constraint, schema: freelancerRegisterSchema });
  const { t } = useT();
  return (
    <section className="container form-page" aria-labelledby="seller-title">
      <h1 id="seller-title">{t("account.seller.heading")}</h1>
      <p>{t("account.seller.intro")}</p>
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field field={fields.name} label={t("account.field.fullName")} autoComplete="name" />
        <Field field={fields.email} label={t("account.field.email")} type="email" autoComplete="email" />
        <PasswordField field={fields.password} label={t("account.field.password")} autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label={t("account.field.confirmPassword")} autoComplete="new-password" />
        <Field field={fields.skills} label={t("account.field.skills")} hint={t("account.seller.skillsHint")} />
        <Field field={fields.yearsExperience} label={t("account.seller.years")} type="number" inputProps={{ min: 0, max: 60 }} />
        <Field field={fields.portfolioUrl} label={t("account.seller.portfolio")} type="url" hint={t("account.seller.portfolioHint")} />
        <TextAreaField field={fields.description} label={t("account.seller.description")} />
        <div className="checkbox">
          <input
            type="checkbox"
            id={fields.terms.id}
            name={fields.terms.name}
            required={fields.terms.required}
            aria-invalid={fields.terms.errors ? true : undefined}
            aria-describedby={fields.terms.errors ? fields.terms.errorId : undefined}
          />
          <label htmlFor={fields.terms.id}>
            <T id="account.seller.terms" components={{ 0: <Link to="/terms" />, 1: <Link to="/privacy" /> }} />
          </label>
        </div>
        <ErrorList id={fields.terms.errorId} errors={fields.terms.errors} />
        <SubmitButton pendingLabel={t("account.register.pending")}>{t("account.seller.submit")}</SubmitButton>
      </Form>
      <p className="form-links">
        <T id="account.seller.links" components={{ 0: <Link to="/login" />, 1: <Link to="/register" /> }} />
      </p>
    </section>
  );
}
