/**
 * A form's schema check, fetched the first time focus enters the form (app/hooks/use-schema-form.ts says why:
 * zod and Conform's parser weigh more than a page's own code). Until it is here (or if its fetch failed) the
 * answer is null: the browser checks the form's constraints, and the server the rest.
 */
import type { Submission } from "@conform-to/react";
import { useEffect, useRef, useState } from "react";
import type { z } from "zod";

export type Validate<S extends z.ZodTypeAny> = (formData: FormData) => Submission<z.input<S>, string[], z.output<S>>;

/**
 * The check of form `formId` by `schema` (a dynamic import, e.g. `() => import("~/schemas/order").then((m) =>
 * m.DeliverSchema)`), once focus has entered the form; `asTyped` leaves the typed values as strings for the
 * schema to coerce (see AS_TYPED in app/components/order-steps.tsx).
 */
export function useSchemaOnFocus<S extends z.ZodTypeAny>(formId: string, schema: () => Promise<S>, asTyped?: boolean): Validate<S> | null {
  const [validate, setValidate] = useState<Validate<S> | null>(null);
  const requested = useRef(false);
  useEffect(() => {
    const inForm = (target: EventTarget | null) => (target as { form?: HTMLFormElement | null } | null)?.form?.id === formId;
    const load = () => {
      if (requested.current) return;
      requested.current = true;
      Promise.all([schema(), import("@conform-to/zod")]).then(
        ([loaded, { parseWithZod }]) => setValidate(() => (formData: FormData) => parseWithZod(formData, { schema: loaded, disableAutoCoercion: asTyped })),
        () => (requested.current = false), // Offline, say: the server checks; the next focus tries again.
      );
    };
    const onFocusIn = (event: FocusEvent) => inForm(event.target) && load();
    if (inForm(document.activeElement)) load();
    document.addEventListener("focusin", onFocusIn);
    return () => document.removeEventListener("focusin", onFocusIn);
    // The schema and its options are fixed for a form's life.
  }, [formId]);
  return validate;
}
