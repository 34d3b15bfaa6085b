import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { redirect, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { SubmitButton } from "~/components/forms";
import { GigForm } from "~/components/gig-form";
import { VerifyEmailNotice } from "~/components/verify-email-notice";
import { isEmailVerified } from "~/models/email-verification.server";
import { listCategoryOptions } from "~/models/category.server";
import { becomeSeller } from "~/operations/accounts.server";
import { getActor, requireMemberActor, requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { actionHeaders } from "~/utils/headers";
import { GIG_FORM_CONSTRAINT, handleGigForm } from "~/server/gig-form.server";
import { emptyGigForm } from "~/schemas/gig";
import { readFormData } from "~/server/form-data.server";
import { failureStatus } from "~/server/operation-results.server";
import { messageOf } from "~/content/operation-messages";
import gigFormStylesUrl from "~/styles/gig-form.css?url";
import { requestLocale } from "~/i18n/locale.server";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: gigFormStylesUrl }];

// Retry-After of a refusal over the upload quota reaches the browser.
export const headers = actionHeaders;

export const meta: MetaFunction = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("dashboard.gigCreate.metaTitle") }];
};

export async function loader({ request }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  if (user.role === "admin") throw new Response((await requestT(request))("dashboard.gigCreate.adminsDoNotSell"), { status: 403 });
  return {
    role: user.role,
    categories: await listCategoryOptions(getDb()),
    state: emptyGigForm(),
    constraint: GIG_FORM_CONSTRAINT,
    unverifiedEmail: user.role === "freelancer" && !(await isEmailVerified(getDb(), user.id)) ? user.email : null,
    ...(await pageMessages(request, ["dashboard"])),
  };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const user = await requireUser(request);
  if (user.role === "client") {
    const form = await readFormData(request);
    if (form.get("intent") !== "become-seller") throw new Response((await requestT(request))("dashboard.gigCreate.onlySellers"), { status: 403 });
    const result = await becomeSeller(await getActor(request, context.clientIp));
    if (!result.ok) throw new Response(result.error === "invalid" ? null : messageOf(result, await requestLocale(request)), { status: failureStatus(result) });
    return redirect("/gig/create");
  }
  if (user.role !== "freelancer") throw new Response((await requestT(request))("dashboard.gigCreate.adminsDoNotSell"), { status: 403 });
  return handleGigForm(request, await requireMemberActor(request, context.clientIp));
}

export default function CreateGig() {
  const { t } = useT();
  const { role, categories, state, constraint, unverifiedEmail } = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  if (role === "client") {
    return (
      <section className="container narrow" aria-labelledby="create-title">
        <h1 id="create-title">{t("dashboard.becomeSeller.title")}</h1>
        <p>{t("dashboard.becomeSeller.text")}</p>
        <Form method="post">
          <SubmitButton name="intent" value="become-seller" pendingLabel={t("dashboard.becomeSeller.pending")}>
            {t("dashboard.becomeSeller.submit")}
          </SubmitButton>
        </Form>
        <p>
          <Link to="/dashboard">{t("dashboard.becomeSeller.back")}</Link>
        </p>
      </section>
    );
  }
  return (
    <section className="container narrow" aria-labelledby="create-title">
      <h1 id="create-title">{t("dashboard.gigCreate.title")}</h1>
      {unverifiedEmail ? <VerifyEmailNotice email={unverifiedEmail} seller /> : null}
      <GigForm key="new" defaultValue={state} result={reply} categories={categories} constraint={constraint} />
    </section>
  );
}
