import { getFormProps, getInputProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { ErrorList, PasswordField, SubmitButton } from "~/components/forms";
import { completePasswordReset, isResetTokenValid } from "~/models/password-reset.server";
import { ResetPasswordSchema } from "~/utils/account-schemas";
import { getDb } from "~/utils/db.server";
import { HIDDEN_PASSWORDS } from "~/utils/join.server";
import { readFormData } from "~/utils/form-data.server";

export const meta: MetaFunction = () => [{ title: "Choose a new password | Soko" }];

const EXPIRED = "This reset link has expired or was already used. Ask for a new one.";

export async function loader({ request }: LoaderFunctionArgs) {
  const token = new URL(request.url).searchParams.get("token") ?? "";
  const valid = await isResetTokenValid(getDb(), token);
  return data({ token: valid ? token : "", valid }, { status: valid ? 200 : 410 });
}

export async function action({ request }: ActionFunctionArgs) {
  const submission = parseWithZod(await readFormData(request), { schema: ResetPasswordSchema });
  if (submission.status !== "success") return data(submission.reply({ hideFields: HIDDEN_PASSWORDS }), { status: 400 });
  const done = await completePasswordReset(getDb(), submission.value.token, submission.value.password);
  if (!done) return data(submission.reply({ formErrors: [EXPIRED], hideFields: HIDDEN_PASSWORDS }), { status: 410 });
  return redirect("/login?reset=1");
}

export default function ResetPassword() {
  const { token, valid } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "reset-password",
    lastResult,
    shouldValidate: "onSubmit",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ResetPasswordSchema }),
  });
  if (!valid) {
    return (
      <section className="container form-page" aria-labelledby="reset-title">
        <h1 id="reset-title">Link expired</h1>
        <p>{EXPIRED}</p>
        <p>
          <Link to="/forgot-password" className="button">
            Send a new link
          </Link>
        </p>
      </section>
    );
  }
  return (
    <section className="container form-page" aria-labelledby="reset-title">
      <h1 id="reset-title">Choose a new password</h1>
      <p>Choosing a new password signs you out everywhere else.</p>
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <input {...getInputProps(fields.token, { type: "hidden" })} key="token" defaultValue={token} />
        <PasswordField field={fields.password} label="New password" autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label="Confirm new password" autoComplete="new-password" />
        <SubmitButton pendingLabel="Saving...">Save new password</SubmitButton>
      </Form>
    </section>
  );
}
