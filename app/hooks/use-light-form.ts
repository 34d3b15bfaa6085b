/**
 * A form checked by its schema as useSchemaForm checks one (app/hooks/use-schema-form.ts), without Conform's
 * form state in the page's code: for forms of a few plain fields checked when they are sent, such as checkout
 * and the order page's steps. Conform's runtime (about 9 KB compressed) put those pages over their 100 KB first view
 * (`npm run bench:pages`); here it comes with the schema, the first time focus enters the form.
 *
 * What it gives is what Conform's useForm gives such a form, and the same markup: the fields' ids, names and
 * constraints (the browser's own checks, JavaScript or not), the server's answer (its words beside each field
 * and the values sent, filled in again), and, once the schema is here, the schema's check before sending: a
 * form that fails it is not sent, says why beside each field and puts the focus on the first. Nothing is
 * checked as it is typed (Conform's "onSubmit", which these forms used).
 */
import type { SubmissionResult } from "@conform-to/react";
import { useState, type FormEvent } from "react";
import type { z } from "zod";
import type { FieldLike } from "~/components/forms";
import { useOnFirstFocus, type Validate } from "~/hooks/use-on-first-focus";
import type { FormConstraint } from "~/schemas/form-constraint";

type Reply = SubmissionResult<string[]>;

export type LightForm = {
  id: string;
  /** What Conform's getFormProps gives the `<form>` (its own messages, not a field's, are said at the page's top). */
  props: { id: string; onSubmit: (event: FormEvent<HTMLFormElement>) => void; noValidate: boolean; "aria-describedby"?: string };
  /** The form's own messages (an operation's refusal), for a page that says them beside the form. */
  errorId: string;
  errors: string[] | undefined;
};

type Options<S extends z.ZodTypeAny> = {
  id: string;
  /** The action's answer to this form, if it was the one sent. */
  lastResult: Reply | undefined;
  /** From the loader: `getFormConstraint(schema)`. */
  constraint: FormConstraint;
  /** A dynamic import of the schema, e.g. `() => import("~/schemas/order").then((m) => m.DeliverSchema)`. */
  schema: () => Promise<S>;
  /** Leave the typed values as strings for the schema to coerce (see AS_TYPED in order-steps). */
  asTyped?: boolean;
};

export function useLightForm<S extends z.ZodTypeAny>({ id, lastResult, constraint, schema, asTyped }: Options<S>) {
  // Fetched here, not in the shared hook, so its list of files stays in this page's code (as useSchemaForm's in Conform's).
  const validate = useOnFirstFocus(id, (): Promise<Validate<S>> =>
    Promise.all([schema(), import("@conform-to/zod")]).then(
      ([loaded, { parseWithZod }]) =>
        (formData) =>
          parseWithZod(formData, { schema: loaded, disableAutoCoercion: asTyped }),
    ),
  );
  // The browser's check of the last try, until the server answers again.
  const [checked, setChecked] = useState<{ after: Reply | undefined; result: Reply } | null>(null);
  const result = checked && checked.after === lastResult ? checked.result : lastResult;
  const errors = (result?.error ?? {}) as Record<string, string[] | null>;
  const initial = (lastResult?.initialValue ?? {}) as Record<string, unknown>;

  const onSubmit = (event: FormEvent<HTMLFormElement>) => {
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    // Before the schema is here the browser has checked the constraints, and the server checks the rest.
    if (!validate || submitter?.formNoValidate) return;
    const form = event.currentTarget;
    const submission = validate(new FormData(form));
    if (submission.status === "success") return;
    event.preventDefault();
    const reply = submission.reply() as Reply;
    setChecked({ after: lastResult, result: reply });
    const wrong = Array.from(form.elements).find((el) => (el as HTMLInputElement).name && reply.error?.[(el as HTMLInputElement).name]?.length);
    (wrong as HTMLElement | undefined)?.focus();
  };

  const formErrors = errors[""] ?? undefined;
  const form: LightForm = {
    id,
    // Until the schema is here, the browser's own checks stay on (Conform marks a hydrated form `novalidate`).
    props: { id, onSubmit, noValidate: validate !== null, ...(formErrors ? { "aria-describedby": `${id}-error` } : {}) },
    errorId: `${id}-error`,
    errors: formErrors,
  };
  const field = (name: string): FieldLike => {
    const fieldId = `${id}-${name}`;
    const fieldErrors = errors[name] ?? undefined;
    return {
      ...constraint[name],
      key: undefined,
      id: fieldId,
      name,
      formId: id,
      errorId: `${fieldId}-error`,
      descriptionId: `${fieldId}-description`,
      initialValue: initial[name],
      errors: fieldErrors,
      valid: !fieldErrors?.length,
    };
  };
  const fields = new Proxy({} as Record<keyof z.input<S> & string, FieldLike>, { get: (_, name) => (typeof name === "string" ? field(name) : undefined) });
  return [form, fields] as const;
}
