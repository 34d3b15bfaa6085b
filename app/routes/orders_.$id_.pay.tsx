import { data, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction, type LinksFunction } from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { Link } from "~/components/link";
import { formatMsisdn, NETWORK_OFFERED, PayerFields, useRevalidateWhile } from "~/components/checkout";
import { SubmitButton } from "~/components/forms";
import { getOrder, listOrderEvents, orderFacts, type OrderRow } from "~/models/order.server";
import { latestPayment, type PaymentRow } from "~/models/payment.server";
import { systemActor } from "~/operations/core.server";
import { cancelOrder } from "~/operations/orders.server";
import { settlePayment } from "~/operations/payments.server";
import { payAgain } from "~/operations/payment-retries.server";
import { getProviders } from "~/payments/registry.server";
import { requireMemberActor, requireUser } from "~/server/auth.server";
import { isLoopbackHost } from "~/server/host.server";
import { getDb, type Db } from "~/server/db.server";
import { readFormData } from "~/server/form-data.server";
import { guessNetwork, NETWORK_LABEL, resolveNetwork, type Network } from "~/domain/mobile-money";
import { pageMessages, requestT } from "~/i18n/messages.server";
import { requestLocale } from "~/i18n/locale.server";
import { sayMessage } from "~/i18n/message-key";
import { metaI18n, T, useT } from "~/i18n/react";
import { usePreferences } from "~/hooks/use-preferences";
import { failureStatus } from "~/server/operation-results.server";
import { orderActions, orderNumber, UNPAID_EXPIRY_MS } from "~/domain/order-rules";
import { PayerSchema } from "~/schemas/order";
import { messageOf, sayStored, type Said } from "~/content/operation-messages";
import { failureWords } from "~/payments/failure-words.server";
import type { Locale } from "~/i18n/locales";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const meta: MetaFunction<typeof loader> = ({ data, matches }) => {
  const { _ } = metaI18n(matches);
  return [{ title: data ? _("orders.pay.metaTitle", { number: data.order.number }) : _("orders.pay.metaNotFound") }];
};

/** Only the order's buyer waits for its payment: anyone else, and any id that is not an order, gets the same 404. */
async function ownOrder(db: Db, userId: number, id: string | undefined) {
  const order = await getOrder(db, Number(id));
  if (!order || order.buyerId !== userId) throw new Response("Not Found", { status: 404 });
  return order;
}

/**
 * Whether the payment is due to be asked about, on the worker's own schedule (payments.next_poll_at, which
 * each ask pushes back: 5 s, then 10 s, 20 s…): a page left open, or many tabs, never asks the provider
 * more often than the worker would.
 */
type PayState = "pending" | "paid" | "failed";

/**
 * Where the buyer stands, from the order (the state machine's word), its payment, and for a cancelled order
 * the step that cancelled it (a payment left unanswered for 30 minutes is still followed, so it is pending).
 * `reason` is a message key of ours (orders.pay.reason.*) or the words the provider or the cancel gave (Soko's
 * own already in the reader's language: ADR 047); `refunded` says whether money that arrived goes back (then
 * nothing "was taken" is not said), read from the English as stored.
 */
async function payState(
  db: Db,
  order: OrderRow,
  payment: PaymentRow | null,
  locale: Locale,
): Promise<{ state: PayState; reason: string | null; refunded: boolean }> {
  if (order.status === "pending_payment") return { state: "pending", reason: null, refunded: false };
  if (order.status !== "cancelled") return { state: "paid", reason: null, refunded: false };
  const said = (reason: string, stored?: Said | null) => ({
    state: "failed" as const,
    reason: sayStored(reason, stored, locale),
    refunded: reason.includes("refunded"),
  });
  if (payment?.status === "failed") {
    // A payment from before keys were stored is worded from its English (failureWords), as a new one is.
    return payment.failureReason ? said(payment.failureReason, payment.failureSaid ?? failureWords(payment.failureReason)) : said("orders.pay.reason.refused");
  }
  if (payment?.status === "successful" || payment?.status === "refunded") {
    return { state: "failed", reason: "orders.pay.reason.late", refunded: true };
  }
  const cancelled = (await listOrderEvents(db, order.id)).filter((e) => e.to === "cancelled").pop();
  if (cancelled?.actorRole === "buyer") return said("orders.pay.reason.buyerCancelled");
  return cancelled?.reason ? said(cancelled.reason, cancelled.reasonSaid) : said("orders.pay.reason.cancelled");
}

/**
 * The "waiting for your phone" page: while the payment is open, each load asks the provider (when due) and
 * the page reloads itself (meta refresh without JavaScript, a revalidation every few seconds with it) until
 * the payment settles.
 */
export async function loader({ request, params }: LoaderFunctionArgs) {
  const user = await requireUser(request);
  const db = getDb();
  let order = await ownOrder(db, user.id, params.id);
  let payment = await latestPayment(db, order.id);
  if (order.status === "pending_payment" && payment?.status === "pending" && payment.nextPollAt <= new Date()) {
    await settlePayment(systemActor("pay-page"), { reference: payment.reference });
    [order, payment] = await Promise.all([ownOrder(db, user.id, params.id), latestPayment(db, order.id)]);
  }
  const { state, reason, refunded } = await payState(db, order, payment, await requestLocale(request));
  const canCancel = orderActions(await orderFacts(db, order), user.id).has("abandon");
  const sandbox = getProviders().sandbox !== null && payment?.provider === "sandbox" && state === "pending";
  return {
    order: { id: order.id, number: orderNumber(order.id), gigId: order.gigId, gigTitle: order.gigTitle, tier: order.tier, totalUgx: order.totalUgx },
    payer: payment ? { msisdn: formatMsisdn(payment.msisdn), network: payment.network } : null,
    // The order waits 30 minutes from checkout for a payment, however often the prompt is sent again.
    minutesLeft: Math.max(0, Math.ceil((order.createdAt.getTime() + UNPAID_EXPIRY_MS - Date.now()) / 60_000)),
    waitMinutes: UNPAID_EXPIRY_MS / 60_000,
    // "Use another number" opens its form by a link (?number): without JavaScript a form inside the
    // self-reloading page would be lost at the next reload, so this view does not reload itself.
    choosing: new URL(request.url).searchParams.has("number"),
    state,
    reason,
    refunded,
    canCancel,
    // The phone prompt opens only at a localhost name (ADR 029): elsewhere the page says so rather than link to a 404.
    sandbox: sandbox && payment ? (isLoopbackHost(request) ? { url: `/dev/pay/${payment.reference}` } : { url: null }) : null,
    ...(await pageMessages(request, ["orders.form", "orders.pay", "orders.payer", "orders.status"])),
  };
}

type Refusal = { intent: string; error?: string; fields?: { msisdn?: string[]; network?: string[] }; msisdn?: string; network?: Network };

/**
 * Send the prompt again, pay from another number (each a new payment of the order, ADR 043), or cancel this
 * order: only an order still waiting for its payment (a paid one is cancelled on its own page).
 */
export async function action({ request, params, context }: ActionFunctionArgs) {
  const actor = await requireMemberActor(request, context.clientIp);
  const db = getDb();
  const order = await ownOrder(db, actor.user.id, params.id);
  const form = await readFormData(request);
  const intent = form.get("intent");
  const refused = (body: Refusal, status: number) => data(body, { status });
  const t = await requestT(request);
  const locale = await requestLocale(request);
  if (intent === "again" || intent === "number") {
    let payer: { msisdn: string; network: Network } | undefined;
    if (intent === "number") {
      const parsed = PayerSchema.safeParse(Object.fromEntries(form));
      const typed = String(form.get("msisdn") ?? "");
      if (!parsed.success) return refused({ intent, fields: parsed.error.flatten().fieldErrors, msisdn: typed, network: guessNetwork(typed) ?? "mtn" }, 400);
      const offered = form.get(NETWORK_OFFERED);
      payer = { msisdn: parsed.data.msisdn, network: resolveNetwork(parsed.data.msisdn, parsed.data.network, typeof offered === "string" ? offered : null) };
    }
    const result = await payAgain(actor, { orderId: order.id, payer });
    if (!result.ok) {
      if (result.error === "not_found") throw new Response("Not Found", { status: 404 });
      const status = failureStatus(result);
      const headers = result.error === "limited" ? { "Retry-After": String(result.retryAfter) } : undefined;
      const error = result.error === "invalid" ? t("orders.pay.checkNumber") : messageOf(result, locale);
      return data({ intent, error, msisdn: payer?.msisdn, network: payer?.network } satisfies Refusal, { status, headers });
    }
    return redirect(`/orders/${order.id}/pay`, 303);
  }
  if (intent !== "cancel") return refused({ intent: "", error: t("orders.form.chooseIntent") }, 400);
  // Only giving up an unpaid order is meant here: if the payment landed meanwhile, the operation refuses.
  const result = await cancelOrder(actor, { orderId: order.id, reason: "", expected: "abandon" });
  if (!result.ok) {
    if (result.error === "not_found" || result.error === "forbidden") throw new Response("Not Found", { status: 404 });
    return refused({ intent, error: result.error === "invalid" ? t("orders.pay.cannotCancel") : messageOf(result, locale) }, failureStatus(result));
  }
  return redirect("/orders?tab=cancelled");
}

/**
 * What the payer sees on their phone. The prompt names the payment by the description we send with it
 * (requestPayment: "Soko order #N"), as MoMo's payer message and Airtel's reference.
 */
function PhoneSteps({ network, total, number }: { network: Network; total: string; number: string }) {
  const { t } = useT();
  const steps = PHONE_STEPS[network];
  return (
    <ol className="pay-steps">
      <li>{t(steps.prompt, { total, number })}</li>
      <li>{t(steps.pin)}</li>
      <li>{t(steps.done)}</li>
    </ol>
  );
}

/** What each network's prompt says, in its own words: the three steps' message keys. */
const PHONE_STEPS: Record<Network, { prompt: string; pin: string; done: string }> = {
  mtn: { prompt: "orders.pay.mtn.prompt", pin: "orders.pay.mtn.pin", done: "orders.pay.mtn.done" },
  airtel: { prompt: "orders.pay.airtel.prompt", pin: "orders.pay.airtel.pin", done: "orders.pay.airtel.done" },
};

export default function PayOrder() {
  const { order, payer, minutesLeft, waitMinutes, choosing, state, reason, refunded, canCancel, sandbox } = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>() as Refusal | undefined;
  const { t } = useT();
  const { ugx } = usePreferences();
  useRevalidateWhile(state === "pending");
  const total = ugx(order.totalUgx);
  const numberRefused = refused?.intent === "number";
  const numberForm = choosing || numberRefused;
  return (
    <section className="container narrow pay-page" aria-labelledby="pay-title">
      {/* Without JavaScript the page reloads itself until the payment settles; with it (noscript is inert) the poll does. */}
      {state === "pending" && !numberForm ? (
        <noscript>
          <meta httpEquiv="refresh" content="5" />
        </noscript>
      ) : null}
      <h1 id="pay-title">{t("orders.pay.title")}</h1>
      <p className="pay-order">
        {order.number} · {order.gigId ? <Link to={`/gig/${order.gigId}`}>{order.gigTitle}</Link> : order.gigTitle} · <strong>{total}</strong>
      </p>

      <div className={`pay-state pay-${state}`} role="status" aria-live="polite">
        {state === "pending" ? (
          <>
            {payer ? <p>{t("orders.pay.approveOnPhone", { total, msisdn: payer.msisdn, network: NETWORK_LABEL[payer.network] })}</p> : null}
            <p className="pay-waiting">{t("orders.pay.waiting")}</p>
          </>
        ) : null}
        {state === "paid" ? (
          <>
            <p className="pay-result">{t("orders.pay.paid", { total })}</p>
            <p>
              <Link to={`/orders/${order.id}`} className="button">
                {t("orders.pay.goToOrder")}
              </Link>
            </p>
          </>
        ) : null}
        {state === "failed" ? (
          <>
            <p className="pay-result">{t("orders.pay.failed", { reason: sayMessage(t, reason ?? "").replace(/\.$/, "") })}</p>
            <p>{refunded ? t("orders.pay.cancelled") : t("orders.pay.cancelledNothingTaken")}</p>
            {order.gigId ? (
              <p>
                <Link to={`/gig/${order.gigId}/order?package=${order.tier}`} className="button">
                  {t("orders.pay.tryAgain")}
                </Link>
              </p>
            ) : null}
          </>
        ) : null}
      </div>

      {refused?.error ? (
        <p className="field-errors" role="alert">
          {refused.error}
        </p>
      ) : null}

      {state === "pending" && payer ? (
        <>
          <h2 className="pay-heading">{t("orders.pay.onYourPhone")}</h2>
          <PhoneSteps network={payer.network} total={total} number={order.number} />
          <Form method="post" className="pay-again">
            <SubmitButton name="intent" value="again" pendingLabel={t("orders.pay.sending")}>
              {t("orders.pay.sendAgain")}
            </SubmitButton>
          </Form>
          {numberForm ? (
            <Form method="post" action={`/orders/${order.id}/pay`} className="form-card pay-number">
              <h2 className="pay-heading">{t("orders.pay.otherNumber")}</h2>
              <PayerFields
                msisdn={{ id: "pay-msisdn", name: "msisdn", initialValue: refused?.msisdn ?? "", errorId: "pay-msisdn-error", errors: refused?.fields?.msisdn }}
                network={{ name: "network", initialValue: refused?.network ?? "mtn", errorId: "pay-network-error", errors: refused?.fields?.network }}
              />
              <SubmitButton name="intent" value="number" pendingLabel={t("orders.pay.sending")}>
                {t("orders.pay.sendToNumber")}
              </SubmitButton>
            </Form>
          ) : (
            <p>
              <Link to="?number" className="button button-secondary">
                {t("orders.pay.otherNumber")}
              </Link>
            </p>
          )}
          <p className="field-hint pay-timing">{t("orders.pay.timing", { wait: waitMinutes, left: minutesLeft })}</p>
          <p className="field-hint">{t("orders.pay.replaces")}</p>
        </>
      ) : null}

      {sandbox ? (
        <aside className="sandbox-box" aria-label={t("orders.pay.sandbox")}>
          {sandbox.url ? (
            <p>
              <T id="orders.pay.sandboxLocal" components={{ 0: <strong />, 1: <Link to={sandbox.url} /> }} />
            </p>
          ) : (
            <p>
              <T id="orders.pay.sandboxRemote" components={{ 0: <strong /> }} />
            </p>
          )}
        </aside>
      ) : null}

      {state === "pending" && canCancel ? (
        <Form method="post" className="pay-cancel">
          <p>{t("orders.pay.changedMind")}</p>
          <SubmitButton name="intent" value="cancel" pendingLabel={t("orders.pay.cancelling")}>
            {t("orders.pay.cancelOrder")}
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
