/**
 * The gig form (create and edit). Without JavaScript every button submits the form: Add tag, Remove, and
 * image removal come back with the form as it stands. With JavaScript those happen in place (Enter adds a
 * tag), the title shows a live counter, and Save as Draft / Publish Gig show their pending state.
 */
import { Form } from "@remix-run/react";
import { useEffect, useRef, useState, type KeyboardEvent } from "react";
import { ErrorList, SubmitButton } from "~/components/forms";
import type { GigFormErrors, GigFormState } from "~/utils/gig-form.server";
import { DELIVERY_DAYS, DESCRIPTION_MAX, MAX_IMAGES, MAX_TAGS, normaliseTags, TAG_MAX, TIER_LABEL, TIERS, TITLE_MAX, type Tier } from "~/utils/gig-schemas";
import { imageUrl } from "~/utils/media";

function useHydrated() {
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return hydrated;
}

const invalid = (errors: GigFormErrors, name: string) =>
  errors[name]?.length ? { "aria-invalid": true as const, "aria-describedby": `${name}-error` } : {};

function Errors({ errors, name }: { errors: GigFormErrors; name: string }) {
  return <ErrorList id={`${name}-error`} errors={errors[name]} />;
}

function Tags({ initial, errors }: { initial: string[]; errors: GigFormErrors }) {
  const hydrated = useHydrated();
  const [tags, setTags] = useState(initial);
  const [draft, setDraft] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  useEffect(() => setTags(initial), [initial]);

  function add() {
    const tag = draft.trim();
    if (tag.length > TAG_MAX) return setMessage(`Each tag can have at most ${TAG_MAX} characters`);
    const next = normaliseTags([...tags, tag]);
    if (next.length > MAX_TAGS) return setMessage(`A gig can have at most ${MAX_TAGS} tags`);
    setTags(next);
    setDraft("");
    setMessage(null);
  }
  const onKeyDown = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === "Enter") {
      e.preventDefault();
      add();
    }
  };
  const shown = message ? { ...errors, newTag: [message] } : errors;
  return (
    <fieldset className="field">
      <legend>Tags</legend>
      <p className="field-hint" id="tags-hint">
        Words buyers search for, such as “logo” or “Luganda”. Up to {MAX_TAGS} tags of {TAG_MAX} characters.
      </p>
      <ul className="tag-list tag-editor" aria-label="Tags">
        {tags.map((tag, i) => (
          <li key={`${tag}-${i}`}>
            <input type="hidden" name="tags" value={tag} />
            {tag}{" "}
            <button
              type="submit"
              name="intent"
              value={`remove-tag:${i}`}
              className="link-button"
              aria-label={`Remove tag ${tag}`}
              formNoValidate
              onClick={hydrated ? (e) => (e.preventDefault(), setTags(tags.filter((_, j) => j !== i))) : undefined}
            >
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
          onKeyDown={hydrated ? onKeyDown : undefined}
          aria-describedby="tags-hint"
          {...invalid(shown, "newTag")}
        />
        <button
          type="submit"
          name="intent"
          value="add-tag"
          className="button button-secondary button-small"
          formNoValidate
          onClick={hydrated ? (e) => (e.preventDefault(), add()) : undefined}
        >
          Add tag
        </button>
      </div>
      <Errors errors={shown} name="newTag" />
      <Errors errors={errors} name="tags" />
    </fieldset>
  );
}

function Images({ initial, errors }: { initial: string[]; errors: GigFormErrors }) {
  const hydrated = useHydrated();
  const [images, setImages] = useState(initial);
  const fileInput = useRef<HTMLInputElement>(null);
  // The server stores chosen files on every submit and answers with their keys: once it has, the file
  // input is cleared, or the next submit would upload the same picture again.
  useEffect(() => {
    setImages(initial);
    if (fileInput.current) fileInput.current.value = "";
  }, [initial]);
  return (
    <fieldset className="field">
      <legend>Gallery</legend>
      <p className="field-hint" id="upload-hint">
        Up to {MAX_IMAGES} images: JPEG, PNG or WebP, at most 5 MB each. The first is the cover.
      </p>
      {images.length ? (
        <ul className="image-editor" aria-label="Gallery images">
          {images.map((key, i) => (
            <li key={key}>
              <input type="hidden" name="images" value={key} />
              <img src={imageUrl(key, "thumb")} alt={`Gallery image ${i + 1}`} width={160} height={90} />
              <button
                type="submit"
                name="intent"
                value={`remove-image:${key}`}
                className="link-button"
                formNoValidate
                onClick={hydrated ? (e) => (e.preventDefault(), setImages(images.filter((k) => k !== key))) : undefined}
              >
                Remove image {i + 1}
              </button>
            </li>
          ))}
        </ul>
      ) : null}
      <label htmlFor="upload">Add images</label>
      <input ref={fileInput} id="upload" name="upload" type="file" accept="image/jpeg,image/png,image/webp" multiple aria-describedby="upload-hint" {...invalid(errors, "upload")} />
      <Errors errors={errors} name="upload" />
      <Errors errors={errors} name="images" />
    </fieldset>
  );
}

function PackageFields({ tier, values, errors }: { tier: Tier; values: GigFormState["packages"][Tier]; errors: GigFormErrors }) {
  const label = TIER_LABEL[tier];
  const id = (f: string) => `${tier}-${f}`;
  const name = (f: string) => `${tier}.${f}`;
  return (
    <fieldset className="package-fields">
      <legend>
        {label} {tier === "basic" ? "(required to publish)" : "(optional)"}
      </legend>
      <div className="field">
        <label htmlFor={id("name")}>{label} package name</label>
        <input id={id("name")} name={name("name")} type="text" maxLength={60} defaultValue={values.name} placeholder={label} {...invalid(errors, name("name"))} />
        <Errors errors={errors} name={name("name")} />
      </div>
      <div className="field">
        <label htmlFor={id("description")}>{label} description</label>
        <textarea id={id("description")} name={name("description")} rows={2} maxLength={600} defaultValue={values.description} {...invalid(errors, name("description"))} />
        <Errors errors={errors} name={name("description")} />
      </div>
      <div className="field">
        <label htmlFor={id("price")}>{label} price (UGX)</label>
        <input id={id("price")} name={name("price")} type="text" inputMode="numeric" defaultValue={values.price} placeholder="75000" {...invalid(errors, name("price"))} />
        <Errors errors={errors} name={name("price")} />
      </div>
      <div className="field">
        <label htmlFor={id("delivery")}>{label} delivery</label>
        <select id={id("delivery")} name={name("delivery")} defaultValue={values.delivery} {...invalid(errors, name("delivery"))}>
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
        <input id={id("revisions")} name={name("revisions")} type="number" min={0} max={20} defaultValue={values.revisions} placeholder="1" {...invalid(errors, name("revisions"))} />
        <Errors errors={errors} name={name("revisions")} />
      </div>
      <div className="field">
        <label htmlFor={id("features")}>{label} features (one per line)</label>
        <textarea id={id("features")} name={name("features")} rows={3} defaultValue={values.features} {...invalid(errors, name("features"))} />
        <Errors errors={errors} name={name("features")} />
      </div>
    </fieldset>
  );
}

export function GigForm({ state, errors, categories }: { state: GigFormState; errors: GigFormErrors; categories: { slug: string; name: string }[] }) {
  const [titleLength, setTitleLength] = useState(state.title.length);
  useEffect(() => setTitleLength(state.title.length), [state.title]);
  return (
    <Form method="post" encType="multipart/form-data" className="gig-form" noValidate>
      <ErrorList errors={errors.form} />
      <div className="field">
        <label htmlFor="title">Title</label>
        <input
          id="title"
          name="title"
          type="text"
          maxLength={TITLE_MAX}
          defaultValue={state.title}
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
        <select id="category" name="category" defaultValue={state.category} {...invalid(errors, "category")}>
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
        <textarea id="description" name="description" rows={8} maxLength={DESCRIPTION_MAX} defaultValue={state.description} {...invalid(errors, "description")} />
        <Errors errors={errors} name="description" />
      </div>
      <Tags initial={state.tags} errors={errors} />
      <Images initial={state.images} errors={errors} />
      <h2>Packages</h2>
      <div className="package-grid">
        {TIERS.map((tier) => (
          <PackageFields key={tier} tier={tier} values={state.packages[tier]} errors={errors} />
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
