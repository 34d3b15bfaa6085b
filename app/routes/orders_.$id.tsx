/**
 * An order's page (/orders/:id), for its two parties: the loader reads the order, its timeline, deliveries,
 * files and any dispute; the action sends each step, told apart by its form's `intent`, to the order
 * operation that takes it. The step forms are app/components/order-steps.tsx, the file lists
 * app/components/order-files.tsx, the page's polling while the order can still move
 * app/hooks/use-live-order.ts, and reading the (multipart) forms app/server/order-form.server.ts.
 */
import type { SubmissionResult } from "@conform-to/react";
import { eventsIn } from "~/content/operation-messages";
import { parseWithZod } from "@conform-to/zod";
import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { useActionData, useLoaderData, useLocation, useRouteLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import type { z } from "zod";
import { ErrorList } from "~/components/forms";
import { ContactButton, OrderBadge, OrderPost } from "~/components/order-buttons";
import { FileList } from "~/components/order-files";
import { ApproveStep, AS_TYPED, CancelStep, DeliverForm, DisputeStep, ReviewForm, RevisionForm, STEP_WORDS, stepForms } from "~/components/order-steps";
import { OrderTimeline } from "~/components/order-timeline";
import { disputeOutcomeOf, openDisputeOf } from "~/models/dispute.server";
import { DisputeOutcome } from "~/components/dispute-outcome";
import { OrderStatusBanner } from "~/components/order-status-banner";
import { orderBanner } from "~/content/order-banner.server";
import { findPartyOrder, listDeliveries, listOrderEvents, listOrderFiles, orderFacts, orderParties, type OrderFile } from "~/models/order.server";
import type { Failure } from "~/operations/core.server";
import { approveOrder, cancelOrder, declineCancel, deliverOrder, openDispute, requestRevision } from "~/operations/orders.server";
import { createReview } from "~/operations/reviews.server";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { getDb } from "~/server/db.server";
import { actionHeaders } from "~/utils/headers";
import { formFailure } from "~/server/operation-results.server";
import { backTo, orderFormConstraints, readOrderForm } from "~/server/order-form.server";
import { cleanFileName, InvalidOrderFileError, MAX_ORDER_FILE_BYTES, MAX_ORDER_FILES, storeOrderFiles } from "~/server/files/order-files.server";
import { FINAL_STATUSES, orderActions, orderNumber, type OrderAction } from "~/domain/order-rules";
import { isUnnamedPackage } from "~/domain/package-tiers";
import { ORDER_TIER_KEY } from "~/domain/order-tiers";
import { ApproveSchema, CancelSchema, DeliverSchema, DisputeSchema, OrderIdSchema, RevisionSchema } from "~/schemas/order";
import { REVIEW_EDIT_DAYS, ReviewSchema } from "~/schemas/review";
import { orderReviewFor } from "~/models/review.server";
import { OrderReview } from "~/components/order-review";
import { refusalInit } from "~/server/files/upload-quota.server";
import { useLiveOrder } from "~/hooks/use-live-order";
import { usePreferences } from "~/hooks/use-preferences";
import { formatPrice, orderCurrency } from "~/domain/money";
import { getDisplayCurrency } from "~/server/currency.server";
import { areasShown, pageMessages, requestT } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { metaI18n, useT } from "~/i18n/react";
import type { loader as rootLoader } from "~/root";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const headers = actionHeaders;

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: data ? _("orders.order.metaTitle", { number: data.number, title: data.order.gigTitle }) : _("orders.order.metaTitleFallback") }];
};

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

/** The words of the order's review (app/components/order-review.tsx), sent when there is one. */
const REVIEW_WORDS = {
  review: ["orders.reviewReplies"],
};

export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const { order, role } = await ownOrder(params.id, user.id);
  const db = getDb();
  const locale = await requestLocale(request);
  const [facts, events, deliveries, files, dispute, parties, display] = await Promise.all([
    orderFacts(db, order),
    listOrderEvents(db, order.id).then((list) => eventsIn(list, locale)),
    listDeliveries(db, order.id),
    listOrderFiles(db, order.id),
    openDisputeOf(db, order.id),
    orderParties(db, order),
    getDisplayCurrency(db, request, user),
  ]);
  const buyer = role === "buyer";
  const other = buyer ? parties.seller : parties.buyer;
  const confirm = new URL(request.url).searchParams.get("confirm");
  const cancelRequest = [...events].reverse().find((e) => e.kind === "cancel_requested");
  const now = new Date();
  // Back in progress because the buyer asked for changes: the latest of the deliveries and requests is a request.
  const lastTurn = [...events].reverse().find((e) => e.kind === "delivered" || e.kind === "revision_requested");
  const revisionReason = order.status === "in_progress" && lastTurn?.kind === "revision_requested" ? (lastTurn.reason ?? "") : null;
  const actions = [...orderActions(facts, user.id, now)];
  const cancelAsked = order.cancelRequestedBy === null ? null : { byMe: order.cancelRequestedBy === user.id, reason: cancelRequest?.reason ?? "" };
  // The banner, worded here in the reader's language, time zone and currency: its sentences stay on the server.
  const banner = orderBanner(
    {
      ...order, // its status and its dates
      orderId: order.id,
      role,
      otherName: other.name,
      actions,
      paid: order.paidAt !== null,
      // Decided here, on the server's clock.
      late: order.status === "in_progress" && order.dueAt !== null && now.getTime() > order.dueAt.getTime(),
      revisionReason,
      revisionsLeft: order.revisionsAllowed - order.revisionsUsed,
      dispute: dispute && {
        byMe: dispute.openedBy === user.id,
        byRole: dispute.openedBy === order.buyerId ? "buyer" : "seller",
        reason: dispute.reason,
        at: dispute.createdAt,
      },
      cancelRequest: cancelAsked,
      earnText: formatPrice(order.priceUgx - order.sellerFeeUgx, orderCurrency(display, order.ugxPerUsd), locale),
    },
    { zone: user.timeZone, locale },
  );
  const review = order.gigId === null ? null : await orderReviewFor(db, order.id, role, REVIEW_EDIT_DAYS);
  const reviewShown = new Set<keyof typeof REVIEW_WORDS>(review ? ["review"] : []);
  return {
    number: orderNumber(order.id),
    role,
    other,
    actions,
    banner,
    order: {
      id: order.id,
      gigId: order.gigId,
      gigTitle: order.gigTitle,
      tier: order.tier,
      // The seller's name for the package; null for one left unnamed, said as its tier in the reader's language.
      packageName: isUnnamedPackage(order.tier, order.packageName) ? null : order.packageName,
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
    cancelRequest: cancelAsked,
    disputeOpen: dispute !== null,
    disputeOutcome: dispute ? null : await disputeOutcomeOf(db, order.id),
    review,
    requirementFiles: files.filter((f) => f.deliveryId === null).map(fileView),
    deliveries: deliveries.map((d) => ({ ...d, files: files.filter((f) => f.deliveryId === d.id).map(fileView) })),
    events,
    confirm: (CONFIRMS as readonly string[]).includes(confirm ?? "") ? (confirm as Confirm) : null,
    // The delivery form's hint (order-files.server.ts is server code: its rules travel as data).
    fileRules: { maxFiles: MAX_ORDER_FILES, maxMb: MAX_ORDER_FILE_BYTES / 1024 / 1024 },
    // The browser's checks of the step forms, from the schemas the action parses with (the schemas load later).
    constraints: orderFormConstraints(),
    ...(await pageMessages(request, [
      "orders.card",
      "orders.days",
      "orders.files",
      "orders.form",
      "orders.order",
      "orders.outcome",
      "orders.party",
      "orders.status",
      "orders.tier",
      "orders.timeline",
      // The review's words only with a review to show (most orders have none).
      ...areasShown(REVIEW_WORDS, reviewShown),
      // Each step form's words come with the form.
      ...areasShown(STEP_WORDS, stepForms(actions, order.gigId !== null)),
    ])),
  };
}

type Reply = SubmissionResult<string[]>;
type Answer = { intent: Intent; reply: Reply };

const MB = MAX_ORDER_FILE_BYTES / 1024 / 1024;

/**
 * Every step of the order, one intent each, through the order operations: they lock the order and ask the
 * state machine again, so a step the order has moved past answers 409 with the reason, shown at the top.
 * The order id is the page's own, whatever the form says.
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const { order } = await ownOrder(params.id, actor.user.id);
  const t = await requestT(request);
  const locale = await requestLocale(request);
  const read = await readOrderForm(request);
  if (read === "too-large") {
    const tooLarge = t("orders.order.filesTooLarge", { mb: MB, max: MAX_ORDER_FILES });
    return data({ intent: "deliver", reply: { status: "error", error: { files: [tooLarge] } } as Reply } satisfies Answer, { status: 413 });
  }
  const { form, files, oversized } = read;
  const intent = form.get("intent");
  if (!isIntent(intent)) throw new Response(t("orders.form.chooseIntent"), { status: 400, headers: { "Content-Type": "text/plain; charset=utf-8" } });
  form.set("orderId", String(order.id));
  const back = backTo(form.get("redirectTo"), order.id);
  form.delete("redirectTo");

  const invalid = (reply: Reply, status = 400) => data({ intent, reply } satisfies Answer, { status });
  /** The operation's answer: back to the page on success, else its refusal beside the form or at the top. */
  const answer = (result: { ok: true } | Failure, reply: Parameters<typeof formFailure>[0]) => {
    if (result.ok) return redirect(back, 303);
    const refused = formFailure(reply, result, { locale });
    return data({ intent, reply: refused.data } satisfies Answer, refused.init ?? undefined);
  };
  const parse = <S extends z.ZodTypeAny>(schema: S) => parseWithZod(form, { schema, disableAutoCoercion: AS_TYPED });

  switch (intent) {
    case "deliver": {
      const submission = parse(DeliverSchema);
      const tooBig = oversized.map((name) => t("orders.files.over", { name: cleanFileName(name), mb: MB }));
      if (submission.status !== "success") return invalid(submission.reply(tooBig.length ? { fieldErrors: { files: tooBig } } : undefined));
      if (tooBig.length) return invalid(submission.reply({ fieldErrors: { files: tooBig } }));
      let stored;
      try {
        stored = await storeOrderFiles(await Promise.all(files.map(async (f) => ({ name: f.name, bytes: new Uint8Array(await f.arrayBuffer()) }))), {
          userId: actor.user.id,
        });
      } catch (error) {
        // A file we do not take (400), or over the seller's upload quota (429 with Retry-After).
        if (error instanceof InvalidOrderFileError)
          return data({ intent, reply: submission.reply({ fieldErrors: { files: [error.words(locale)] } }) } satisfies Answer, refusalInit(error));
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

export default function OrderPage() {
  const d = useLoaderData<typeof loader>();
  const actionData = useActionData<typeof action>();
  // Each navigation (the redirect after a step) remounts the forms, so they come back empty.
  const { key } = useLocation();
  const { dateTime, number, locale } = usePreferences();
  const { t } = useT();
  const { order } = d;
  // In USD an order's amounts are at the rate fixed at its checkout (orders.ugx_per_usd), not today's.
  const currency = orderCurrency(useRouteLoaderData<typeof rootLoader>("root")?.currency, order.ugxPerUsd);
  const inUsd = currency?.code === "USD" && order.ugxPerUsd > 0;
  const orderPrice = (ugx: number) => formatPrice(ugx, currency, locale);
  const can = new Set<OrderAction>(d.actions);
  const forms = stepForms(d.actions, order.gigId !== null);
  const buyer = d.role === "buyer";
  const replyOf = (intent: Intent) => (actionData?.intent === intent ? actionData.reply : undefined);
  const topErrors = (actionData?.reply.error?.[""] as string[] | null | undefined) ?? undefined;
  useLiveOrder(!FINAL_STATUSES.has(order.status));
  const otherRole = buyer ? "seller" : "buyer";

  return (
    <article className="container order-page" aria-labelledby="order-title">
      <p className="breadcrumbs">
        <Link to="/orders">{t("orders.order.breadcrumb")}</Link> › {d.number}
      </p>
      <h1 id="order-title">{order.gigTitle}</h1>
      <p className="order-number">
        {d.number} <OrderBadge status={order.status} disputeOpen={d.disputeOpen} />
      </p>
      <div className="order-party">
        {buyer ? t("orders.party.seller") : t("orders.party.buyer")}:{" "}
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
            <Link to={`/gig/${order.gigId}`}>{t("orders.order.viewGig")}</Link>
          </>
        ) : null}
      </div>

      <OrderStatusBanner orderId={order.id} banner={d.banner}>
        {d.cancelRequest ? (
          <div className="notice" role="status" id="cancel-request">
            {d.cancelRequest.byMe ? (
              <p>
                {d.cancelRequest.reason
                  ? t("orders.order.cancelAskedMineReason", { reason: d.cancelRequest.reason, role: otherRole })
                  : t("orders.order.cancelAskedMine", { role: otherRole })}
              </p>
            ) : (
              <p>
                {d.cancelRequest.reason
                  ? t("orders.order.cancelAskedTheirsReason", { reason: d.cancelRequest.reason, role: otherRole })
                  : t("orders.order.cancelAskedTheirs", { role: otherRole })}
              </p>
            )}
            <div className="order-actions">
              {can.has("agree_cancel") ? (
                <OrderPost orderId={order.id} intent="cancel" label={t("orders.order.agreeCancel")} pendingLabel={t("orders.card.cancelling")} />
              ) : null}
              {can.has("decline_cancel") ? (
                <OrderPost orderId={order.id} intent="decline_cancel" label={t("orders.order.decline")} pendingLabel={t("orders.card.declining")} secondary />
              ) : null}
              {can.has("withdraw_cancel") ? (
                <OrderPost
                  orderId={order.id}
                  intent="decline_cancel"
                  label={t("orders.order.withdrawRequest")}
                  pendingLabel={t("orders.card.withdrawing")}
                  secondary
                />
              ) : null}
            </div>
          </div>
        ) : null}
      </OrderStatusBanner>

      <ErrorList id="order-errors" errors={topErrors} />

      {/* The outcome of a resolved dispute (who decided what, and why), under the banner. */}
      <DisputeOutcome outcome={d.disputeOutcome} role={d.role} />

      {d.deliveries.length ? (
        <>
          <h2>{t("orders.order.deliveries")}</h2>
          <ol className="order-deliveries" aria-label={t("orders.order.deliveries")}>
            {d.deliveries.map((delivery, i) => (
              <li key={delivery.id}>
                <h3>
                  {t("orders.order.delivery", { n: i + 1 })} <time dateTime={new Date(delivery.at).toISOString()}>{dateTime(delivery.at)}</time>
                </h3>
                <div className="order-text">{delivery.message}</div>
                <FileList orderId={order.id} files={delivery.files} label={t("orders.order.deliveryFiles", { n: i + 1 })} />
              </li>
            ))}
          </ol>
        </>
      ) : null}

      {forms.has("approve") || forms.has("revision") ? (
        <section className="order-step" id="respond" aria-labelledby="respond-title">
          <h2 id="respond-title">{t("orders.order.respondTitle")}</h2>
          <p>{t("orders.order.respondText", { left: order.revisionsAllowed - order.revisionsUsed, allowed: order.revisionsAllowed })}</p>
          {forms.has("approve") ? (
            <ApproveStep
              key={`approve-${key}`}
              orderId={order.id}
              sellerName={d.other.name}
              releasedText={orderPrice(order.priceUgx)}
              paidText={orderPrice(order.totalUgx)}
              open={d.confirm === "approve" || actionData?.intent === "approve"}
              constraint={d.constraints.approve}
              reply={replyOf("approve")}
            />
          ) : null}
          {forms.has("revision") ? (
            <RevisionForm key={`revision-${key}`} orderId={order.id} constraint={d.constraints.revision} reply={replyOf("request_revision")} />
          ) : null}
        </section>
      ) : null}
      {forms.has("review") && order.gigId !== null ? (
        <ReviewForm key={`review-${key}`} orderId={order.id} gigId={order.gigId} constraint={d.constraints.review} reply={replyOf("review")} />
      ) : null}
      {d.review ? <OrderReview review={d.review} role={d.role} orderId={order.id} /> : null}

      <h2>{t("orders.order.requirements")}</h2>
      {order.requirements ? <div className="order-text">{order.requirements}</div> : <p>{t("orders.order.noRequirements")}</p>}
      <FileList orderId={order.id} files={d.requirementFiles} label={t("orders.order.requirementFiles")} />

      {forms.has("deliver") ? (
        <DeliverForm key={`deliver-${key}`} orderId={order.id} rules={d.fileRules} constraint={d.constraints.deliver} reply={replyOf("deliver")} />
      ) : null}

      <h2>{t("orders.order.timeline")}</h2>
      <OrderTimeline events={d.events} paidUgx={order.totalUgx} />

      <h2>{t("orders.order.summary")}</h2>
      <dl className="order-summary">
        <div>
          <dt>{t("orders.order.package")}</dt>
          <dd>{t("orders.order.packageLine", { package: order.packageName ?? t(ORDER_TIER_KEY[order.tier]), days: order.deliveryDays })}</dd>
        </div>
        <div>
          <dt>{t("orders.order.price")}</dt>
          <dd>{orderPrice(order.priceUgx)}</dd>
        </div>
        <div>
          <dt>{buyer ? t("orders.order.processingFee") : t("orders.order.serviceFee")}</dt>
          <dd>{buyer ? orderPrice(order.feeUgx) : `− ${orderPrice(order.feeUgx)}`}</dd>
        </div>
        <div>
          <dt>{buyer ? t("orders.order.total") : t("orders.order.youEarn")}</dt>
          <dd>
            {/* A dispute's decision sets what the seller earns (all, nothing, or their share of a split). */}
            <strong>{orderPrice(!buyer && d.disputeOutcome ? d.disputeOutcome.sellerUgx : order.netUgx)}</strong>
          </dd>
        </div>
        {inUsd ? (
          <div>
            <dt>{t("orders.order.exchangeRate")}</dt>
            <dd>{t("orders.order.rate", { rate: number(order.ugxPerUsd, { maximumFractionDigits: 2 }) })}</dd>
          </div>
        ) : null}
        <div>
          <dt>{t("orders.order.ordered")}</dt>
          <dd>{dateTime(order.createdAt)}</dd>
        </div>
        <div>
          <dt>{t("orders.order.due")}</dt>
          <dd>{order.dueAt ? dateTime(order.dueAt) : t("orders.order.oncePaid")}</dd>
        </div>
        <div>
          <dt>{t("orders.order.revisions")}</dt>
          <dd>{t("orders.order.revisionsUsed", { used: order.revisionsUsed, allowed: order.revisionsAllowed })}</dd>
        </div>
      </dl>

      {forms.has("cancel") ? (
        <CancelStep
          key={`cancel-${key}`}
          d={d}
          late={can.has("cancel")}
          open={d.confirm === "cancel" || actionData?.intent === "cancel"}
          constraint={d.constraints.cancel}
          reply={replyOf("cancel")}
        />
      ) : null}
      {forms.has("dispute") ? (
        <DisputeStep
          key={`dispute-${key}`}
          orderId={order.id}
          open={d.confirm === "dispute" || actionData?.intent === "dispute"}
          constraint={d.constraints.dispute}
          reply={replyOf("dispute")}
        />
      ) : null}
    </article>
  );
}
