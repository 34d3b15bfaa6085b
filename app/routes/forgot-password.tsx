import { getFormProps, useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, type ActionFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, SubmitButton } from "~/components/forms";
import { getFormConstraint } from "~/schemas/form-constraint";
import { requestPasswordReset } from "~/operations/passwords.server";
import { ForgotPasswordSchema } from "~/schemas/account";
import { getActor } from "~/server/auth.server";
import { getMailOrigin } from "~/server/host.server";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Reset your password | Soko" }];

export async function loader() {
  return null;
}

export async function action({ request, context }: ActionFunctionArgs) {
  const submission = parseWithZod(await readFormData(request), { schema: ForgotPasswordSchema });
  if (submission.status !== "success") return data({ result: submission.reply(), sent: false }, { status: 400 });
  const result = await requestPasswordReset(await getActor(request, context.clientIp), { ...submission.value, origin: getMailOrigin(request) });
  if (!result.ok) {
    const message = result.error === "invalid" ? "" : messageOf(result);
    const headers = result.error === "limited" ? { "Retry-After": String(result.retryAfter) } : undefined;
    return data({ result: submission.reply({ formErrors: [message] }), sent: false }, { status: failureStatus(result), headers });
  }
  // The same answer whether or not the email has an account.
  return { result: submission.reply({ resetForm: true }), sent: true };
}

export default function ForgotPassword() {
  const actionData = useActionData<typeof action>();
  const [form, fields] = useForm({
    id: "forgot-password",
    lastResult: actionData?.result,
    shouldValidate: "onSubmit",
    constraint: getFormConstraint(ForgotPasswordSchema),
    defaultNoValidate: false,
    onValidate: ({ formData }) => parseWithZod(formData, { schema: ForgotPasswordSchema }),
  });
  return (
    <section className="container form-page" aria-labelledby="forgot-title">
      <h1 id="forgot-title">Reset your password</h1>
      {actionData?.sent ? (
        <p className="form-success" role="status">
          If an account uses that email, we have sent it a link to choose a new password. The link works once, for one hour.
        </p>
      ) : (
        <p>Enter the email you joined with and we will send you a link to choose a new password.</p>
      )}
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field field={fields.email} label="Email" type="email" autoComplete="email" />
        <SubmitButton pendingLabel="Sending...">Send reset link</SubmitButton>
      </Form>
      <p className="form-links">
        Remembered it? <Link to="/login">Sign in</Link>
      </p>
    </section>
  );
}
