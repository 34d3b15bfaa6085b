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
import { ShowImage, useDataSaver } from "~/components/data-saver";
import { TIERS, type Tier } from "~/domain/package-tiers";
import { DELIVERY_DAYS, MAX_IMAGES, MAX_TAGS, TAG_MAX, tagToAdd, TITLE_MAX, type GigFormValues } from "~/domain/gig-rules";
import type { FormConstraint } from "~/schemas/form-constraint";
import { imageUrl } from "~/utils/media";
import { useT } from "~/i18n/react";

/** A package tier's name on the form (the `dashboard` namespace's; the catalog names tiers in its own). */
const TIER_NAME: Record<Tier, string> = {
  basic: "dashboard.gigForm.tier.basic",
  standard: "dashboard.gigForm.tier.standard",
  premium: "dashboard.gigForm.tier.premium",
};

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
  const { t } = useT();
  const saver = useDataSaver();
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
        <label htmlFor="title">{t("dashboard.gigForm.title")}</label>
        <input
          id="title"
          name={fields.title.name}
          type="text"
          {...limits("title")}
          defaultValue={text(fields.title)}
          placeholder={t("dashboard.gigForm.titlePlaceholder")}
          onChange={(e) => setTitleLength(e.target.value.length)}
          aria-describedby="title-count"
          {...invalid(errors, "title")}
        />
        <p id="title-count" className="field-hint" aria-live="polite">
          {t("dashboard.gigForm.titleCount", { count: titleLength, max: TITLE_MAX })}
        </p>
        <Errors errors={errors} name="title" />
      </div>
      <div className="field">
        <label htmlFor="category">{t("dashboard.gigForm.category")}</label>
        <select id="category" name={fields.category.name} required defaultValue={text(fields.category)} {...invalid(errors, "category")}>
          <option value="">{t("dashboard.gigForm.chooseCategory")}</option>
          {categories.map((c) => (
            <option key={c.slug} value={c.slug}>
              {c.name}
            </option>
          ))}
        </select>
        <Errors errors={errors} name="category" />
      </div>
      <div className="field">
        <label htmlFor="description">{t("dashboard.gigForm.description")}</label>
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
        <legend>{t("dashboard.gigForm.tags")}</legend>
        <p className="field-hint" id="tags-hint">
          {t("dashboard.gigForm.tagsHint", { max: MAX_TAGS, chars: TAG_MAX })}
        </p>
        <ul className="tag-list tag-editor" aria-label={t("dashboard.gigForm.tags")}>
          {tags.map((tag, i) => (
            <li key={tag.key}>
              <input type="hidden" name={tag.name} value={text(tag)} />
              {text(tag)}{" "}
              <button
                {...form.remove.getButtonProps({ name: fields.tags.name, index: i })}
                className="link-button"
                aria-label={t("dashboard.gigForm.removeTag", { tag: text(tag) })}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
        <div className="inline-field">
          <label htmlFor="newTag" className="visually-hidden">
            {t("dashboard.gigForm.newTag")}
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
            {t("dashboard.gigForm.addTag")}
          </button>
        </div>
        <Errors errors={tagErrors} name="newTag" />
        <Errors errors={errors} name="tags" />
      </fieldset>

      <fieldset className="field">
        <legend>{t("dashboard.gigForm.gallery")}</legend>
        <p className="field-hint" id="upload-hint">
          {t("dashboard.gigForm.galleryHint", { max: MAX_IMAGES, mb: 5 })}
        </p>
        {images.length ? (
          <ul className="image-editor" aria-label={t("dashboard.gigForm.galleryImages")}>
            {images.map((image, i) => (
              <li key={image.key}>
                <input type="hidden" name={image.name} value={text(image)} />
                {saver ? (
                  <ShowImage src={imageUrl(text(image), "small")} alt={t("dashboard.gigForm.galleryImage", { n: i + 1 })} width={160} height={90} />
                ) : (
                  <img src={imageUrl(text(image), "thumb")} alt={t("dashboard.gigForm.galleryImage", { n: i + 1 })} width={160} height={90} />
                )}
                <button {...form.remove.getButtonProps({ name: fields.images.name, index: i })} className="link-button">
                  {t("dashboard.gigForm.removeImage", { n: i + 1 })}
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        <label htmlFor="upload">{t("dashboard.gigForm.addImages")}</label>
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

      <h2>{t("dashboard.gigForm.packages")}</h2>
      <div className="package-grid">
        {TIERS.map((tier) => (
          <PackageFields key={tier} tier={tier} field={fields[tier]} errors={errors} limits={limits} />
        ))}
      </div>
      <p className="form-actions">
        <SubmitButton name="intent" value="draft" pendingLabel={t("dashboard.gigForm.saving")}>
          {t("dashboard.gigForm.saveDraft")}
        </SubmitButton>
        <SubmitButton name="intent" value="publish" pendingLabel={t("dashboard.gigForm.publishing")}>
          {t("dashboard.gigForm.publish")}
        </SubmitButton>
      </p>
    </Form>
  );
}

function PackageFields({ tier, field, errors, limits }: { tier: Tier; field: FieldMetadata<GigFormValues[Tier]>; errors: Errors; limits: Limits }) {
  const { t } = useT();
  const values = field.getFieldset();
  const label = t(TIER_NAME[tier]);
  const id = (f: string) => `${tier}-${f}`;
  const name = (f: keyof GigFormValues[Tier]) => values[f].name;
  const value = (f: keyof GigFormValues[Tier]) => {
    const initial: unknown = values[f].initialValue;
    return typeof initial === "string" ? initial : "";
  };
  return (
    <fieldset className="package-fields">
      <legend>{tier === "basic" ? t("dashboard.gigForm.tierRequired", { tier: label }) : t("dashboard.gigForm.tierOptional", { tier: label })}</legend>
      <div className="field">
        <label htmlFor={id("name")}>{t("dashboard.gigForm.packageName", { tier: label })}</label>
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
        <label htmlFor={id("description")}>{t("dashboard.gigForm.packageDescription", { tier: label })}</label>
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
        <label htmlFor={id("price")}>{t("dashboard.gigForm.packagePrice", { tier: label })}</label>
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
        <label htmlFor={id("delivery")}>{t("dashboard.gigForm.packageDelivery", { tier: label })}</label>
        <select id={id("delivery")} name={name("delivery")} defaultValue={value("delivery")} {...invalid(errors, name("delivery"))}>
          <option value="">{t("dashboard.gigForm.chooseDelivery")}</option>
          {DELIVERY_DAYS[tier].map((d) => (
            <option key={d} value={d}>
              {t("dashboard.gigForm.days", { count: d })}
            </option>
          ))}
        </select>
        <Errors errors={errors} name={name("delivery")} />
      </div>
      <div className="field">
        <label htmlFor={id("revisions")}>{t("dashboard.gigForm.packageRevisions", { tier: label })}</label>
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
        <label htmlFor={id("features")}>{t("dashboard.gigForm.packageFeatures", { tier: label })}</label>
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
