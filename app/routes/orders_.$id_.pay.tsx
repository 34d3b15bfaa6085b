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
import { formatUgx } from "~/domain/money";
import { failureStatus } from "~/server/operation-results.server";
import { orderActions, orderNumber, UNPAID_EXPIRY_MS } from "~/domain/order-rules";
import { PayerSchema } from "~/schemas/order";
import { messageOf } from "~/content/operation-messages";
import ordersStylesUrl from "~/styles/orders.css?url";

export const links: LinksFunction = () => [{ rel: "stylesheet", href: ordersStylesUrl }];

export const meta: MetaFunction<typeof loader> = ({ data }) => [{ title: data ? `Paying for ${data.order.number} | Soko` : "Not found | Soko" }];

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
 */
async function payState(db: Db, order: OrderRow, payment: PaymentRow | null): Promise<{ state: PayState; reason: string | null }> {
  if (order.status === "pending_payment") return { state: "pending", reason: null };
  if (order.status !== "cancelled") return { state: "paid", reason: null };
  if (payment?.status === "failed") return { state: "failed", reason: payment.failureReason ?? "the payment was refused" };
  if (payment?.status === "successful" || payment?.status === "refunded") {
    return { state: "failed", reason: "it arrived after the order was cancelled, so it is being refunded to you" };
  }
  const cancelled = (await listOrderEvents(db, order.id)).filter((e) => e.to === "cancelled").pop();
  if (cancelled?.actorRole === "buyer") return { state: "failed", reason: "you cancelled this order before approving the payment" };
  return { state: "failed", reason: cancelled?.reason || "the order was cancelled before the payment was approved" };
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
  const { state, reason } = await payState(db, order, payment);
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
    canCancel,
    // The phone prompt opens only at a localhost name (ADR 029): elsewhere the page says so rather than link to a 404.
    sandbox: sandbox && payment ? (isLoopbackHost(request) ? { url: `/dev/pay/${payment.reference}` } : { url: null }) : null,
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
      const error = result.error === "invalid" ? "Check the number and try again." : messageOf(result);
      return data({ intent, error, msisdn: payer?.msisdn, network: payer?.network } satisfies Refusal, { status, headers });
    }
    return redirect(`/orders/${order.id}/pay`, 303);
  }
  if (intent !== "cancel") return refused({ intent: "", error: "Choose what to do with this order." }, 400);
  // Only giving up an unpaid order is meant here: if the payment landed meanwhile, the operation refuses.
  const result = await cancelOrder(actor, { orderId: order.id, reason: "", expected: "abandon" });
  if (!result.ok) {
    if (result.error === "not_found" || result.error === "forbidden") throw new Response("Not Found", { status: 404 });
    return refused({ intent, error: result.error === "invalid" ? "This order cannot be cancelled now." : messageOf(result) }, failureStatus(result));
  }
  return redirect("/orders?tab=cancelled");
}

/**
 * What the payer sees on their phone. The prompt names the payment by the description we send with it
 * (requestPayment: "Soko order #N"), as MoMo's payer message and Airtel's reference.
 */
function PhoneSteps({ network, total, number }: { network: Network; total: string; number: string }) {
  const words = PROMPT_WORDS[network];
  return (
    <ol className="pay-steps">
      <li>
        A prompt from {words.service} asks you to {words.ask} {total} for “Soko {number}”.
      </li>
      <li>
        Enter your {words.pin} PIN to {words.answer}. Nobody from Soko will ever ask you for it.
      </li>
      <li>This page moves on by itself when {words.company} tells us.</li>
    </ol>
  );
}

/** What each network's prompt says, in its own words. */
const PROMPT_WORDS: Record<Network, { service: string; ask: string; pin: string; answer: string; company: string }> = {
  mtn: { service: "MTN Mobile Money", ask: "pay", pin: "Mobile Money", answer: "approve", company: "MTN" },
  airtel: { service: "Airtel Money", ask: "confirm paying", pin: "Airtel Money", answer: "confirm", company: "Airtel" },
};

export default function PayOrder() {
  const { order, payer, minutesLeft, waitMinutes, choosing, state, reason, canCancel, sandbox } = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>() as Refusal | undefined;
  useRevalidateWhile(state === "pending");
  const total = formatUgx(order.totalUgx);
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
      <h1 id="pay-title">Pay for your order</h1>
      <p className="pay-order">
        {order.number} · {order.gigId ? <Link to={`/gig/${order.gigId}`}>{order.gigTitle}</Link> : order.gigTitle} · <strong>{total}</strong>
      </p>

      <div className={`pay-state pay-${state}`} role="status" aria-live="polite">
        {state === "pending" ? (
          <>
            {payer ? (
              <p>
                Approve the payment of {total} on your phone {payer.msisdn} ({NETWORK_LABEL[payer.network]}).
              </p>
            ) : null}
            <p className="pay-waiting">Waiting for your phone…</p>
          </>
        ) : null}
        {state === "paid" ? (
          <>
            <p className="pay-result">Paid. {total} is held in escrow until you approve the delivery.</p>
            <p>
              <Link to={`/orders/${order.id}`} className="button">
                Go to your order
              </Link>
            </p>
          </>
        ) : null}
        {state === "failed" ? (
          <>
            <p className="pay-result">The payment did not go through: {reason?.replace(/\.$/, "")}.</p>
            <p>This order is cancelled.{reason?.includes("refunded") ? "" : " Nothing was taken from your account."}</p>
            {order.gigId ? (
              <p>
                <Link to={`/gig/${order.gigId}/order?package=${order.tier}`} className="button">
                  Try again
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
          <h2 className="pay-heading">On your phone</h2>
          <PhoneSteps network={payer.network} total={total} number={order.number} />
          <Form method="post" className="pay-again">
            <SubmitButton name="intent" value="again" pendingLabel="Sending…">
              Send the prompt again
            </SubmitButton>
          </Form>
          {numberForm ? (
            <Form method="post" action={`/orders/${order.id}/pay`} className="form-card pay-number">
              <h2 className="pay-heading">Use another number</h2>
              <PayerFields
                msisdn={{ id: "pay-msisdn", name: "msisdn", initialValue: refused?.msisdn ?? "", errorId: "pay-msisdn-error", errors: refused?.fields?.msisdn }}
                network={{ name: "network", initialValue: refused?.network ?? "mtn", errorId: "pay-network-error", errors: refused?.fields?.network }}
              />
              <SubmitButton name="intent" value="number" pendingLabel="Sending…">
                Send the prompt to this number
              </SubmitButton>
            </Form>
          ) : (
            <p>
              <Link to="?number" className="button button-secondary">
                Use another number
              </Link>
            </p>
          )}
          <p className="field-hint pay-timing">
            The prompt stays on your phone only for a short while. If it has gone, or never came, send it again. This order waits {waitMinutes} minutes for your
            payment: {minutesLeft === 1 ? "1 minute" : `${minutesLeft} minutes`} left.
          </p>
          <p className="field-hint">
            Each new prompt replaces the last one. If you approve an old one as well, only one payment counts and the other is refunded.
          </p>
        </>
      ) : null}

      {sandbox ? (
        <aside className="sandbox-box" aria-label="Sandbox">
          {sandbox.url ? (
            <p>
              <strong>Sandbox: no real money moves.</strong> No phone is asked here: <Link to={sandbox.url}>Open the phone prompt</Link> to approve or decline
              this payment.
            </p>
          ) : (
            <p>
              <strong>Sandbox: no real money moves.</strong> No phone is asked here, and the sandbox's phone prompt opens only on the machine that runs Soko, at
              its localhost address.
            </p>
          )}
        </aside>
      ) : null}

      {state === "pending" && canCancel ? (
        <Form method="post" className="pay-cancel">
          <p>Changed your mind? If you cancel now, nothing is charged; a payment approved after all is refunded.</p>
          <SubmitButton name="intent" value="cancel" pendingLabel="Cancelling…">
            Cancel this order
          </SubmitButton>
        </Form>
      ) : null}
    </section>
  );
}
