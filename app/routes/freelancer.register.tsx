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
import { formFailure } from "~/server/operation-results.server";

export { actionHeaders as headers } from "~/utils/headers";

export const meta: MetaFunction = () => [{ title: "Become a Seller | Soko" }];

export async function loader({ request }: LoaderFunctionArgs) {
  // "Become a seller" and "Start selling" links lead a signed-in member to where selling starts: /gig/create
  // offers a client to become a seller and a seller the gig editor. An admin does not sell.
  const user = await getUser(request);
  if (user) throw redirect(user.role === "admin" ? "/dashboard" : "/gig/create");
  // The browser's checks; the schema itself loads once the form is used (app/hooks/use-schema-form.ts).
  return { constraint: getFormConstraint(FreelancerRegisterSchema) };
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
  });
  if (!result.ok) return formFailure(submission.reply, result, { hideFields: HIDDEN_PASSWORDS });
  return redirect("/dashboard", { headers: signedInHeaders(result.value) });
}

const freelancerRegisterSchema = () => import("~/schemas/account").then((m) => m.FreelancerRegisterSchema);

export default function FreelancerRegister() {
  const { constraint } = useLoaderData<typeof loader>();
  const lastResult = useActionData<typeof action>();
  const [form, fields] = useSchemaForm({ id: "freelancer-register", lastResult, shouldRevalidate: "onInput", constraint, schema: freelancerRegisterSchema });
  return (
    <section className="container form-page" aria-labelledby="seller-title">
      <h1 id="seller-title">Become a Seller</h1>
      <p>Offer your skills to clients across Uganda. Joining is free; Soko keeps 20% of each completed order.</p>
      <Form method="post" className="form-card" {...getFormProps(form)}>
        <ErrorList id={form.errorId} errors={form.errors} />
        <Field field={fields.name} label="Full name" autoComplete="name" />
        <Field field={fields.email} label="Email" type="email" autoComplete="email" />
        <PasswordField field={fields.password} label="Password" autoComplete="new-password" />
        <PasswordField field={fields.confirmPassword} label="Confirm password" autoComplete="new-password" />
        <Field field={fields.skills} label="Skills" hint="Separate skills with commas, e.g. Logo design, Branding" />
        <Field field={fields.yearsExperience} label="Years of experience" type="number" inputProps={{ min: 0, max: 60 }} />
        <Field field={fields.portfolioUrl} label="Portfolio URL (optional)" type="url" hint="A link to your work, starting with https://" />
        <TextAreaField field={fields.description} label="Professional description" />
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
            I agree to the <Link to="/terms">Terms of Service</Link> and the <Link to="/privacy">Privacy Policy</Link>.
          </label>
        </div>
        <ErrorList id={fields.terms.errorId} errors={fields.terms.errors} />
        <SubmitButton pendingLabel="Creating your account...">Join as a seller</SubmitButton>
      </Form>
      <p className="form-links">
        Already have an account? <Link to="/login">Sign in</Link>. Looking to hire? <Link to="/register">Join as a client</Link>.
      </p>
    </section>
  );
}
