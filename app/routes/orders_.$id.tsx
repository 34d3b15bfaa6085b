import { getFormProps, useForm, type SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData, useLocation, useNavigation, useRevalidator, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { useEffect, useRef } from "react";
import type { z } from "zod";
import { ErrorList, TextAreaField } from "~/components/forms";
import { ContactButton, daysText, OrderBadge, OrderButton, OrderPost } from "~/components/order-card";
import { OrderTimeline } from "~/components/order-timeline";
import { openDisputeOf } from "~/models/dispute.server";
import { findPartyOrder, listDeliveries, listOrderEvents, listOrderFiles, orderFacts, orderParties, type OrderFile } from "~/models/order.server";
import type { Failure } from "~/operations/core.server";
import { approveOrder, cancelOrder, declineCancel, deliverOrder, openDispute, requestRevision } from "~/operations/orders.server";
import { createReview } from "~/operations/reviews.server";
import { requireMemberActor, requireUser, safeRedirect } from "~/server/auth.server";
import { ORDER_FILES_BODY_LIMIT } from "~/server/body-limit.server";
import { getDb } from "~/server/db.server";
import { getFormConstraint } from "~/schemas/form-constraint";
import { readFormData, readMultipartForm, UNREADABLE_FORM } from "~/server/form-data.server";
import { actionHeaders } from "~/utils/headers";
import { formFailure } from "~/server/operation-results.server";
import {
  cleanFileName,
  InvalidOrderFileError,
  MAX_ORDER_FILE_BYTES,
  MAX_ORDER_FILES,
  ORDER_FILE_TYPES_TEXT,
  storeOrderFiles,
} from "~/server/files/order-files.server";
import { FINAL_STATUSES, orderActions, orderNumber, type OrderAction } from "~/domain/order-rules";
import { APPROVE_CONFIRMATION, ApproveSchema, CancelSchema, DeliverSchema, DisputeSchema, OrderIdSchema, RevisionSchema } from "~/schemas/order";
import { RATING_MAX, RATING_MIN, ReviewSchema } from "~/schemas/review";
import { refusalInit } from "~/server/files/upload-quota.server";
import { usePreferences } from "~/hooks/use-preferences";
import { formatPrice } from "~/domain/money";
import type { loader as rootLoader } from "~/root";

export const headers = actionHeaders;

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `${data.number}: ${data.order.gigTitle} | Soko` : "Order | Soko" }];

/** The forms of this page, told apart by their `intent`. */
const INTENTS = ["deliver", "request_revision", "approve", "cancel", "decline_cancel", "dispute", "review"] as const;
type Intent = (typeof INTENTS)[number];
const isIntent = (value: unknown): value is Intent => typeof value === "string" && (INTENTS as readonly string[]).includes(value);

/**
 * The steps that ask for words first show their form only after a click (`?confirm=`), as a short
 * confirmation; so does approving, which releases the payment and cannot be undone.
 */
const CONFIRMS = ["cancel", "dispute", "approve"] as const;
type Confirm = (typeof CONFIRMS)[number];

/**
 * The schemas coerce their own numbers; an empty text box stays "" (Conform would make it undefined), so
 * it meets the schema's own words ("Tell us what went wrong") rather than zod's bare "Required".
 */
const AS_TYPED = true;

const notFound = () => new Response("Not Found", { status: 404 });

/**
 * The order, for one of its two parties (its seller only once it is paid: partyRole); anyone else (an admin
 * too: they use the disputes screen) meets a 404.
 */
async function ownOrder(orderId: string | undefined, userId: number) {
  const own = await findPartyOrder(getDb(), Number(orderId), userId);
  if (!own) throw notFound();
  return own;
}

const fileView = (f: OrderFile) => ({ id: f.id, fileName: f.fileName, sizeBytes: f.sizeBytes });

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const { order, role } = await ownOrder(params.id, user.id);
  const db = getDb();
  const [facts, events, deliveries, files, dispute, parties] = await Promise.all([
    orderFacts(db, order),
    listOrderEvents(db, order.id),
    listDeliveries(db, order.id),
    listOrderFiles(db, order.id),
    openDisputeOf(db, order.id),
    orderParties(db, order),
  ]);
  const buyer = role === "buyer";
  const other = buyer ? parties.seller : parties.buyer;
  const confirm = new URL(request.url).searchParams.get("confirm");
  const cancelRequest = [...events].reverse().find((e) => e.kind === "cancel_requested");
  return {
    number: orderNumber(order.id),
    role,
    other,
    actions: [...orderActions(facts, user.id, new Date())],
    order: {
      id: order.id,
      gigId: order.gigId,
      gigTitle: order.gigTitle,
      packageName: order.packageName,
      status: order.status,
      requirements: order.requirements,
      deliveryDays: order.deliveryDays,
      revisionsAllowed: order.revisionsAllowed,
      revisionsUsed: order.revisionsUsed,
      dueAt: order.dueAt,
      createdAt: order.createdAt,
      // Each party sees their own side of the money: the buyer what they paid, the seller what they earn.
      priceUgx: order.priceUgx,
      feeUgx: buyer ? order.buyerFeeUgx : order.sellerFeeUgx,
      netUgx: buyer ? order.totalUgx : order.priceUgx - order.sellerFeeUgx,
      totalUgx: order.totalUgx,
      ugxPerUsd: order.ugxPerUsd,
    },
    cancelRequest:
      order.cancelRequestedBy === null ? null : { byMe: order.cancelRequestedBy === user.id, reason: cancelRequest?.reason ?? "" },
    dispute: dispute ? { byMe: dispute.openedBy === user.id, byRole: dispute.openedBy === order.buyerId ? "buyer" : "seller", reason: dispute.reason, at: dispute.createdAt } : null,
    requirementFiles: files.filter((f) => f.deliveryId === null).map(fileView),
    deliveries: deliveries.map((d) => ({ ...d, files: files.filter((f) => f.deliveryId === d.id).map(fileView) })),
    events,
    confirm: (CONFIRMS as readonly string[]).includes(confirm ?? "") ? (confirm as Confirm) : null,
    // The delivery form's hint (order-files.server.ts is server code: its rules travel as data).
    fileRules: { maxFiles: MAX_ORDER_FILES, maxMb: MAX_ORDER_FILE_BYTES / 1024 / 1024, types: ORDER_FILE_TYPES_TEXT },
  };
}

type Reply = SubmissionResult<string[]>;
type Answer = { intent: Intent; reply: Reply };

const TOO_LARGE = `Files can be at most ${MAX_ORDER_FILE_BYTES / 1024 / 1024} MB each, and at most ${MAX_ORDER_FILES} at once.`;

/** The deliver form is multipart (it carries files); the others are plain forms. */
async function readOrderForm(request: Request) {
  const multipart = /^\s*multipart\/form-data\s*(;|$)/i.test(request.headers.get("Content-Type") ?? "");
  if (!multipart) return { form: await readFormData(request), files: [] as File[], oversized: [] as string[] };
  const read = await readMultipartForm(request, { maxFileBytes: MAX_ORDER_FILE_BYTES, maxBodyBytes: ORDER_FILES_BODY_LIMIT });
  if (read === "malformed") throw new Response(UNREADABLE_FORM, { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  if (read === "too-large") return "too-large" as const;
  // The files are taken out of the form: the schemas read its words, storeOrderFiles the files.
  const files = read.form.getAll("files").filter((f): f is File => typeof f !== "string");
  read.form.delete("files");
  return { form: read.form, files, oversized: read.oversized };
}

/** A success goes back where the form came from: the order's page, or the /orders list it was posted from. */
function backTo(value: FormDataEntryValue | null, orderId: number) {
  const page = `/orders/${orderId}`;
  const to = safeRedirect(value, page);
  return to === "/orders" || to.startsWith("/orders?") || to.startsWith(`${page}`) ? to : page;
}

/**
 * Every step of the order, one intent each, through the order operations: they lock the order and ask the
 * state machine again, so a step the order has moved past answers 409 with the reason, shown at the top.
 * The order id is the page's own, whatever the form says.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const { order } = await ownOrder(params.id, actor.user.id);
  const read = await readOrderForm(request);
  if (read === "too-large") return data({ intent: "deliver", reply: { status: "error", error: { files: [TOO_LARGE] } } as Reply } satisfies Answer, { status: 413 });
  const { form, files, oversized } = read;
  const intent = form.get("intent");
  if (!isIntent(intent)) throw new Response("Choose what to do with this order.", { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  form.set("orderId", String(order.id));
  const back = backTo(form.get("redirectTo"), order.id);
  form.delete("redirectTo");

  const invalid = (reply: Reply, status = 400) => data({ intent, reply } satisfies Answer, { status });
  /** The operation's answer: back to the page on success, else its refusal beside the form or at the top. */
  const answer = (result: { ok: true } | Failure, reply: Parameters<typeof formFailure>[0]) => {
    if (result.ok) return redirect(back, 303);
    const refused = formFailure(reply, result);
    return data({ intent, reply: refused.data } satisfies Answer, refused.init ?? undefined);
  };
  const parse = <S extends z.ZodTypeAny>(schema: S) => parseWithZod(form, { schema, disableAutoCoercion: AS_TYPED });

  switch (intent) {
    case "deliver": {
      const submission = parse(DeliverSchema);
      const tooBig = oversized.map((name) => `${cleanFileName(name)} is over ${MAX_ORDER_FILE_BYTES / 1024 / 1024} MB`);
      if (submission.status !== "success") return invalid(submission.reply(tooBig.length ? { fieldErrors: { files: tooBig } } : undefined));
      if (tooBig.length) return invalid(submission.reply({ fieldErrors: { files: tooBig } }));
      let stored;
      try {
        stored = await storeOrderFiles(await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) }))), { userId: actor.user.id });
      } catch (error) {
        // A file we do not take (400), or over the seller's upload quota (429 with Retry-After).
        if (error instanceof InvalidOrderFileError) return data({ intent, reply: submission.reply({ fieldErrors: { files: [error.message] } }) } satisfies Answer, refusalInit(error));
        throw error;
      }
      return answer(await deliverOrder(actor, { ...submission.value, files: stored }), submission.reply);
    }
    case "request_revision": {
      const submission = parse(RevisionSchema);
      if (submission.status !== "success") return invalid(submission.reply());
      return answer(await requestRevision(actor, submission.value), submission.reply);
    }
    case "approve": {
      // Only from the confirmation that names the amount released (ApproveSchema): a bare approve is a 400.
      const submission = parse(ApproveSchema);
      if (submission.status !== "success") return invalid(submission.reply());
      return answer(await approveOrder(actor, submission.value), submission.reply);
    }
    case "cancel": {
      const submission = parse(CancelSchema);
      if (submission.status !== "success") return invalid(submission.reply());
      return answer(await cancelOrder(actor, submission.value), submission.reply);
    }
    case "decline_cancel": {
      const submission = parse(OrderIdSchema);
      if (submission.status !== "success") return invalid(submission.reply());
      return answer(await declineCancel(actor, submission.value), submission.reply);
    }
    case "dispute": {
      const submission = parse(DisputeSchema);
      if (submission.status !== "success") return invalid(submission.reply());
      return answer(await openDispute(actor, submission.value), submission.reply);
    }
    case "review": {
      // The review is of this order's gig: the page says which, not the form.
      if (order.gigId === null) throw notFound();
      form.set("gigId", String(order.gigId));
      const submission = parse(ReviewSchema);
      if (submission.status !== "success") return invalid(submission.reply());
      return answer(await createReview(actor, submission.value), submission.reply);
    }
  }
}

/**
 * While the order can still move, the page asks for it again every 10 seconds (only with JavaScript, only
 * while the tab is shown, never in the middle of a submission), so the other party's steps appear.
 */
function useLiveOrder(active: boolean) {
  const revalidator = useRevalidator();
  const navigation = useNavigation();
  const latest = useRef({ revalidator, navigation });
  latest.current = { revalidator, navigation };
  useEffect(() => {
    if (!active) return;
    let timer: ReturnType<typeof setInterval> | undefined;
    const refresh = () => {
      const { revalidator, navigation } = latest.current;
      if (revalidator.state === "idle" && navigation.state === "idle") revalidator.revalidate();
    };
    const start = () => {
      if (timer === undefined && document.visibilityState === "visible") timer = setInterval(refresh, 10_000);
    };
    const stop = () => {
      clearInterval(timer);
      timer = undefined;
    };
    const onVisibility = () => {
      if (document.visibilityState === "visible") {
        refresh();
        start();
      } else stop();
    };
    start();
    document.addEventListener("visibilitychange", onVisibility);
    return () => {
      stop();
      document.removeEventListener("visibilitychange", onVisibility);
    };
  }, [active]);
}

const sizeText = (bytes: number) => (bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MB` : `${Math.max(1, Math.round(bytes / 1024))} KB`);

function FileList({ orderId, files, label }: { orderId: number; files: { id: number; fileName: string; sizeBytes: number }[]; label: string }) {
  if (!files.length) return null;
  return (
    <ul className="order-files" aria-label={label}>
      {files.map((f) => (
        <li key={f.id}>
          <a href={`/orders/${orderId}/files/${f.id}`} download={f.fileName}>
            {f.fileName}
          </a>{" "}
          <span className="order-event-meta">({sizeText(f.sizeBytes)})</span>
        </li>
      ))}
    </ul>
  );
}

type Loaded = ReturnType<typeof useLoaderData<typeof loader>>;

export default function OrderPage() {
  const d = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // Each navigation (the redirect after a step) remounts the forms, so they come back empty.
  const { key } = useLocation();
  const { price, date, dateTime } = usePreferences();
  const { order } = d;
  // In USD an order's amounts are at the rate fixed at its checkout (orders.ugx_per_usd), not today's.
  const inUsd = useRouteLoaderData<typeof rootLoader>("root")?.currency?.code === "USD" && order.ugxPerUsd > 0;
  const orderPrice = (ugx: number) => (inUsd ? formatPrice(ugx, { code: "USD", ugxPerUsd: order.ugxPerUsd }) : price(ugx));
  const can = new Set<OrderAction>(d.actions);
  const buyer = d.role === "buyer";
  const replyOf = (intent: Intent) => (actionData?.intent === intent ? actionData.reply : undefined);
  const topErrors = (actionData?.reply.error?.[""] as string[] | null | undefined) ?? undefined;
  useLiveOrder(!FINAL_STATUSES.has(order.status));
  const otherRole = buyer ? "seller" : "buyer";

  return (
    <article className="container order-page" aria-labelledby="order-title">
      <p className="breadcrumbs">
        <Link to="/orders">Orders</Link> › {d.number}
      </p>
      <h1 id="order-title">{order.gigTitle}</h1>
      <p className="order-number">
        {d.number} <OrderBadge status={order.status} disputeOpen={d.dispute !== null} />
      </p>
      <div className="order-party">
        {buyer ? "Seller" : "Buyer"}:{" "}
        {d.other.username ? <Link to={`/user/${encodeURIComponent(d.other.username)}`}>{d.other.name}</Link> : d.other.name}
        {d.other.username ? (
          <>
            {" · "}
            <ContactButton orderId={order.id} />
          </>
        ) : null}
        {order.gigId !== null ? (
          <>
            {" · "}
            <Link to={`/gig/${order.gigId}`}>View Gig</Link>
          </>
        ) : null}
      </div>

      <ErrorList id="order-errors" errors={topErrors} />

      {d.dispute ? (
        <div className="notice" role="status">
          <p>
            <strong>This order is in dispute.</strong> {d.dispute.byMe ? "You" : `The ${d.dispute.byRole}`} opened it on {date(d.dispute.at)}: {d.dispute.reason}
          </p>
          <p>An admin will decide it, releasing the payment to the seller or refunding the buyer; both of you will be told.</p>
        </div>
      ) : null}

      {d.cancelRequest ? (
        <div className="notice" role="status" id="cancel-request">
          {d.cancelRequest.byMe ? (
            <p>
              You asked to cancel this order{d.cancelRequest.reason ? ` (${d.cancelRequest.reason})` : ""}. The {otherRole} has not answered yet.
            </p>
          ) : (
            <p>
              The {otherRole} asked to cancel{d.cancelRequest.reason ? `: ${d.cancelRequest.reason}` : ""}. If you agree, the order is cancelled and the buyer's
              payment is refunded.
            </p>
          )}
          <div className="order-actions">
            {can.has("agree_cancel") ? <OrderPost orderId={order.id} intent="cancel" label="Agree to cancel" pendingLabel="Cancelling…" /> : null}
            {can.has("decline_cancel") ? <OrderPost orderId={order.id} intent="decline_cancel" label="Decline" pendingLabel="Declining…" secondary /> : null}
            {can.has("withdraw_cancel") ? <OrderPost orderId={order.id} intent="decline_cancel" label="Withdraw request" pendingLabel="Withdrawing…" secondary /> : null}
          </div>
        </div>
      ) : null}

      {can.has("pay") ? (
        <div className="notice" role="status">
          <p>This order is waiting for your payment. The seller starts work once it is paid.</p>
          <div className="order-actions">
            <Link to={`/orders/${order.id}/pay`} className="button button-small">
              Complete payment
            </Link>
            {can.has("abandon") ? <OrderPost orderId={order.id} intent="cancel" label="Cancel order" pendingLabel="Cancelling…" secondary /> : null}
          </div>
        </div>
      ) : null}

      <h2>Summary</h2>
      <dl className="order-summary">
        <div>
          <dt>Package</dt>
          <dd>
            {order.packageName} · {daysText(order.deliveryDays)} delivery
          </dd>
        </div>
        <div>
          <dt>Price</dt>
          <dd>{orderPrice(order.priceUgx)}</dd>
        </div>
        <div>
          <dt>{buyer ? "Processing fee" : "Service fee"}</dt>
          <dd>{buyer ? orderPrice(order.feeUgx) : `− ${orderPrice(order.feeUgx)}`}</dd>
        </div>
        <div>
          <dt>{buyer ? "Total" : "You earn"}</dt>
          <dd>
            <strong>{orderPrice(order.netUgx)}</strong>
          </dd>
        </div>
        {inUsd ? (
          <div>
            <dt>Exchange rate</dt>
            <dd>UGX {order.ugxPerUsd.toLocaleString("en-US", { maximumFractionDigits: 2 })} per USD, fixed when the order was placed</dd>
          </div>
        ) : null}
        <div>
          <dt>Ordered</dt>
          <dd>{dateTime(order.createdAt)}</dd>
        </div>
        <div>
          <dt>Due</dt>
          <dd>{order.dueAt ? dateTime(order.dueAt) : "Once paid"}</dd>
        </div>
        <div>
          <dt>Revisions</dt>
          <dd>
            {order.revisionsUsed} of {order.revisionsAllowed} used
          </dd>
        </div>
      </dl>

      <h2>Requirements</h2>
      {order.requirements ? <div className="order-text">{order.requirements}</div> : <p>The buyer gave no written requirements.</p>}
      <FileList orderId={order.id} files={d.requirementFiles} label="Requirement files" />

      {d.deliveries.length ? (
        <>
          <h2>Deliveries</h2>
          <ol className="order-deliveries" aria-label="Deliveries">
            {d.deliveries.map((delivery, i) => (
              <li key={delivery.id}>
                <h3>
                  Delivery {i + 1} <time dateTime={new Date(delivery.at).toISOString()}>{dateTime(delivery.at)}</time>
                </h3>
                <div className="order-text">{delivery.message}</div>
                <FileList orderId={order.id} files={delivery.files} label={`Files of delivery ${i + 1}`} />
              </li>
            ))}
          </ol>
        </>
      ) : null}

      {can.has("deliver") ? <DeliverForm key={`deliver-${key}`} orderId={order.id} rules={d.fileRules} reply={replyOf("deliver")} /> : null}
      {can.has("approve") || can.has("request_revision") ? (
        <section className="order-step" id="respond" aria-labelledby="respond-title">
          <h2 id="respond-title">Your answer to the delivery</h2>
          <p>
            Approve it to complete the order and release the payment to the seller, or ask for changes (
            {order.revisionsAllowed - order.revisionsUsed} of {order.revisionsAllowed} {order.revisionsAllowed === 1 ? "revision" : "revisions"} left). With no
            answer, the order completes by itself 3 days after the delivery.
          </p>
          {can.has("approve") ? (
            <ApproveStep
              key={`approve-${key}`}
              orderId={order.id}
              sellerName={d.other.name}
              releasedText={orderPrice(order.priceUgx)}
              paidText={orderPrice(order.totalUgx)}
              open={d.confirm === "approve" || actionData?.intent === "approve"}
              reply={replyOf("approve")}
            />
          ) : null}
          {can.has("request_revision") ? <RevisionForm key={`revision-${key}`} orderId={order.id} reply={replyOf("request_revision")} /> : null}
        </section>
      ) : null}
      {can.has("review") && order.gigId !== null ? <ReviewForm key={`review-${key}`} orderId={order.id} gigId={order.gigId} reply={replyOf("review")} /> : null}
      {can.has("cancel") || can.has("request_cancel") ? (
        <CancelStep key={`cancel-${key}`} d={d} late={can.has("cancel")} open={d.confirm === "cancel" || actionData?.intent === "cancel"} reply={replyOf("cancel")} />
      ) : null}
      {can.has("dispute") ? (
        <DisputeStep key={`dispute-${key}`} orderId={order.id} open={d.confirm === "dispute" || actionData?.intent === "dispute"} reply={replyOf("dispute")} />
      ) : null}

      <h2>Timeline</h2>
      <OrderTimeline events={d.events} paidUgx={order.totalUgx} />
    </article>
  );
}

/** Conform's form for one of the order's schemas: the browser checks what the server will, JavaScript or not. */
function useOrderForm<S extends z.ZodTypeAny>(id: string, schema: S, reply: Reply | undefined) {
  return useForm<z.input<S>, z.output<S>>({
    id,
    lastResult: reply,
    shouldValidate: "onSubmit",
    constraint: getFormConstraint(schema),
    defaultNoValidate: false,
    onValidate: ({ formData }) => parseWithZod(formData, { schema, disableAutoCoercion: AS_TYPED }),
  });
}

function DeliverForm({ orderId, rules, reply }: { orderId: number; rules: Loaded["fileRules"]; reply?: Reply }) {
  const [form, fields] = useOrderForm("deliver-form", DeliverSchema, reply);
  const fileErrors = (reply?.error as Record<string, string[] | null> | undefined)?.files ?? undefined;
  return (
    <section className="order-step" id="deliver" aria-labelledby="deliver-title">
      <h2 id="deliver-title">Deliver your work</h2>
      <Form method="post" action={`/orders/${orderId}`} encType="multipart/form-data" className="form-card" {...getFormProps(form)}>
        <input type="hidden" name="orderId" value={orderId} />
        <TextAreaField field={fields.message} label="Message to the buyer" hint="What you are delivering, and anything the buyer should know." rows={5} />
        <div className="field">
          <label htmlFor="deliver-files">Files (optional)</label>
          <p className="field-hint" id="deliver-files-hint">
            Up to {rules.maxFiles} files of at most {rules.maxMb} MB each: {rules.types}.
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
        <OrderButton orderId={orderId} intent="deliver" pendingLabel="Delivering…">
          Deliver
        </OrderButton>
      </Form>
    </section>
  );
}

function RevisionForm({ orderId, reply }: { orderId: number; reply?: Reply }) {
  const [form, fields] = useOrderForm("revision-form", RevisionSchema, reply);
  return (
    <div id="revision">
      <Form method="post" action={`/orders/${orderId}`} className="form-card" {...getFormProps(form)}>
        <input type="hidden" name="orderId" value={orderId} />
        <TextAreaField field={fields.reason} label="What should change?" />
        <OrderButton orderId={orderId} intent="request_revision" pendingLabel="Requesting…" secondary>
          Request revision
        </OrderButton>
      </Form>
    </div>
  );
}

function ReviewForm({ orderId, gigId, reply }: { orderId: number; gigId: number; reply?: Reply }) {
  const [form, fields] = useOrderForm("review-form", ReviewSchema, reply);
  const stars = Array.from({ length: RATING_MAX - RATING_MIN + 1 }, (_, i) => RATING_MAX - i);
  const ratingErrors = fields.rating.errors;
  return (
    <section className="order-step" id="review" aria-labelledby="review-title">
      <h2 id="review-title">Leave a review</h2>
      <Form method="post" action={`/orders/${orderId}`} className="form-card" {...getFormProps(form)}>
        <input type="hidden" name="orderId" value={orderId} />
        <input type="hidden" name="gigId" value={gigId} />
        <fieldset className="field rating-field" aria-describedby={ratingErrors ? fields.rating.errorId : undefined}>
          <legend>Rating</legend>
          {stars.map((n) => (
            <div className="checkbox" key={n}>
              <input type="radio" id={`rating-${n}`} name="rating" value={n} required={n === RATING_MAX} defaultChecked={fields.rating.initialValue === String(n)} />
              <label htmlFor={`rating-${n}`}>
                {n} {n === 1 ? "star" : "stars"}
              </label>
            </div>
          ))}
          <ErrorList id={fields.rating.errorId} errors={ratingErrors} />
        </fieldset>
        <TextAreaField field={fields.comment} label="Your review (optional)" hint="What was it like to work with this seller? Your review shows on the gig and the seller's profile." />
        <OrderButton orderId={orderId} intent="review" pendingLabel="Submitting…">
          Submit review
        </OrderButton>
      </Form>
    </section>
  );
}

/**
 * Approve, in two clicks: the first (a link, so it works without JavaScript) opens the confirmation, which
 * says what is released to whom; only its form carries the confirmation the action asks for.
 */
function ApproveStep({
  orderId,
  sellerName,
  releasedText,
  paidText,
  open,
  reply,
}: {
  orderId: number;
  sellerName: string;
  releasedText: string;
  paidText: string;
  open: boolean;
  reply?: Reply;
}) {
  const [form, fields] = useOrderForm("approve-form", ApproveSchema, reply);
  if (!open) {
    return (
      <p id="approve">
        <Link to={`/orders/${orderId}?confirm=approve#approve`} className="button button-small" preventScrollReset>
          Approve delivery…
        </Link>
      </p>
    );
  }
  return (
    <div className="order-confirm" id="approve">
      <Form method="post" action={`/orders/${orderId}`} aria-labelledby="approve-question" {...getFormProps(form)}>
        <input type="hidden" name="orderId" value={orderId} />
        <input type="hidden" name={fields.confirm.name} value={APPROVE_CONFIRMATION} />
        <p className="order-confirm-question" id="approve-question">
          <strong>
            Release {releasedText} to {sellerName}? This cannot be undone.
          </strong>
        </p>
        <p>
          The {paidText} you paid is held in escrow. Approving completes the order and pays the order's price to the seller: you can no longer ask for a revision
          or open a dispute.
        </p>
        <ErrorList id={fields.confirm.errorId} errors={fields.confirm.errors} />
        <div className="order-actions">
          <OrderButton orderId={orderId} intent="approve" pendingLabel="Releasing…">
            Yes, release {releasedText}
          </OrderButton>
          <Link to={`/orders/${orderId}#respond`} preventScrollReset>
            Not yet
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
function CancelStep({ d, late, open, reply }: { d: Loaded; late: boolean; open: boolean; reply?: Reply }) {
  const [form, fields] = useOrderForm("cancel-form", CancelSchema, reply);
  const orderId = d.order.id;
  const otherRole = d.role === "buyer" ? "seller" : "buyer";
  return (
    <section className="order-step" id="cancel" aria-labelledby="cancel-title">
      <h2 id="cancel-title">{late ? "Cancel the order" : "Ask to cancel"}</h2>
      {open ? (
        <Form method="post" action={`/orders/${orderId}`} className="form-card" {...getFormProps(form)}>
          <input type="hidden" name="orderId" value={orderId} />
          <input type="hidden" name="expected" value={late ? "cancel" : "request_cancel"} />
          <p>
            {late
              ? "The order is more than a day late, so you may cancel it now: your payment is refunded to the number that paid."
              : `The ${otherRole} is asked to agree. If they do, the order is cancelled and the buyer's payment refunded.`}
          </p>
          <TextAreaField field={fields.reason} label="Reason (optional)" rows={3} />
          <div className="order-actions">
            <OrderButton orderId={orderId} intent="cancel" pendingLabel={late ? "Cancelling…" : "Sending…"}>
              {late ? "Yes, cancel the order" : "Send cancel request"}
            </OrderButton>
            <Link to={`/orders/${orderId}`} preventScrollReset>
              Keep the order
            </Link>
          </div>
        </Form>
      ) : (
        <p>
          <Link to={`/orders/${orderId}?confirm=cancel#cancel`} preventScrollReset>
            {late ? "Cancel this order…" : "Ask to cancel this order…"}
          </Link>
        </p>
      )}
    </section>
  );
}

/** A dispute, in two clicks: an admin will read the reason, and both parties wait for their decision. */
function DisputeStep({ orderId, open, reply }: { orderId: number; open: boolean; reply?: Reply }) {
  const [form, fields] = useOrderForm("dispute-form", DisputeSchema, reply);
  return (
    <section className="order-step" id="dispute" aria-labelledby="dispute-title">
      <h2 id="dispute-title">Something wrong?</h2>
      {open ? (
        <Form method="post" action={`/orders/${orderId}`} className="form-card" {...getFormProps(form)}>
          <input type="hidden" name="orderId" value={orderId} />
          <p>An admin reads both sides and decides: the payment goes to the seller, or back to the buyer. Until then the order waits.</p>
          <TextAreaField field={fields.reason} label="What went wrong?" />
          <div className="order-actions">
            <OrderButton orderId={orderId} intent="dispute" pendingLabel="Opening…">
              Open dispute
            </OrderButton>
            <Link to={`/orders/${orderId}`} preventScrollReset>
              Never mind
            </Link>
          </div>
        </Form>
      ) : (
        <p>
          Try talking it through first. If that does not help, <Link to={`/orders/${orderId}?confirm=dispute#dispute`}>open a dispute…</Link>
        </p>
      )}
    </section>
  );
}
