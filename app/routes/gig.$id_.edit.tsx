import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { data, redirect } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData } from "@remix-run/react";
import { SubmitButton } from "~/components/forms";
import { GigForm } from "~/components/gig-form";
import { recordActivity } from "~/models/activity.server";
import { listCategoryOptions } from "~/models/category.server";
import { deleteGig, getOwnGig, setGigStatus } from "~/models/gig.server";
import { requireUser } from "~/utils/auth.server";
import { getDb } from "~/utils/db.server";
import { gigFormOf, handleGigForm } from "~/utils/gig-form.server";
import { deleteImage } from "~/utils/storage.server";
import { readFormData } from "~/utils/form-data.server";

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `Edit ${data.title} | Soko` : "Not found | Soko" }];

/** Only the owner edits: anyone else, and any id that is not a gig, gets the same 404. */
async function ownGig(request: Request, id: string | undefined) {
  const user = await requireUser(request);
  const gig = await getOwnGig(getDb(), Number(id), user.id);
  if (!gig) throw new Response("Not Found", { status: 404 });
  return { user, gig };
}

export async function loader({ request, params }: LoaderFunctionArgs) {
  const { gig } = await ownGig(request, params.id);
  const confirmDelete = new URL(request.url).searchParams.get("delete") === "confirm";
  return { id: gig.id, title: gig.title, status: gig.status, confirmDelete, categories: await listCategoryOptions(getDb()), state: gigFormOf(gig) };
}

export async function action({ request, params }: ActionFunctionArgs) {
  const { user, gig } = await ownGig(request, params.id);
  if ((request.headers.get("Content-Type") ?? "").startsWith("multipart/form-data")) return handleGigForm(request, user, gig.id);

  // The small forms beside the editor: pause, publish again, delete (after a confirmation).
  const intent = (await readFormData(request)).get("intent");
  const db = getDb();
  if (intent === "pause" || intent === "resume") {
    const changed = await setGigStatus(db, user.id, gig.id, intent === "pause" ? "paused" : "published");
    if (!changed) return data({ manageError: intent === "pause" ? "Only a published gig can be paused." : "Only a paused gig can be published again this way." }, { status: 409 });
    await recordActivity(db, user.id, intent === "pause" ? "gig_paused" : "gig_resumed", { gigId: gig.id });
    return redirect(`/gig/${gig.id}/edit`);
  }
  if (intent === "delete") return redirect(`/gig/${gig.id}/edit?delete=confirm#delete`);
  if (intent === "delete-confirmed") {
    const images = await deleteGig(db, user.id, gig.id);
    if (images) {
      await Promise.all(images.map(deleteImage));
      await recordActivity(db, user.id, "gig_deleted", { gigId: gig.id, title: gig.title });
    }
    return redirect("/dashboard?gig=deleted");
  }
  return data({ manageError: "Choose what to do with this gig." }, { status: 400 });
}

const STATUS = { draft: "Draft: only you can see it", published: "Published: buyers can find it", paused: "Paused: hidden from buyers" };

export default function EditGig() {
  const { id, title, status, confirmDelete, categories, state } = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>();
  const form = reply && "state" in reply ? reply : null;
  const manageError = reply && "manageError" in reply ? reply.manageError : null;
  return (
    <section className="container narrow" aria-labelledby="edit-title">
      <h1 id="edit-title">Edit gig</h1>
      <p>
        <span className="status-badge">{STATUS[status]}</span> <Link to={`/gig/${id}`}>{status === "published" ? "View it as buyers do" : "Preview"}</Link>
      </p>
      <GigForm key={id} state={form?.state ?? state} errors={form?.errors ?? {}} categories={categories} />

      <section aria-labelledby="manage-title" className="manage-gig">
        <h2 id="manage-title">Manage this gig</h2>
        {manageError ? (
          <p className="field-errors" role="alert">
            {manageError}
          </p>
        ) : null}
        {status === "published" ? (
          <Form method="post">
            <SubmitButton name="intent" value="pause" pendingLabel="Pausing…">
              Pause gig
            </SubmitButton>
          </Form>
        ) : null}
        {status === "paused" ? (
          <Form method="post">
            <SubmitButton name="intent" value="resume" pendingLabel="Publishing…">
              Publish again
            </SubmitButton>
          </Form>
        ) : null}
        {confirmDelete ? (
          <Form method="post" id="delete" className="danger-zone">
            <p role="alert">
              Delete “{title}”? This cannot be undone.
            </p>
            <SubmitButton name="intent" value="delete-confirmed" pendingLabel="Deleting…">
              Yes, delete this gig
            </SubmitButton>{" "}
            <Link to={`/gig/${id}/edit`}>Keep it</Link>
          </Form>
        ) : (
          <Form method="post">
            <SubmitButton name="intent" value="delete" pendingLabel="…">
              Delete gig
            </SubmitButton>
          </Form>
        )}
      </section>
    </section>
  );
}
