import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { SubmitButton } from "~/components/forms";
import { GigForm } from "~/components/gig-form";
import { VerifyEmailNotice } from "~/components/verify-email-notice";
import { isEmailVerified } from "~/models/email-verification.server";
import { listCategoryOptions } from "~/models/category.server";
import { getOwnGig } from "~/models/gig.server";
import type { Failure } from "~/operations/core.server";
import { deleteGig, pauseGig, resumeGig } from "~/operations/gigs.server";
import { requireMemberActor } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { actionHeaders } from "~/utils/headers";
import { GIG_FORM_CONSTRAINT, handleGigForm } from "~/server/gig-form.server";
import { gigFormOf } from "~/schemas/gig";
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

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  // Without data (the 404 page) only the root's `common` words are here: the title stays as it was until common
  // has one for it.
  if (!data) return [{ title: "Not found | Soko" }];
  const { _ } = metaI18n(matches);
  return [{ title: _("dashboard.gigEdit.metaTitle", { title: data.title }) }];
};

/** Only the owner edits: anyone else, and any id that is not a gig, gets the same 404. */
async function ownGig(request: Request, clientIp: string, id: string | undefined) {
  const actor = await requireMemberActor(request, clientIp);
  const gig = await getOwnGig(getDb(), Number(id), actor.user.id);
  if (!gig) throw new Response("Not Found", { status: 404 });
  return { actor, gig };
}

export async function loader({ request, params, context }: LoaderFunctionArgs) {
  const { gig, actor } = await ownGig(request, context.clientIp, params.id);
  const confirmDelete = new URL(request.url).searchParams.get("delete") === "confirm";
  return {
    id: gig.id,
    title: gig.title,
    status: gig.status,
    confirmDelete,
    unverifiedEmail: (await isEmailVerified(getDb(), actor.user.id)) ? null : actor.user.email,
    // Its own category stays a choice even when hidden (ADR 026), so saving the gig keeps it.
    categories: await listCategoryOptions(getDb(), { include: gig.category }),
    state: gigFormOf(gig),
    constraint: GIG_FORM_CONSTRAINT,
    ...(await pageMessages(request, ["dashboard"])),
  };
}

export async function action({ request, params, context }: ActionFunctionArgs) {
  const { actor, gig } = await ownGig(request, context.clientIp, params.id);
  if ((request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data")) return handleGigForm(request, actor, gig.id);

  // The small forms beside the editor: pause, publish again, delete (after a confirmation).
  const intent = (await readFormData(request)).get("intent");
  if (intent === "pause" || intent === "resume") {
    const result = await (intent === "pause" ? pauseGig : resumeGig)(actor, { gigId: gig.id });
    if (!result.ok) return manageFailure(request, result);
    return redirect(`/gig/${gig.id}/edit`);
  }
  if (intent === "delete") return redirect(`/gig/${gig.id}/edit?delete=confirm#delete`);
  if (intent === "delete-confirmed") {
    const result = await deleteGig(actor, { gigId: gig.id });
    if (!result.ok) return manageFailure(request, result);
    return redirect("/dashboard?gig=deleted");
  }
  return data({ manageError: (await requestT(request))("dashboard.gigEdit.chooseAction") }, { status: 400 });
}

/** A refused pause, resume or delete: its reason beside the buttons (409), or the error page (404). */
async function manageFailure(request: Request, failure: Failure) {
  if (failure.error === "not_found" || failure.error === "forbidden") throw new Response("Not Found", { status: 404 });
  const manageError =
    failure.error === "invalid" ? (await requestT(request))("dashboard.gigEdit.chooseAction") : messageOf(failure, await requestLocale(request));
  return data({ manageError }, { status: failureStatus(failure) });
}

const STATUS = {
  draft: "dashboard.gigEdit.status.draft",
  published: "dashboard.gigEdit.status.published",
  paused: "dashboard.gigEdit.status.paused",
} as const;

export default function EditGig() {
  const { t } = useT();
  const { id, title, status, confirmDelete, categories, state, constraint, unverifiedEmail } = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  const result = reply && !("manageError" in reply) ? reply : null;
  const manageError = reply && "manageError" in reply ? reply.manageError : null;
  return (
    <section className="container narrow" aria-labelledby="edit-title">
      <h1 id="edit-title">{t("dashboard.gigEdit.title")}</h1>
      <p>
        <span className="status-badge">{t(STATUS[status])}</span>{" "}
        <Link to={`/gig/${id}`}>{status === "published" ? t("dashboard.gigEdit.viewAsBuyer") : t("dashboard.gigEdit.preview")}</Link>
      </p>
      {unverifiedEmail ? <VerifyEmailNotice email={unverifiedEmail} seller /> : null}
      <GigForm key={id} defaultValue={state} result={result} categories={categories} constraint={constraint} />

      <section aria-labelledby="manage-title" className="manage-gig">
        <h2 id="manage-title">{t("dashboard.gigEdit.manage")}</h2>
        {manageError ? (
          <p className="field-errors" role="alert">
            {manageError}
          </p>
        ) : null}
        {status === "published" ? (
          <Form method="post">
            <SubmitButton name="intent" value="pause" pendingLabel={t("dashboard.gigEdit.pausing")}>
              {t("dashboard.gigEdit.pause")}
            </SubmitButton>
          </Form>
        ) : null}
        {status === "paused" ? (
          <Form method="post">
            <SubmitButton name="intent" value="resume" pendingLabel={t("dashboard.gigEdit.publishing")}>
              {t("dashboard.gigEdit.resume")}
            </SubmitButton>
          </Form>
        ) : null}
        {confirmDelete ? (
          <Form method="post" id="delete" className="danger-zone">
            <p role="alert">{t("dashboard.gigEdit.confirmDelete", { title })}</p>
            <SubmitButton name="intent" value="delete-confirmed" pendingLabel={t("dashboard.gigEdit.deleting")}>
              {t("dashboard.gigEdit.deleteConfirmed")}
            </SubmitButton>{" "}
            <Link to={`/gig/${id}/edit`}>{t("dashboard.gigEdit.keep")}</Link>
          </Form>
        ) : (
          <Form method="post">
            <SubmitButton name="intent" value="delete" pendingLabel="…">
              {t("dashboard.gigEdit.delete")}
            </SubmitButton>
          </Form>
        )}
      </section>
    </section>
  );
}
