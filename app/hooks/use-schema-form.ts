/**
 * Conform's form for a zod schema whose code reaches the browser only when the form is first used.
 *
 * zod and @conform-to/zod weigh about 13 KB compressed, more than a page's own code: loaded with the page they
 * put checkout and the order page over their 100 KB first view (`npm run bench:pages`). So the page carries
 * only what its HTML needs: the browser's checks (`constraint`: required, lengths, patterns), worked out by
 * the loader from the same schema (app/schemas/form-constraint.ts). The schema itself is fetched the first
 * time focus enters the form; from then on the form is checked in the browser, with the schema's own words
 * beside each field, before it is sent. Until then the browser checks the constraints itself; sent before the
 * schema is here (or if its fetch failed), the server checks the rest and answers with the same words: the
 * server always decides.
 */
import { useForm } from "@conform-to/react";
import type { z } from "zod";
import { useOnFirstFocus, type Validate } from "~/hooks/use-on-first-focus";
import type { FormConstraint } from "~/schemas/form-constraint";

type Options<S extends z.ZodTypeAny> = Omit<Parameters<typeof useForm<z.input<S>, z.output<S>>>[0], "constraint" | "onValidate"> & {
  id: string;
  /** From the loader: `getFormConstraint(schema)`. */
  constraint: FormConstraint;
  /** A dynamic import of the schema, e.g. `() => import("~/schemas/order").then((m) => m.DeliverSchema)`. */
  schema: () => Promise<S>;
  /** Leave the typed values as strings for the schema to coerce (see AS_TYPED in order-steps). */
  asTyped?: boolean;
};

export function useSchemaForm<S extends z.ZodTypeAny>({ schema, asTyped, constraint, ...options }: Options<S>) {
  const validate = useOnFirstFocus(options.id, (): Promise<Validate<S>> =>
    Promise.all([schema(), import("@conform-to/zod")]).then(
      ([loaded, { parseWithZod }]) =>
        (formData) =>
          parseWithZod(formData, { schema: loaded, disableAutoCoercion: asTyped }),
    ),
  );
  const [form, fields] = useForm<z.input<S>, z.output<S>>({
    shouldValidate: "onSubmit",
    defaultNoValidate: false,
    ...options,
    constraint,
    onValidate: validate ? ({ formData }) => validate(formData) : undefined,
  });
  // Conform marks a hydrated form `novalidate` (it checks with the schema instead); until the schema is here the
  // browser's own checks stay on, so an empty required field is still stopped before it is sent.
  const checked = validate ? form : new Proxy(form, { get: (target, key) => (key === "noValidate" ? false : Reflect.get(target, key)) });
  return [checked, fields] as const;
}
