/**
 * The browser's own checks for a Conform form (required, minLength, maxLength, min, max, pattern), from the
 * zod schema the server parses with, so a form is checked before it is sent even without JavaScript.
 * `useForm({ constraint: getFormConstraint(schema), defaultNoValidate: false, ... })`: Conform renders the
 * form `novalidate` on the server unless told otherwise, which would leave the checks to JavaScript;
 * once hydrated, Conform checks with the schema itself and says why beside each field.
 */
import { getZodConstraint } from "@conform-to/zod";
import { z } from "zod";

/**
 * Each schema's constraints, worked out once: loaders hand them to their pages on every request (sign-in among
 * the busiest), and a schema never changes. Shared, so never changed by a caller (they only serialise them).
 */
const worked = new WeakMap<z.ZodTypeAny, ReturnType<typeof getZodConstraint>>();

/**
 * Conform's getZodConstraint, with one difference: a `.pipe()` is constrained by what goes into it (what
 * the person types) where Conform reads what comes out. Our pipes tidy the typing first: the mobile-money
 * number drops spaces before its pattern (Conform would make the browser refuse "+256 772 123456", which
 * the server takes), and a comma-separated list becomes an array (Conform would mark one text box
 * `multiple` and lose its length cap).
 */
export function getFormConstraint(schema: z.ZodTypeAny) {
  let constraint = worked.get(schema);
  if (!constraint) worked.set(schema, (constraint = getZodConstraint(asTyped(schema))));
  return constraint;
}

export type FormConstraint = ReturnType<typeof getFormConstraint>;

/** The constraints of several forms at once, for a loader to hand to useSchemaForm (app/hooks/use-schema-form.ts). */
export function formConstraints<K extends string>(schemas: Record<K, z.ZodTypeAny>): Record<K, FormConstraint> {
  return Object.fromEntries(Object.entries<z.ZodTypeAny>(schemas).map(([key, schema]) => [key, getFormConstraint(schema)])) as Record<K, FormConstraint>;
}

/** The schema as the form's fields see it: every pipe replaced by its input side. */
function asTyped(schema: z.ZodTypeAny): z.ZodTypeAny {
  if (schema instanceof z.ZodPipeline) return asTyped(schema._def.in);
  // Refinements and transforms keep the checks of what they wrap; a default makes a field optional.
  if (schema instanceof z.ZodEffects) return asTyped(schema.innerType());
  if (schema instanceof z.ZodDefault) return asTyped(schema.removeDefault()).optional();
  if (schema instanceof z.ZodOptional) return asTyped(schema.unwrap()).optional();
  if (schema instanceof z.ZodObject) {
    const shape = schema.shape as Record<string, z.ZodTypeAny>;
    return z.object(Object.fromEntries(Object.entries(shape).map(([key, field]) => [key, asTyped(field)])));
  }
  return schema;
}
