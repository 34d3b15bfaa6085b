/**
 * Form pieces every account form shares: a labelled field with its message beside it, a password field whose
 * show/hide toggle exists only where JavaScript runs, and a submit button that says when it is busy.
 */
import { getInputProps, getTextareaProps, type FieldMetadata } from "@conform-to/react";
import { useNavigation } from "@remix-run/react";
import { useEffect, useState, type ReactNode } from "react";
import { sayMessage } from "~/i18n/message-key";
import { useT } from "~/i18n/react";
import type { FormConstraint } from "~/schemas/form-constraint";

/**
 * What a field component reads of a field: Conform's field metadata has it all, and so does a field of
 * useLightForm (app/hooks/use-light-form.ts), which has nothing more.
 */
export type FieldLike = FormConstraint[string] & {
  key?: string;
  id: string;
  name: string;
  formId: string;
  errorId: string;
  descriptionId: string;
  initialValue?: unknown;
  errors?: string[];
  valid: boolean;
};

type InputType = "text" | "email" | "password" | "url" | "number" | "tel" | "file";

/** A field's or form's messages: keyed ones (a schema's, an operation's field issue) in the reader's language. */
export function ErrorList({ id, errors }: { id?: string; errors?: string[] }) {
  const { t } = useT();
  if (!errors?.length) return null;
  return (
    <ul id={id} className="field-errors" role="alert">
      {errors.map((e) => (
        <li key={e}>{sayMessage(t, e)}</li>
      ))}
    </ul>
  );
}

export function Field({
  field,
  label,
  type = "text",
  hint,
  autoComplete,
  inputProps,
}: {
  field: FieldMetadata<unknown>;
  label: ReactNode;
  type?: InputType;
  hint?: ReactNode;
  autoComplete?: string;
  inputProps?: React.InputHTMLAttributes<HTMLInputElement>;
}) {
  const props = getInputProps(field as FieldMetadata<string>, { type: type as "text", ariaDescribedBy: hint ? `${field.id}-hint` : undefined });
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      {hint ? (
        <p id={`${field.id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      <input {...props} key={props.key} autoComplete={autoComplete} {...inputProps} />
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

/**
 * A file picker: the page's shared look for `<input type="file">` (app.css styles every one as a secondary
 * button, 44 px tall, with the browser's own text beside it naming the chosen file, JavaScript or not).
 */
export function FileField({
  id,
  name,
  label,
  hint,
  errors,
  inputProps,
}: {
  id: string;
  name: string;
  label: ReactNode;
  hint?: ReactNode;
  errors?: string[];
  inputProps?: React.InputHTMLAttributes<HTMLInputElement>;
}) {
  const described = [errors?.length ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ");
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {hint ? (
        <p id={`${id}-hint`} className="field-hint">
          {hint}
        </p>
      ) : null}
      <input
        id={id}
        name={name}
        type="file"
        className="file-input"
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={described || undefined}
        {...inputProps}
      />
      <ErrorList id={`${id}-error`} errors={errors} />
    </div>
  );
}

export function TextAreaField({ field, label, hint, rows = 4 }: { field: FieldLike; label: ReactNode; hint?: ReactNode; rows?: number }) {
  // The schema's constraints (required, maxLength) come with the props, as getInputProps gives an input its own.
  const props = getTextareaProps(field as FieldMetadata<string>);
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      {hint ? <p className="field-hint">{hint}</p> : null}
      <textarea {...props} key={props.key} rows={rows} />
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

/** A password input. The Show/Hide button is rendered only after hydration: without JavaScript it could not work. */
export function PasswordField({ field, label, autoComplete }: { field: FieldMetadata<unknown>; label: ReactNode; autoComplete: string }) {
  const { t } = useT();
  const [hydrated, setHydrated] = useState(false);
  const [shown, setShown] = useState(false);
  useEffect(() => setHydrated(true), []);
  const props = getInputProps(field as FieldMetadata<string>, { type: "password" });
  return (
    <div className="field">
      <label htmlFor={field.id}>{label}</label>
      <div className="password-row">
        <input {...props} key={props.key} defaultValue="" type={shown ? "text" : "password"} autoComplete={autoComplete} />
        {hydrated ? (
          <button
            type="button"
            className="button button-secondary button-small"
            aria-controls={field.id}
            aria-pressed={shown}
            onClick={() => setShown((s) => !s)}
          >
            {shown ? t("common.form.hide") : t("common.form.show")}
            <span className="visually-hidden"> {t("common.form.password")}</span>
          </button>
        ) : null}
      </div>
      <ErrorList id={field.errorId} errors={field.errors} />
    </div>
  );
}

/** Submit button; while this form's submission is in flight it is disabled and reads `pendingLabel`. */
export function SubmitButton({
  children,
  pendingLabel,
  name,
  value,
  formAction,
}: {
  children: ReactNode;
  pendingLabel: string;
  name?: string;
  value?: string;
  formAction?: string;
}) {
  const navigation = useNavigation();
  const pending = navigation.state === "submitting" && (!value || navigation.formData?.get(name ?? "") === value);
  return (
    <button type="submit" className="button" disabled={pending} aria-disabled={pending} name={name} value={value} formAction={formAction}>
      {pending ? pendingLabel : children}
    </button>
  );
}

export function FormMessage({ errors, success }: { errors?: string[]; success?: string | null }) {
  const { t } = useT();
  if (errors?.length) return <ErrorList errors={errors} />;
  if (success)
    return (
      <p className="form-success" role="status">
        {sayMessage(t, success)}
      </p>
    );
  return null;
}
