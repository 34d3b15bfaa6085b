/**
 * What a form needs only once it is used, fetched the first time focus enters the form: its schema's check
 * (app/hooks/use-schema-form.ts says why: zod and Conform's parser weigh more than a page's own code). Until it
 * is here (or if its fetch failed) the answer is null: the browser checks the form's constraints, and the
 * server the rest.
 */
import type { Submission } from "@conform-to/react";
import { useEffect, useRef, useState } from "react";
import type { z } from "zod";

/** A schema's check of a form's data, as Conform's zod parser makes it. */
export type Validate<S extends z.ZodTypeAny> = (formData: FormData) => Submission<z.input<S>, string[], z.output<S>>;

/**
 * `load()`'s answer, asked for once, the first time focus enters form `formId` (at once if it is there already).
 * `load` fetches what it needs itself (`import(…)` in the caller's module: here, it would bring its chunk's
 * list of files to every page with a form).
 */
export function useOnFirstFocus<T>(formId: string, load: () => Promise<T>): T | null {
  const [loaded, setLoaded] = useState<{ value: T } | null>(null);
  const requested = useRef(false);
  useEffect(() => {
    const inForm = (target: EventTarget | null) => (target as { form?: HTMLFormElement | null } | null)?.form?.id === formId;
    const start = () => {
      if (requested.current) return;
      requested.current = true;
      load().then(
        (value) => setLoaded({ value }),
        () => (requested.current = false), // Offline, say: the server checks; the next focus tries again.
      );
    };
    const onFocusIn = (event: FocusEvent) => inForm(event.target) && start();
    if (inForm(document.activeElement)) start();
    document.addEventListener("focusin", onFocusIn);
    return () => document.removeEventListener("focusin", onFocusIn);
    // What a form loads is fixed for its life.
  }, [formId]);
  return loaded ? loaded.value : null;
}
