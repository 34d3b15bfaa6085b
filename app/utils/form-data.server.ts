/**
 * Form bodies as our actions read them. Control characters other than tab and line breaks are never part of
 * what a person types, and Postgres refuses NUL in text outright (a 500 if it reached a query), so they are
 * removed from every string value here, once, before any schema sees them.
 */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g;

export function cleanFormData(form: FormData): FormData {
  const clean = new FormData();
  for (const [name, value] of form.entries()) clean.append(name.replace(CONTROL, ""), typeof value === "string" ? value.replace(CONTROL, "") : value);
  return clean;
}

/** `request.formData()` with control characters removed from every value. */
export async function readFormData(request: Request): Promise<FormData> {
  return cleanFormData(await request.formData());
}
