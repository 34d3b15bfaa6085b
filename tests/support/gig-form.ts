/**
 * The gig form as a seller fills it in: one place that knows which fields a valid, publishable gig sends
 * (a tests' factory, like analytics-events.ts). Its category is one a migration makes (ADR 026), so every
 * test database has it.
 */
export const LOGO_CATEGORY = { slug: "graphics-design", name: "Graphics & Design" };

export const VALID_GIG_FIELDS: Readonly<Record<string, string>> = {
  title: "I will design a modern logo for your business",
  category: LOGO_CATEGORY.slug,
  description: "Three logo concepts, your colours, and the files you need for print and the web.",
  "basic.name": "Starter",
  "basic.price": "75000",
  "basic.delivery": "3",
  "basic.revisions": "2",
  intent: "publish",
};

/** The multipart form a browser sends: the fields, then each image as an `upload` file (PNG). */
export function gigFormData(images: Buffer[] = [], fields: Record<string, string> = VALID_GIG_FIELDS): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  images.forEach((data, i) => form.append("upload", new Blob([new Uint8Array(data)], { type: "image/png" }), `image-${i}.png`));
  return form;
}
