/**
 * The forms of an order's page (app/routes/orders_.$id.tsx), one per step the state machine offers its
 * viewer: deliver, ask for a revision, approve (two clicks), review, cancel or ask to (two clicks), open a
 * dispute (two clicks). Each posts to the order's page with its `intent`, checked in the browser by the same
 * schema the action parses (loaded once the form is used: app/hooks/use-light-form.ts); the page shows each
 * only when the step is among the viewer's actions.
 */
import type { SubmissionResult } from "@conform-to/react";
import { Form } from "@remix-run/react";
import type { z } from "zod";
import { ErrorList, TextAreaField } from "~/components/forms";
import { Link } from "~/components/link";
import { OrderButton } from "~/components/order-buttons";
import { APPROVE_CONFIRMATION, type OrderAction } from "~/domain/order-rules";
import { RATING_MAX, RATING_MIN } from "~/domain/review-rules";
import { useLightForm } from "~/hooks/use-light-form";
import type { FormConstraint } from "~/schemas/form-constraint";
import { T, useT } from "~/i18n/react";

/**
 * The schemas coerce their own numbers; an empty text box stays "" (Conform would make it undefined), so
 * it meets the schema's own words ("Tell us what went wrong") rather than zod's bare "Required".
 */
export const AS_TYPED = true;

/** What the action answered a form: Conform's reply. */
type Reply = SubmissionResult<string[]>;

/** The delivery form's hint: the rules of order files (server code, so they travel as the loader's data). */
export type OrderFileRules = { maxFiles: number; maxMb: number };

/** The order page's forms, each checked by its schema: the loader's `constraints` name them. */
const schemas = {
  deliver: () => import("~/schemas/order").then((m) => m.DeliverSchema),
  revision: () => import("~/schemas/order").then((m) => m.RevisionSchema),
  approve: () => import("~/schemas/order").then((m) => m.ApproveSchema),
  cancel: () => import("~/schemas/order").then((m) => m.CancelSchema),
  dispute: () => import("~/schemas/order").then((m) => m.DisputeSchema),
  review: () => import("~/schemas/review").then((m) => m.ReviewSchema),
};
export type OrderForm = keyof typeof schemas;
export type OrderFormConstraints = Record<OrderForm, FormConstraint>;

/** The step forms an order's page shows its reader: one for each step the state machine offers them now. */
export function stepForms(actions: Iterable<OrderAction>, hasGig: boolean): Set<OrderForm> {
  const can = new Set(actions);
  const shown = new Set<OrderForm>();
  if (can.has("deliver")) shown.add("deliver");
  if (can.has("request_revision")) shown.add("revision");
  if (can.has("approve")) shown.add("approve");
  if (can.has("review") && hasGig) shown.add("review");
  if (can.has("cancel") || can.has("request_cancel")) shown.add("cancel");
  if (can.has("dispute")) shown.add("dispute");
  return shown;
}

/**
 * The words of each step form, which the page sends only with the form (`areasShown` in its loader): its own
 * area `orders.steps.<form>`, and for the review the review's checks.
 */
export const STEP_WORDS: Record<OrderForm, readonly string[]> = {
  deliver: ["orders.steps.deliver"],
  revision: ["orders.steps.revision"],
  approve: ["orders.steps.approve"],
  review: ["orders.steps.review", "orders.review"],
  cancel: ["orders.steps.cancel"],
  dispute: ["orders.steps.dispute"],
};

/**
 * The form of one of the order's schemas: the browser checks what the server will, JavaScript or not (a
 * light form: Conform's runtime comes with the schema, when the form is first used).
 */
function useOrderForm<S extends z.ZodTypeAny>(id: string, schema: () => Promise<S>, constraint: FormConstraint, reply: Reply | undefined) {
  return useLightForm({ id, lastResult: reply, constraint, schema, asTyped: AS_TYPED });
}

export function DeliverForm({ orderId, rules, constraint, reply }: { orderId: number; rules: OrderFileRules; constraint: FormConstraint; reply?: Reply }) {
  const [form, fields] = useOrderForm("deliver-form", schemas.deliver, constraint, reply);
  const fileErrors = (reply?.error as Record<string, string[] | null> | undefined)?.files ?? undefined;
  const { t } = useT();
  return (
    <section className="order-step" id="deliver" aria-labelledby="deliver-title">
      <h2 id="deliver-title">{t("orders.steps.deliver.title")}</h2>
      <Form method="post" action={`/orders/${orderId}`} encType="multipart/form-data" className="form-card" {...form.props}>
        <input type="hidden" name="orderId" value={orderId} />
        <TextAreaField field={fields.message} label={t("orders.steps.deliver.message")} hint={t("orders.steps.deliver.hint")} rows={5} />
        <div className="field">
          <label htmlFor="deliver-files">{t("orders.files.optional")}</label>
          <p className="field-hint" id="deliver-files-hint">
            {t("orders.steps.deliver.files", { max: rules.maxFiles, mb: rules.maxMb, types: t("orders.files.types") })}
          </p>
          <input
            id="deliver-files"
            name="files"
            type="file"
            multiple
            aria-describedby={fileErrors ? "deliver-files-error deliver-files-hint" : "deliver-files-hint"}
            aria-invalid={fileErrors ? true : undefined}
          />
          <ErrorList id="deliver-files-error" errors={fileErrors} />
        </div>
        <OrderButton orderId={orderId} intent="deliver" pendingLabel={t("orders.steps.deliver.pending")}>
          {t("orders.steps.deliver.submit")}
        </OrderButton>
      </Form>
    </section>
  );
}

export function RevisionForm({ orderId, constraint, reply }: { orderId: number; constraint: FormConstraint; reply?: Reply }) {
  const [form, fields] = useOrderForm("revision-form", schemas.revision, constraint, reply);
  const { t } = useT();
  return (
    <div id="revision">
      <Form method="post" action={`/orders/${orderId}`} className="form-card" {...form.props}>
        <input type="hidden" name="orderId" value={orderId} />
        <TextAreaField field={fields.reason} label={t("orders.steps.revision.reason")} />
        <OrderButton orderId={orderId} intent="request_revision" pendingLabel={t("orders.steps.revision.pending")} secondary>
          {t("orders.steps.revision.submit")}
        </OrderButton>
      </Form>
    </div>
  );
}

export function ReviewForm({ orderId, gigId, constraint, reply }: { orderId: number; gigId: number; constraint: FormConstraint; reply?: Reply }) {
  const [form, fields] = useOrderForm("review-form", schemas.review, constraint, reply);
  const stars = Array.from({ length: RATING_MAX - RATING_MIN + 1 }, (_, i) => RATING_MAX - i);
  const ratingErrors = fields.rating.errors;
  const { t } = useT();
  return (
    <section className="order-step" id="review" aria-labelledby="review-title">
      <h2 id="review-title">{t("orders.steps.review.title")}</h2>
      <Form method="post" action={`/orders/${orderId}`} className="form-card" {...form.props}>
        <input type="hidden" name="orderId" value={orderId} />
        <input type="hidden" name="gigId" value={gigId} />
        <fieldset className="field rating-field" aria-describedby={ratingErrors ? fields.rating.errorId : undefined}>
          <legend>{t("orders.steps.review.rating")}</legend>
          {stars.map((n) => (
            <div className="checkbox" key={n}>
              <input
                type="radio"
                id={`rating-${n}`}
                name="rating"
                value={n}
                required={n === RATING_MAX}
                defaultChecked={fields.rating.initialValue === String(n)}
              />
              <label htmlFor={`rating-${n}`}>{t("orders.steps.review.stars", { count: n })}</label>
            </div>
          ))}
          <ErrorList id={fields.rating.errorId} errors={ratingErrors} />
        </fieldset>
        <TextAreaField field={fields.comment} label={t("orders.steps.review.comment")} hint={t("orders.steps.review.commentHint")} />
        <OrderButton orderId={orderId} intent="review" pendingLabel={t("orders.steps.review.pending")}>
          {t("orders.steps.review.submit")}
        </OrderButton>
      </Form>
    </section>
  );
}

/**
 * Approve, in two clicks: the first (a link, so it works without JavaScript) opens the confirmation, which
 * says what is released to whom; only its form carries the confirmation the action asks for.
 */
export function ApproveStep({
  orderId,
  sellerName,
  releasedText,
  paidText,
  open,
  constraint,
  reply,
}: {
  orderId: number;
  sellerName: string;
  releasedText: string;
  paidText: string;
  open: boolean;
  constraint: FormConstraint;
  reply?: Reply;
}) {
  const [form, fields] = useOrderForm("approve-form", schemas.approve, constraint, reply);
  const { t } = useT();
  if (!open) {
    // The banner at the top offers "Approve delivery…" too; this one sits below the work it approves.
    return (
      <p id="approve">
        <Link to={`/orders/${orderId}?confirm=approve#approve`} className="button button-small" preventScrollReset>
          {t("orders.steps.approve.open")}
        </Link>
      </p>
    );
  }
  return (
    <div className="order-confirm" id="approve">
      <Form method="post" action={`/orders/${orderId}`} aria-labelledby="approve-question" {...form.props}>
        <input type="hidden" name="orderId" value={orderId} />
        <input type="hidden" name={fields.confirm.name} value={APPROVE_CONFIRMATION} />
        <p className="order-confirm-question" id="approve-question">
          <strong>{t("orders.steps.approve.question", { amount: releasedText, name: sellerName })}</strong>
        </p>
        <p>{t("orders.steps.approve.text", { paid: paidText })}</p>
        <ErrorList id={fields.confirm.errorId} errors={fields.confirm.errors} />
        <div className="order-actions">
          <OrderButton orderId={orderId} intent="approve" pendingLabel={t("orders.steps.approve.pending")}>
            {t("orders.steps.approve.submit", { amount: releasedText })}
          </OrderButton>
          <Link to={`/orders/${orderId}#respond`} preventScrollReset>
            {t("orders.steps.approve.notYet")}
          </Link>
        </div>
      </Form>
    </div>
  );
}

/**
 * Cancel, in two clicks: a link opens the form (a reason is asked: the other party reads it), which then
 * cancels a late order outright or sends the other party the request.
 */
export function CancelStep({
  d,
  late,
  open,
  constraint,
  reply,
}: {
  d: { order: { id: number }; role: "buyer" | "seller" };
  late: boolean;
  open: boolean;
  constraint: FormConstraint;
  reply?: Reply;
}) {
  const [form, fields] = useOrderForm("cancel-form", schemas.cancel, constraint, reply);
  const orderId = d.order.id;
  const otherRole = d.role === "buyer" ? "seller" : "buyer";
  const { t } = useT();
  return (
    <section className="order-step" id="cancel" aria-labelledby="cancel-title">
      <h2 id="cancel-title">{late ? t("orders.steps.cancel.title") : t("orders.steps.cancel.askTitle")}</h2>
      {open ? (
        <Form method="post" action={`/orders/${orderId}`} className="form-card" {...form.props}>
          <input type="hidden" name="orderId" value={orderId} />
          <input type="hidden" name="expected" value={late ? "cancel" : "request_cancel"} />
          <p>{late ? t("orders.steps.cancel.lateText") : t("orders.steps.cancel.askText", { role: otherRole })}</p>
          <TextAreaField field={fields.reason} label={t("orders.steps.cancel.reason")} rows={3} />
          <div className="order-actions">
            <OrderButton orderId={orderId} intent="cancel" pendingLabel={late ? t("orders.steps.cancel.cancelling") : t("orders.steps.cancel.sending")}>
              {late ? t("orders.steps.cancel.confirm") : t("orders.steps.cancel.sendRequest")}
            </OrderButton>
            <Link to={`/orders/${orderId}`} preventScrollReset>
              {t("orders.steps.cancel.keepOrder")}
            </Link>
          </div>
        </Form>
      ) : (
        <p>
          <Link to={`/orders/${orderId}?confirm=cancel#cancel`} preventScrollReset>
            {late ? t("orders.steps.cancel.open") : t("orders.steps.cancel.askOpen")}
          </Link>
        </p>
      )}
    </section>
  );
}

/** A dispute, in two clicks: an admin will read the reason, and both parties wait for their decision. */
export function DisputeStep({ orderId, open, constraint, reply }: { orderId: number; open: boolean; constraint: FormConstraint; reply?: Reply }) {
  const [form, fields] = useOrderForm("dispute-form", schemas.dispute, constraint, reply);
  const { t } = useT();
  return (
    <section className="order-step" id="dispute" aria-labelledby="dispute-title">
      <h2 id="dispute-title">{t("orders.steps.dispute.title")}</h2>
      {open ? (
        <Form method="post" action={`/orders/${orderId}`} className="form-card" {...form.props}>
          <input type="hidden" name="orderId" value={orderId} />
          <p>{t("orders.steps.dispute.text")}</p>
          <TextAreaField field={fields.reason} label={t("orders.steps.dispute.reason")} />
          <div className="order-actions">
            <OrderButton orderId={orderId} intent="dispute" pendingLabel={t("orders.steps.dispute.pending")}>
              {t("orders.steps.dispute.submit")}
            </OrderButton>
            <Link to={`/orders/${orderId}`} preventScrollReset>
              {t("orders.steps.dispute.neverMind")}
            </Link>
          </div>
        </Form>
      ) : (
        <p>
          <T id="orders.steps.dispute.first" components={{ 0: <Link to={`/orders/${orderId}?confirm=dispute#dispute`} /> }} />
        </p>
      )}
    </section>
  );
}
