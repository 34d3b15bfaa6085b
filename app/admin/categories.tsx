import { getFormProps, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LinksFunction, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useNavigation } from "@remix-run/react";
import { Link } from "~/components/link";
import { ErrorList, Field, FormMessage, SubmitButton } from "~/components/forms";
import { listCategoriesForAdmin, type AdminCategory } from "~/models/category.server";
import { addCategory, deleteCategory, moveCategory, renameCategory, setCategoryHidden } from "~/operations/categories.server";
import { adminScreenLoader } from "~/server/admin-area.server";
import { requireMemberActor } from "~/server/auth.server";
import {
  AddCategorySchema,
  CATEGORY_DESCRIPTION_MAX,
  CATEGORY_NAME_MAX,
  CategoryActionSchema,
  RenameCategorySchema,
  type CategoryAction,
} from "~/schemas/category";
import { getDb } from "~/server/db.server";
import { formConstraints, type FormConstraint } from "~/schemas/form-constraint";
import { useSchemaForm } from "~/hooks/use-schema-form";
import { readFormData } from "~/server/form-data.server";
import { formFailure } from "~/server/operation-results.server";
import adminStylesUrl from "~/styles/admin-users.css?url";
import categoriesStylesUrl from "~/styles/admin-categories.css?url";

/**
 * `/categories` on the admin host, `/admin/categories` on the main host (app/utils/site-routes.ts): the
 * marketplace's categories in display order with their gigs, and plain forms to add one, rename one (name and
 * description; `?edit=<id>` opens its form; the slug never changes), move one up or down, hide or show one,
 * and delete one no gig uses (ADR 026). Each posts, then 303 back here with what was done (`?done=…&id=…`).
 */
export const meta: MetaFunction = () => [{ title: "Categories | Soko Admin" }, { name: "robots", content: "noindex" }];
export const links: LinksFunction = () => [
  { rel: "stylesheet", href: adminStylesUrl },
  { rel: "stylesheet", href: categoriesStylesUrl },
];

const DONE = ["added", "renamed", "moved", "hidden", "shown", "deleted"] as const;
type Done = (typeof DONE)[number];
const DONE_OF: Record<CategoryAction["intent"], Done> = { add: "added", rename: "renamed", move: "moved", hide: "hidden", show: "shown", delete: "deleted" };

export async function loader({ request }: LoaderFunctionArgs) {
  const { adminName } = await adminScreenLoader(request);
  const categories = await listCategoriesForAdmin(getDb());
  const params = new URL(request.url).searchParams;
  const editing = categories.find((c) => String(c.id) === params.get("edit")) ?? null;
  return {
    adminName,
    categories,
    editing,
    notice: noticeOf(params, categories),
    // The browser's checks of the add and rename forms; their schemas load once a form is used (app/hooks/use-schema-form.ts).
    constraints: formConstraints({ add: AddCategorySchema, rename: RenameCategorySchema }),
    // The limits the forms' hints state, as data: they live in the schema's module, which the page loads only once a form is used.
    limits: { name: CATEGORY_NAME_MAX, description: CATEGORY_DESCRIPTION_MAX },
  };
}

/** The confirmation of what was just done, worded from what is there now, so a crafted link cannot claim a change that did not happen. */
function noticeOf(params: URLSearchParams, categories: AdminCategory[]): string | null {
  const done = params.get("done") as Done | null;
  if (!done || !DONE.includes(done)) return null;
  const category = categories.find((c) => String(c.id) === params.get("id"));
  if (done === "deleted") return category ? null : "The category was deleted.";
  if (!category) return null;
  if (done === "hidden") return category.hidden ? `“${category.name}” is hidden: it is no longer offered in browsing or the gig form. Its gigs keep it.` : null;
  if (done === "shown") return category.hidden ? null : `“${category.name}” is shown again.`;
  return { added: `Added “${category.name}”.`, renamed: `Saved “${category.name}”.`, moved: `Moved “${category.name}”.` }[done];
}

export async function action({ request, context }: ActionFunctionArgs) {
  // The screen's own rule first (admins only, as for GET), then the admin as the operations' actor.
  await adminScreenLoader(request);
  const actor = await requireMemberActor(request, context.clientIp);
  const submission = parseWithZod(await readFormData(request), { schema: CategoryActionSchema });
  if (submission.status !== "success") return data(submission.reply(), { status: 400 });
  const input = submission.value;
  const result =
    input.intent === "add"
      ? await addCategory(actor, input)
      : input.intent === "rename"
        ? await renameCategory(actor, input)
        : input.intent === "move"
          ? await moveCategory(actor, input)
          : input.intent === "delete"
            ? await deleteCategory(actor, input)
            : await setCategoryHidden(actor, input);
  if (!result.ok) return formFailure(submission.reply, result);
  const back = new URLSearchParams({ done: DONE_OF[input.intent], id: String(result.value.id) });
  return redirect(`${new URL(request.url).pathname}?${back}`, 303);
}

/** Which form a reply belongs to: the intent its button sent (Conform echoes the submitted fields). */
function intentOf(reply: SubmissionResult<string[]> | undefined): string | null {
  const intent = reply?.initialValue?.intent;
  return typeof intent === "string" ? intent : null;
}

export default function AdminCategories() {
  const { categories, editing, notice, constraints, limits } = useLoaderData<typeof loader>();
  const reply = useActionData<typeof action>() as SubmissionResult<string[]> | undefined;
  const intent = intentOf(reply);
  // A refused move, hide, show or delete (a category with gigs cannot be deleted) is said above the list.
  const rowErrors = intent && intent !== "add" && intent !== "rename" ? Object.values(reply?.error ?? {}).flatMap((e) => e ?? []) : undefined;
  return (
    <section className="container admin-screen admin-categories" aria-labelledby="categories-title">
      <h1 id="categories-title">Categories</h1>
      <p className="section-lead">
        What buyers browse by and sellers file their gigs under, in the order the home page shows them. A hidden category is left out of browsing and the gig
        form; its gigs keep it. Only a category no gig has ever used can be deleted.
      </p>
      <FormMessage success={reply ? null : notice} />
      <ErrorList errors={rowErrors} />
      {editing ? (
        <RenameForm key={editing.id} category={editing} constraint={constraints.rename} limits={limits} reply={intent === "rename" ? reply : undefined} />
      ) : null}
      <ol className="category-admin-list" aria-label="Categories in display order">
        {categories.map((c, i) => (
          <CategoryRow key={c.id} c={c} first={i === 0} last={i === categories.length - 1} />
        ))}
      </ol>
      <AddForm constraint={constraints.add} limits={limits} reply={intent === "add" ? reply : undefined} />
    </section>
  );
}

function CategoryRow({ c, first, last }: { c: AdminCategory; first: boolean; last: boolean }) {
  return (
    <li className="category-admin-item" id={`category-${c.id}`} data-testid="category-row">
      <div className="category-admin-text">
        <h2 className="category-admin-name">
          <span className="category-admin-title">{c.name}</span> {c.hidden ? <span className="status-badge status-suspended">Hidden</span> : null}
        </h2>
        {c.description ? <p className="category-admin-description">{c.description}</p> : null}
        <p className="field-hint">
          <code>{c.slug}</code> · {c.gigCount} {c.gigCount === 1 ? "gig" : "gigs"}
        </p>
      </div>
      <div className="admin-actions category-admin-actions">
        <RowButton c={c} intent="move" direction="up" label="Up" disabled={first} />
        <RowButton c={c} intent="move" direction="down" label="Down" disabled={last} />
        <Link to={`?edit=${c.id}`} className="button button-secondary button-small" preventScrollReset aria-label={`Rename ${c.name}`}>
          Rename
        </Link>
        <RowButton c={c} intent={c.hidden ? "show" : "hide"} label={c.hidden ? "Show" : "Hide"} />
        {c.gigCount === 0 ? <RowButton c={c} intent="delete" label="Delete" danger /> : null}
      </div>
    </li>
  );
}

const PENDING: Record<string, string> = { up: "Moving…", down: "Moving…", hide: "Hiding…", show: "Showing…", delete: "Deleting…" };

/** One plain form per button: the category, the intent, and for a move its direction. */
function RowButton({
  c,
  intent,
  direction,
  label,
  disabled = false,
  danger = false,
}: {
  c: AdminCategory;
  intent: "move" | "hide" | "show" | "delete";
  direction?: "up" | "down";
  label: string;
  disabled?: boolean;
  danger?: boolean;
}) {
  const navigation = useNavigation();
  const form = navigation.state === "submitting" ? navigation.formData : undefined;
  const pending = form?.get("categoryId") === String(c.id) && form.get("intent") === intent && (direction === undefined || form.get("direction") === direction);
  return (
    <Form method="post" className="inline-form" preventScrollReset>
      <input type="hidden" name="categoryId" value={c.id} />
      {direction ? <input type="hidden" name="direction" value={direction} /> : null}
      <button
        type="submit"
        name="intent"
        value={intent}
        className={`button button-small ${danger ? "button-danger" : "button-secondary"}`}
        disabled={disabled || pending}
        aria-disabled={disabled || pending}
        aria-label={`${label} ${c.name}`}
      >
        {pending ? PENDING[direction ?? intent] : label}
      </button>
    </Form>
  );
}

/** The screen's two checked forms, each by its own schema (the action parses with their union). */
const schemas = {
  add: () => import("~/schemas/category").then((m) => m.AddCategorySchema),
  rename: () => import("~/schemas/category").then((m) => m.RenameCategorySchema),
};
type Limits = { name: number; description: number };

function RenameForm({
  category,
  constraint,
  limits,
  reply,
}: {
  category: AdminCategory;
  constraint: FormConstraint;
  limits: Limits;
  reply: SubmissionResult<string[]> | undefined;
}) {
  const [form, fields] = useSchemaForm({
    id: `rename-category-${category.id}`,
    lastResult: reply,
    constraint,
    defaultValue: { name: category.name, description: category.description },
    schema: schemas.rename,
  });
  return (
    <Form method="post" action={`?edit=${category.id}`} className="form-card" {...getFormProps(form)} aria-labelledby="rename-title" preventScrollReset>
      <h2 id="rename-title">Rename “{category.name}”</h2>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="categoryId" value={category.id} />
      <Field
        field={fields.name}
        label="Name"
        hint={`At most ${limits.name} characters. Its address stays /browse?category=${category.slug}.`}
        inputProps={{ autoComplete: "off" }}
      />
      <Field
        field={fields.description}
        label="Description (optional)"
        hint={`At most ${limits.description} characters, shown on the home page's card.`}
        inputProps={{ autoComplete: "off" }}
      />
      <div className="admin-actions">
        <SubmitButton pendingLabel="Saving…" name="intent" value="rename">
          Save
        </SubmitButton>
        <Link to="." className="button button-secondary" preventScrollReset>
          Cancel
        </Link>
      </div>
    </Form>
  );
}

function AddForm({ constraint, limits, reply }: { constraint: FormConstraint; limits: Limits; reply: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useSchemaForm({ id: "add-category", lastResult: reply, constraint, schema: schemas.add });
  return (
    <Form method="post" className="form-card" {...getFormProps(form)} aria-labelledby="add-title">
      <h2 id="add-title">Add a category</h2>
      <ErrorList id={form.errorId} errors={form.errors} />
      <Field
        field={fields.name}
        label="Name"
        hint={`At most ${limits.name} characters. It is added at the end of the list, shown.`}
        inputProps={{ autoComplete: "off" }}
      />
      <Field
        field={fields.description}
        label="Description (optional)"
        hint={`At most ${limits.description} characters, shown on the home page's card.`}
        inputProps={{ autoComplete: "off" }}
      />
      <SubmitButton pendingLabel="Adding…" name="intent" value="add">
        Add category
      </SubmitButton>
    </Form>
  );
}
