import { getFormProps, type FieldMetadata, type SubmissionResult } from "@conform-to/react";
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
import { pageMessages, requestT } from "~/i18n/messages.server";
import { metaI18n, useT } from "~/i18n/react";
import { requestLocale } from "~/i18n/locale.server";

/**
 * `/categories` on the admin host, `/admin/categories` on the main host (app/utils/site-routes.ts): the
 * marketplace's categories in display order with their gigs, and plain forms to add one, rename one (name and
 * description; `?edit=<id>` opens its form; the slug never changes), each with its name and description in
 * Luganda and Swahili (optional: a language left empty shows the English), move one up or down, hide or show one,
 * and delete one no gig uses (ADR 026). Each posts, then 303 back here with what was done (`?done=…&id=…`).
 */
export const meta: MetaFunction<typeof loader> = ({ matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: _("admin.categories.title") }, { name: "robots", content: "noindex" }];
};
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
    notice: noticeOf(params, categories, await requestT(request)),
    // The browser's checks of the add and rename forms; their schemas load once a form is used (app/hooks/use-schema-form.ts).
    constraints: formConstraints({ add: AddCategorySchema, rename: RenameCategorySchema }),
    // The limits the forms' hints state, as data: they live in the schema's module, which the page loads only once a form is used.
    limits: { name: CATEGORY_NAME_MAX, description: CATEGORY_DESCRIPTION_MAX },
    ...(await pageMessages(request, ["admin"])),
  };
}

/** The confirmation of what was just done, worded from what is there now, so a crafted link cannot claim a change that did not happen. */
function noticeOf(params: URLSearchParams, categories: AdminCategory[], t: Awaited<ReturnType<typeof requestT>>): string | null {
  const done = params.get("done") as Done | null;
  if (!done || !DONE.includes(done)) return null;
  const category = categories.find((c) => String(c.id) === params.get("id"));
  if (done === "deleted") return category ? null : t("admin.categories.deleted");
  if (!category) return null;
  const name = category.name;
  if (done === "hidden") return category.hidden ? t("admin.categories.hidden", { name }) : null;
  if (done === "shown") return category.hidden ? null : t("admin.categories.shown", { name });
  return { added: t("admin.categories.added", { name }), renamed: t("admin.categories.renamed", { name }), moved: t("admin.categories.moved", { name }) }[done];
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
  if (!result.ok) return formFailure(submission.reply, result, { locale: await requestLocale(request) });
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
  const { t } = useT();
  return (
    <section className="container admin-screen admin-categories" aria-labelledby="categories-title">
      <h1 id="categories-title">{t("admin.categories.heading")}</h1>
      <p className="section-lead">{t("admin.categories.lead")}</p>
      <FormMessage success={reply ? null : notice} />
      <ErrorList errors={rowErrors} />
      {editing ? (
        <RenameForm key={editing.id} category={editing} constraint={constraints.rename} limits={limits} reply={intent === "rename" ? reply : undefined} />
      ) : null}
      <ol className="category-admin-list" aria-label={t("admin.categories.listLabel")}>
        {categories.map((c, i) => (
          <CategoryRow key={c.id} c={c} first={i === 0} last={i === categories.length - 1} />
        ))}
      </ol>
      <AddForm constraint={constraints.add} limits={limits} reply={intent === "add" ? reply : undefined} />
    </section>
  );
}

function CategoryRow({ c, first, last }: { c: AdminCategory; first: boolean; last: boolean }) {
  const { t } = useT();
  const name = c.name;
  return (
    <li className="category-admin-item" id={`category-${c.id}`} data-testid="category-row">
      <div className="category-admin-text">
        <h2 className="category-admin-name">
          <span className="category-admin-title">{c.name}</span>{" "}
          {c.hidden ? <span className="status-badge status-suspended">{t("admin.categories.hiddenBadge")}</span> : null}
        </h2>
        {c.description ? <p className="category-admin-description">{c.description}</p> : null}
        <p className="field-hint">
          <code>{c.slug}</code> · {t("admin.categories.gigCount", { count: c.gigCount })}
        </p>
      </div>
      <div className="admin-actions category-admin-actions">
        <RowButton c={c} intent="move" direction="up" label={t("admin.categories.up")} named={t("admin.categories.upNamed", { name })} disabled={first} />
        <RowButton c={c} intent="move" direction="down" label={t("admin.categories.down")} named={t("admin.categories.downNamed", { name })} disabled={last} />
        <Link to={`?edit=${c.id}`} className="button button-secondary button-small" preventScrollReset aria-label={t("admin.categories.renameNamed", { name })}>
          {t("admin.categories.rename")}
        </Link>
        {c.hidden ? (
          <RowButton c={c} intent="show" label={t("admin.categories.show")} named={t("admin.categories.showNamed", { name })} />
        ) : (
          <RowButton c={c} intent="hide" label={t("admin.categories.hide")} named={t("admin.categories.hideNamed", { name })} />
        )}
        {c.gigCount === 0 ? (
          <RowButton c={c} intent="delete" label={t("admin.categories.delete")} named={t("admin.categories.deleteNamed", { name })} danger />
        ) : null}
      </div>
    </li>
  );
}

const PENDING: Record<string, string> = {
  up: "admin.categories.moving",
  down: "admin.categories.moving",
  hide: "admin.categories.hiding",
  show: "admin.categories.showing",
  delete: "admin.categories.deleting",
};

/** One plain form per button: the category, the intent, and for a move its direction. `named`: the button's name with the category's. */
function RowButton({
  c,
  intent,
  direction,
  label,
  named,
  disabled = false,
  danger = false,
}: {
  c: AdminCategory;
  intent: "move" | "hide" | "show" | "delete";
  direction?: "up" | "down";
  label: string;
  named: string;
  disabled?: boolean;
  danger?: boolean;
}) {
  const { t } = useT();
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
        aria-label={named}
      >
        {pending ? t(PENDING[direction ?? intent]!) : label}
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
    defaultValue: {
      name: category.name,
      description: category.description,
      nameLg: category.translations.lg?.name ?? "",
      descriptionLg: category.translations.lg?.description ?? "",
      nameSw: category.translations.sw?.name ?? "",
      descriptionSw: category.translations.sw?.description ?? "",
    },
    schema: schemas.rename,
  });
  const { t } = useT();
  return (
    <Form method="post" action={`?edit=${category.id}`} className="form-card" {...getFormProps(form)} aria-labelledby="rename-title" preventScrollReset>
      <h2 id="rename-title">{t("admin.categories.renameHeading", { name: category.name })}</h2>
      <ErrorList id={form.errorId} errors={form.errors} />
      <input type="hidden" name="categoryId" value={category.id} />
      <Field
        field={fields.name}
        label={t("admin.categories.name")}
        hint={t("admin.categories.renameNameHint", { max: limits.name, slug: category.slug })}
        inputProps={{ autoComplete: "off" }}
      />
      <Field
        field={fields.description}
        label={t("admin.categories.description")}
        hint={t("admin.categories.descriptionHint", { max: limits.description })}
        inputProps={{ autoComplete: "off" }}
      />
      <TranslationFields fields={fields} />
      <div className="admin-actions">
        <SubmitButton pendingLabel={t("admin.categories.saving")} name="intent" value="rename">
          {t("admin.categories.save")}
        </SubmitButton>
        <Link to="." className="button button-secondary" preventScrollReset>
          {t("admin.categories.cancel")}
        </Link>
      </div>
    </Form>
  );
}

function AddForm({ constraint, limits, reply }: { constraint: FormConstraint; limits: Limits; reply: SubmissionResult<string[]> | undefined }) {
  const [form, fields] = useSchemaForm({ id: "add-category", lastResult: reply, constraint, schema: schemas.add });
  const { t } = useT();
  return (
    <Form method="post" className="form-card" {...getFormProps(form)} aria-labelledby="add-title">
      <h2 id="add-title">{t("admin.categories.addHeading")}</h2>
      <ErrorList id={form.errorId} errors={form.errors} />
      <Field
        field={fields.name}
        label={t("admin.categories.name")}
        hint={t("admin.categories.addNameHint", { max: limits.name })}
        inputProps={{ autoComplete: "off" }}
      />
      <Field
        field={fields.description}
        label={t("admin.categories.description")}
        hint={t("admin.categories.descriptionHint", { max: limits.description })}
        inputProps={{ autoComplete: "off" }}
      />
      <TranslationFields fields={fields} />
      <SubmitButton pendingLabel={t("admin.categories.adding")} name="intent" value="add">
        {t("admin.categories.add")}
      </SubmitButton>
    </Form>
  );
}

type TranslationField = "nameLg" | "descriptionLg" | "nameSw" | "descriptionSw";

/** The name and description in Luganda and Swahili: optional; a language whose name is left empty shows the English. */
function TranslationFields({ fields }: { fields: Record<TranslationField, FieldMetadata<unknown>> }) {
  const { t } = useT();
  return (
    <fieldset className="category-translations">
      <legend>{t("admin.categories.translations")}</legend>
      <p className="field-hint">{t("admin.categories.translationsHint")}</p>
      <Field field={fields.nameLg} label={t("admin.categories.nameLg")} inputProps={{ autoComplete: "off", lang: "lg" }} />
      <Field field={fields.descriptionLg} label={t("admin.categories.descriptionLg")} inputProps={{ autoComplete: "off", lang: "lg" }} />
      <Field field={fields.nameSw} label={t("admin.categories.nameSw")} inputProps={{ autoComplete: "off", lang: "sw" }} />
      <Field field={fields.descriptionSw} label={t("admin.categories.descriptionSw")} inputProps={{ autoComplete: "off", lang: "sw" }} />
    </fieldset>
  );
}
