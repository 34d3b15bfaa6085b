/**
 * The gig form (create and edit), a Conform form. Tags and images are Conform lists: Add tag and each Remove
 * are Conform's list buttons (`form.insert` / `form.remove`, the Epic Stack's note-editor pattern). Without
 * JavaScript each such button submits the form and the server answers with the button applied (and any
 * chosen image stored); with JavaScript Conform applies them in place (Enter adds a tag), the title shows a
 * live counter, and Save as Draft / Publish Gig show their pending state.
 *
 * The server decides every rule (categories, whose images these are, what publishing needs), so the form
 * is sent as it stands and its messages come back beside the fields: the browser's own checks stay off. No
 * schema is ever checked in the browser (so, unlike the other forms, no useSchemaForm): the fields' required
 * and length rules come from the loader (app/server/gig-form.server.ts), and zod stays on the server.
 */
import { getFormProps, parse, useForm, type FieldMetadata, type SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import { useRef, useState, type KeyboardEvent } from "react";
import { ErrorList, SubmitButton } from "~/components/forms";
import { TIER_LABEL, TIERS, type Tier } from "~/domain/catalog-vocabulary";
import { DELIVERY_DAYS, MAX_IMAGES, MAX_TAGS, TAG_MAX, tagToAdd, TITLE_MAX, type GigFormValues } from "~/domain/gig-rules";
import type { FormConstraint } from "~/schemas/form-constraint";
import { imageUrl } from "~/utils/media";

type Errors = Record<string, string[] | null | undefined>;

/** A field's required and length rules, from the constraint of the schema the server parses with. */
type Limits = (name: string) => { required: true | undefined; maxLength: number | undefined };
const limitsOf =
  (constraint: FormConstraint): Limits =>
  (name) => ({ required: constraint[name]?.required || undefined, maxLength: constraint[name]?.maxLength });

const invalid = (errors: Errors, name: string) => (errors[name]?.length ? { "aria-invalid": true as const, "aria-describedby": `${name}-error` } : {});

function Errors({ errors, name }: { errors: Errors; name: string }) {
  return <ErrorList id={`${name}-error`} errors={errors[name] ?? undefined} />;
}

/**
 * `result`: the action's reply (Conform's SubmissionResult, as it arrives from useActionData); `constraint`: the
 * loader's GIG_FORM_CONSTRAINT.
 */
type GigFormProps = { defaultValue: GigFormValues; result?: object | null; categories: { slug: string; name: string }[]; constraint: FormConstraint };

/**
 * The form, started again from each reply of the server: the reply is the form as it now stands (images it
 * stored included), and a fresh start also empties the file input, whose images the server now holds.
 */
export function GigForm(props: GigFormProps) {
  return <GigFormFields key={useReplyCount(props.result)} {...props} />;
}

function useReplyCount(result: unknown) {
  const seen = useRef({ result, count: 0 });
  if (seen.current.result !== result) seen.current = { result, count: seen.current.count + 1 };
  return seen.current.count;
}

function GigFormFields({ defaultValue, result: reply, categories, constraint }: GigFormProps) {
  const result = reply as SubmissionResult<string[]> | null | undefined;
  const limits = limitsOf(constraint);
  const [form, fields] = useForm<GigFormValues>({
    id: "gig-form",
    lastResult: result,
    defaultValue,
    constraint,
    // In the browser only the list buttons are applied (in place); the form itself goes to the server.
    onValidate: ({ formData }) => parse(formData, { resolve: () => ({ value: {} as GigFormValues }) }),
  });
  const errors: Errors = result?.error ?? {};
  const text = (field: FieldMetadata<unknown>) => (typeof field.initialValue === "string" ? field.initialValue : "");
  const [titleLength, setTitleLength] = useState(text(fields.title).length);

  // The tag being typed; Add tag (and Enter) insert it into the list.
  const tags = fields.tags.getFieldList();
  const typed = result?.initialValue?.newTag;
  const [draft, setDraft] = useState(typeof typed === "string" ? typed : "");
  const [tagMessage, setTagMessage] = useState<string | null>(null);
  function addTag() {
    const outcome = tagToAdd(tags.map(text), draft);
    if ("error" in outcome) return setTagMessage(outcome.error);
    if (outcome.tag !== null) form.insert({ name: fields.tags.name, defaultValue: outcome.tag });
    setDraft("");
    setTagMessage(null);
  }
  const addTagButton = {
    ...form.insert.getButtonProps({ name: fields.tags.name }),
    formNoValidate: true,
    onClick: (e: React.MouseEvent) => (e.preventDefault(), addTag()),
  };
  const tagErrors = tagMessage ? { ...errors, newTag: [tagMessage] } : errors;

  const images = fields.images.getFieldList();
  return (
    <Form method="post" encType="multipart/form-data" className="gig-form" {...getFormProps(form)} noValidate>
      {/* Enter in a text field presses the form's first button: adding the tag typed (if any), never a Remove. */}
      <button {...addTagButton} hidden tabIndex={-1} aria-hidden="true" />
      <ErrorList errors={errors[""] ?? undefined} />
      <div className="field">
        <label htmlFor="title">Title</label>
        <input
          id="title"
          name={fields.title.name}
          type="text"
          {...limits("title")}
          defaultValue={text(fields.title)}
          placeholder="I will design a modern logo for your business"
          onChange={(e) => setTitleLength(e.target.value.length)}
          aria-describedby="title-count"
          {...invalid(errors, "title")}
        />
        <p id="title-count" className="field-hint" aria-live="polite">
          {titleLength}/{TITLE_MAX} characters
        </p>
        <Errors errors={errors} name="title" />
      </div>
      <div className="field">
        <label htmlFor="category">Category</label>
        <select id="category" name={fields.category.name} required defaultValue={text(fields.category)} {...invalid(errors, "category")}>
          <option value="">Choose a category</option>
          {categories.map((c) => (
            <option key={c.slug} value={c.slug}>
              {c.name}
            </option>
          ))}
        </select>
        <Errors errors={errors} name="category" />
      </div>
      <div className="field">
        <label htmlFor="description">Description</label>
        <textarea
          id="description"
          name={fields.description.name}
          rows={8}
          {...limits("description")}
          defaultValue={text(fields.description)}
          {...invalid(errors, "description")}
        />
        <Errors errors={errors} name="description" />
      </div>

      <fieldset className="field">
        <legend>Tags</legend>
        <p className="field-hint" id="tags-hint">
          Words buyers search for, such as “logo” or “Luganda”. Up to {MAX_TAGS} tags of {TAG_MAX} characters.
        </p>
        <ul className="tag-list tag-editor" aria-label="Tags">
          {tags.map((tag, i) => (
            <li key={tag.key}>
              <input type="hidden" name={tag.name} value={text(tag)} />
              {text(tag)}{" "}
              <button {...form.remove.getButtonProps({ name: fields.tags.name, index: i })} className="link-button" aria-label={`Remove tag ${text(tag)}`}>
                ×
              </button>
            </li>
          ))}
        </ul>
        <div className="inline-field">
          <label htmlFor="newTag" className="visually-hidden">
            New tag
          </label>
          <input
            id="newTag"
            name="newTag"
            type="text"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e: KeyboardEvent<HTMLInputElement>) => {
              if (e.key === "Enter") {
                e.preventDefault();
                addTag();
              }
            }}
            aria-describedby="tags-hint"
            {...invalid(tagErrors, "newTag")}
          />
          <button {...addTagButton} className="button button-secondary button-small">
            Add tag
          </button>
        </div>
        <Errors errors={tagErrors} name="newTag" />
        <Errors errors={errors} name="tags" />
      </fieldset>

      <fieldset className="field">
        <legend>Gallery</legend>
        <p className="field-hint" id="upload-hint">
          Up to {MAX_IMAGES} images: JPEG, PNG or WebP, at most 5 MB each. The first is the cover.
        </p>
        {images.length ? (
          <ul className="image-editor" aria-label="Gallery images">
            {images.map((image, i) => (
              <li key={image.key}>
                <input type="hidden" name={image.name} value={text(image)} />
                <img src={imageUrl(text(image), "thumb")} alt={`Gallery image ${i + 1}`} width={160} height={90} />
                <button {...form.remove.getButtonProps({ name: fields.images.name, index: i })} className="link-button">
                  Remove image {i + 1}
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        <label htmlFor="upload">Add images</label>
        <input
          id="upload"
          name="upload"
          type="file"
          accept="image/jpeg,image/png,image/webp"
          multiple
          aria-describedby="upload-hint"
          {...invalid(errors, "upload")}
        />
        <Errors errors={errors} name="upload" />
        <Errors errors={errors} name="images" />
      </fieldset>

      <h2>Packages</h2>
      <div className="package-grid">
        {TIERS.map((tier) => (
          <PackageFields key={tier} tier={tier} field={fields[tier]} errors={errors} limits={limits} />
        ))}
      </div>
      <p className="form-actions">
        <SubmitButton name="intent" value="draft" pendingLabel="Saving…">
          Save as Draft
        </SubmitButton>
        <SubmitButton name="intent" value="publish" pendingLabel="Publishing…">
          Publish Gig
        </SubmitButton>
      </p>
    </Form>
  );
}

function PackageFields({ tier, field, errors, limits }: { tier: Tier; field: FieldMetadata<GigFormValues[Tier]>; errors: Errors; limits: Limits }) {
  const values = field.getFieldset();
  const label = TIER_LABEL[tier];
  const id = (f: string) => `${tier}-${f}`;
  const name = (f: keyof GigFormValues[Tier]) => values[f].name;
  const value = (f: keyof GigFormValues[Tier]) => {
    const initial: unknown = values[f].initialValue;
    return typeof initial === "string" ? initial : "";
  };
  return (
    <fieldset className="package-fields">
      <legend>
        {label} {tier === "basic" ? "(required to publish)" : "(optional)"}
      </legend>
      <div className="field">
        <label htmlFor={id("name")}>{label} package name</label>
        <input
          id={id("name")}
          name={name("name")}
          type="text"
          {...limits(name("name"))}
          defaultValue={value("name")}
          placeholder={label}
          {...invalid(errors, name("name"))}
        />
        <Errors errors={errors} name={name("name")} />
      </div>
      <div className="field">
        <label htmlFor={id("description")}>{label} description</label>
        <textarea
          id={id("description")}
          name={name("description")}
          rows={2}
          {...limits(name("description"))}
          defaultValue={value("description")}
          {...invalid(errors, name("description"))}
        />
        <Errors errors={errors} name={name("description")} />
      </div>
      <div className="field">
        <label htmlFor={id("price")}>{label} price (UGX)</label>
        <input
          id={id("price")}
          name={name("price")}
          type="text"
          inputMode="numeric"
          {...limits(name("price"))}
          defaultValue={value("price")}
          placeholder="75000"
          {...invalid(errors, name("price"))}
        />
        <Errors errors={errors} name={name("price")} />
      </div>
      <div className="field">
        <label htmlFor={id("delivery")}>{label} delivery</label>
        <select id={id("delivery")} name={name("delivery")} defaultValue={value("delivery")} {...invalid(errors, name("delivery"))}>
          <option value="">Choose…</option>
          {DELIVERY_DAYS[tier].map((d) => (
            <option key={d} value={d}>
              {d} {d === 1 ? "day" : "days"}
            </option>
          ))}
        </select>
        <Errors errors={errors} name={name("delivery")} />
      </div>
      <div className="field">
        <label htmlFor={id("revisions")}>{label} revisions</label>
        <input
          id={id("revisions")}
          name={name("revisions")}
          type="number"
          min={0}
          max={20}
          defaultValue={value("revisions")}
          placeholder="1"
          {...invalid(errors, name("revisions"))}
        />
        <Errors errors={errors} name={name("revisions")} />
      </div>
      <div className="field">
        <label htmlFor={id("features")}>{label} features (one per line)</label>
        <textarea
          id={id("features")}
          name={name("features")}
          rows={3}
          {...limits(name("features"))}
          defaultValue={value("features")}
          {...invalid(errors, name("features"))}
        />
        <Errors errors={errors} name={name("features")} />
      </div>
    </fieldset>
  );
}
