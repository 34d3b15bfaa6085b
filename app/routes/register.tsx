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
import { formFailure } from "~/server/operation-results.server";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Join Soko" }];

export async function loader({ request }: LoaderFunctionArgs) {
  await requireAnonymous(request);
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { constraint: getFormConstraint(RegisterSchema) };
}

export async function action({ request, context }: ActionFunctionArgs) {
  // A signed-in member cannot join again (a second account) by posting the form.
  await requireAnonymous(request);
  const submission = parseWithZod(await readFormData(request), { schema: RegisterSchema });
  if (submission.status !== "success") {
    return data(submission.reply({ hideFields: HIDDEN_PASSWORDS }), { status: 400 });
  }
  const result = await join(await getActor(request, context.clientIp), { ...submission.value, device: readDeviceCookie(request.headers.get("Cookie")) });
  if (!result.ok) return formFailure(submission.reply, result, { hideFields: HIDDEN_PASSWORDS });
  return redirect("/dashboard", { headers: signedInHeaders(result.value) });
}

const registerSchema = () => import("~/schemas/account").then((m) => m.RegisterSchema);

export default function Register() {
  const { constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "register", lastResult, shouldRevalidate: "onInput", constraint, schema: registerSchema });
  const role = (fields.role.initialValue as string | undefined) ?? "client";
  return (
    <section className="container form-page" aria-labelledby="register-title">
      <h1 id="register-title">Join Soko</h1>
      <p>Hire Ugandan freelancers, or offer your own services.</p>
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field field={fields.name} label="Full name" autoComplete="name" />
        <Field field={fields.email} label="Email" type="email" autoComplete="email" />
        <fieldset className="field">
          <legend>I want to</legend>
          <div className="role-choice">
            <label>
              <input type="radio" name={fields.role.name} value="client" defaultChecked={role !== "freelancer"} /> Hire
              <span className="visually-hidden"> (client)</span>
            </label>
            <label>
              <input type="radio" name={fields.role.name} value="freelancer" defaultChecked={role === "freelancer"} /> Work
              <span className="visually-hidden"> (freelancer)</span>
            </label>
          </div>
          <ErrorList id={fields.role.errorId} errors={fields.role.errors} />
        </fieldset>
        <PasswordField field={fields.password} label="Password" autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label="Confirm password" autoComplete="new-password" />
        <SubmitButton pendingLabel="Creating your account...">Create account</SubmitButton>
      </Form>
      <p className="form-links">
        Already have an account? <Link to="/login">Sign in</Link>. Want to sell your skills? <Link to="/freelancer/register">Become a seller</Link>.
      </p>
    </section>
  );
}
