/**
 * Reading the forms of an order's page (app/routes/orders_.$id.tsx): the delivery form is multipart (it
 * carries files, limited per file and per body), the others plain; where a successful step goes back to; and
 * the browser's checks of those forms.
 */
import type { OrderFormConstraints } from "~/components/order-steps";
import { ApproveSchema, CancelSchema, DeliverSchema, DisputeSchema, RevisionSchema } from "~/schemas/order";
import { formConstraints } from "~/schemas/form-constraint";
import { ReviewSchema } from "~/schemas/review";
import { safeRedirect } from "~/server/auth.server";
import { ORDER_FILES_BODY_LIMIT } from "~/server/body-limit.server";
import { MAX_ORDER_FILE_BYTES } from "~/server/files/order-files.server";
import { formRefusal, readFormData, readMultipartForm, UNREADABLE_FORM } from "~/server/form-data.server";

/** The deliver form is multipart (it carries files); the others are plain forms. */
export async function readOrderForm(request: Request) {
  const multipart = /^\s*multipart\/form-data\s*(;|$)/i.test(request.headers.get("Content-Type") ?? "");
  if (!multipart) return { form: await readFormData(request), files: [] as File[], oversized: [] as string[] };
  const read = await readMultipartForm(request, { maxFileBytes: MAX_ORDER_FILE_BYTES, maxBodyBytes: ORDER_FILES_BODY_LIMIT });
  if (read === "malformed") throw await formRefusal(request, 400, UNREADABLE_FORM);
  if (read === "too-large") return "too-large" as const;
  // The files are taken out of the form: the schemas read its words, storeOrderFiles the files.
  const files = read.form.getAll("files").filter((f): f is File => typeof f !== "string");
  read.form.delete("files");
  return { form: read.form, files, oversized: read.oversized };
}

/** A success goes back where the form came from: the order's page, or the /orders list it was posted from. */
export function backTo(value: FormDataEntryValue | null, orderId: number) {
  const page = `/orders/${orderId}`;
  const to = safeRedirect(value, page);
  return to === "/orders" || to.startsWith("/orders?") || to.startsWith(`${page}`) ? to : page;
}

/** The browser's checks of the page's step forms (required, lengths), from the schemas the action parses with. */
export function orderFormConstraints(): OrderFormConstraints {
  return formConstraints({
    deliver: DeliverSchema,
    revision: RevisionSchema,
    approve: ApproveSchema,
    cancel: CancelSchema,
    dispute: DisputeSchema,
    review: ReviewSchema,
  });
}
